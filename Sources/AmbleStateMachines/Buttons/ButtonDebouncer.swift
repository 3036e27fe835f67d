/// What a button is for. Two-button bands have `next` and `select`; a third button is `back`.
/// Without a back button, a long press of `select` goes back or ends a walk.
public enum ButtonRole: String, Sendable, CaseIterable, Codable {
    case next, select, back
}

/// A debounced press, named by what the wearer did.
public enum ButtonEvent: Equatable, Sendable {
    /// Pressed and released before the long-press time.
    case shortPressed(ButtonRole)
    /// Held for the long-press time (reported while still held, so the wearer feels it at once).
    case longPressed(ButtonRole)
}

/// Debounces one button's edges and turns them into short and long presses.
///
/// A level counts once it has held for `debounceSeconds` with no further edge; the press then
/// dates from the edge that began that level. Pure: edges and the current time in, events out.
public struct ButtonDebouncer: Sendable {
    public let role: ButtonRole
    /// A level must hold this long to count (contact bounce is shorter), in seconds.
    public let debounceSeconds: Double
    /// Held at least this long is a long press, in seconds.
    public let longPressSeconds: Double

    private var rawActive = false
    private var rawSince = -Double.infinity
    private var stableActive = false
    private var pressStart: Double?
    private var longReported = false

    public init(role: ButtonRole, debounceSeconds: Double = 0.02, longPressSeconds: Double = 0.8) {
        self.role = role
        self.debounceSeconds = debounceSeconds
        self.longPressSeconds = longPressSeconds
    }

    /// Feeds one edge (`becameActive` at `timeSeconds`); returns any press it completes.
    public mutating func edge(becameActive: Bool, atSeconds time: Double) -> [ButtonEvent] {
        // The level before this edge may have settled in the meantime.
        let events = settle(until: time)
        if becameActive != rawActive {
            rawActive = becameActive
            rawSince = time
        }
        return events
    }

    /// Advances to `now`: settles a level that held long enough, reports a long press.
    public mutating func update(now: Double) -> [ButtonEvent] {
        settle(until: now)
    }

    private mutating func settle(until now: Double) -> [ButtonEvent] {
        var events: [ButtonEvent] = []
        if rawActive != stableActive && now - rawSince >= debounceSeconds {
            stableActive = rawActive
            if stableActive {
                pressStart = rawSince
                longReported = false
            } else if let start = pressStart {
                if !longReported && rawSince - start < longPressSeconds {
                    events.append(.shortPressed(role))
                }
                pressStart = nil
            }
        }
        if stableActive, let start = pressStart, !longReported, now - start >= longPressSeconds {
            longReported = true
            events.append(.longPressed(role))
        }
        return events
    }
}
