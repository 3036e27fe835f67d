/// The wearer's part in what the laptop asks of the band: pairing mode, confirming a
/// pairing's code, confirming a wipe, forgetting the paired laptops. While it is active it
/// takes the buttons and the screen; when it is done the band shows the practice's menu
/// again. Pure: requests, presses and the time in, actions out.
public struct LinkPrompt: Sendable {
    /// What starts or changes a prompt.
    public enum Request: Equatable, Sendable {
        /// The wearer chose "Pair laptop" in the menu.
        case openPairing
        /// A laptop finished the pairing handshake. `code` is shown (numeric comparison) or
        /// `buzz` is played (passkey entry: the band has no display).
        case confirmPairing(connection: Int, laptopName: String, code: String?, buzz: HapticPattern?)
        /// The link for that pairing is gone.
        case pairingEnded(connection: Int)
        /// The laptop and the wearer both answered.
        case pairingResolved(connection: Int, paired: Bool)
        /// A paired laptop asks to wipe the band.
        case confirmDeleteAll
        /// The wearer chose "Forget laptops" in the menu.
        case confirmForgetLaptops
    }

    public enum Action: Equatable, Sendable {
        case show(Screen)
        case vibrate(HapticPattern)
        /// Pairing mode opened or closed: only while open does the link accept a pairing handshake.
        case pairingMode(open: Bool)
        /// The wearer's answer to the code on that connection.
        case pairingAnswer(connection: Int, accepted: Bool)
        case deleteAllAnswer(accepted: Bool)
        case forgetLaptops
        /// The prompt is over: show the practice again.
        case done
    }

    enum State: Equatable {
        case idle
        case pairingMode(until: Double)
        case confirmingPairing(connection: Int, until: Double, buzz: HapticPattern?, nextBuzz: Double, answered: Bool)
        case confirmingDeleteAll(until: Double)
        case confirmingForget(until: Double)
        /// A result on screen until a press or the time.
        case result(until: Double)
    }

    /// How long pairing mode stays open, and how long a question waits for the wearer, seconds.
    public var pairingModeSeconds: Double = 120
    public var questionSeconds: Double = 120
    /// Pause between repeats of a buzzed passkey, seconds.
    public var buzzRepeatPauseSeconds: Double = 6
    private(set) var state = State.idle

    public init() {}

    /// Whether the prompt has the buttons and the screen.
    public var isActive: Bool { state != .idle }

    /// Whether a laptop may start pairing now.
    public var isPairingModeOpen: Bool {
        if case .pairingMode = state { return true }
        return false
    }

    public mutating func handle(_ request: Request, now: Double) -> [Action] {
        switch (request, state) {
        case (.openPairing, _):
            state = .pairingMode(until: now + pairingModeSeconds)
            return [.pairingMode(open: true), .vibrate(.double),
                    .show(.question(title: "Pair laptop", detail: "Run amble pair on the laptop now", code: nil, keys: "back: cancel"))]
        case (.confirmPairing(let connection, let laptop, let code, let buzz), .pairingMode):
            state = .confirmingPairing(connection: connection, until: now + questionSeconds, buzz: buzz,
                                       nextBuzz: now + (buzz?.durationSeconds ?? 0) + buzzRepeatPauseSeconds, answered: false)
            let screen: Screen = code != nil
                ? .question(title: "Pair \(laptop)?", detail: "Same code on the laptop?", code: code, keys: "select: same  back: no")
                : .question(title: "Pair \(laptop)?", detail: "Type the buzzed code into amble pair, then press select", code: nil, keys: "select: done  back: no")
            return [.pairingMode(open: false), .vibrate(buzz ?? .double), .show(screen)]
        case (.confirmPairing(let connection, _, _, _), _):
            // Not in pairing mode (it timed out, or another laptop came first): say no.
            return [.pairingAnswer(connection: connection, accepted: false)]
        case (.pairingEnded(let connection), .confirmingPairing(let current, _, _, _, _)) where connection == current:
            return showResult("Not paired", "The laptop left before pairing finished", pattern: .refuse, now: now)
        case (.pairingResolved(let connection, let paired), .confirmingPairing(let current, _, _, _, _)) where connection == current:
            return paired
                ? showResult("Paired", "The laptop can sync now", pattern: .double, now: now)
                : showResult("Not paired", "Nothing was stored", pattern: .refuse, now: now)
        case (.confirmDeleteAll, .idle), (.confirmDeleteAll, .result):
            state = .confirmingDeleteAll(until: now + questionSeconds)
            return [.vibrate(.long), .show(.question(title: "Delete everything?", detail: "Sessions, calibration, settings, laptops", code: nil, keys: "select: delete  back: keep"))]
        case (.confirmDeleteAll, _):
            // Another question is on screen: this one is declined rather than stacked.
            return [.deleteAllAnswer(accepted: false)]
        case (.confirmForgetLaptops, _):
            state = .confirmingForget(until: now + questionSeconds)
            return [.vibrate(.short), .show(.question(title: "Forget laptops?", detail: "Every paired laptop must pair again", code: nil, keys: "select: forget  back: keep"))]
        default:
            return []
        }
    }

    /// A button press while the prompt is active (ignored otherwise).
    public mutating func button(_ press: ButtonEvent, now: Double) -> [Action] {
        let yes = press == .shortPressed(.select)
        let no = press == .shortPressed(.back) || press == .longPressed(.select) || press == .longPressed(.back)
        switch state {
        case .idle:
            return []
        case .pairingMode:
            guard no else { return [] }
            state = .idle
            return [.pairingMode(open: false), .vibrate(.short), .done]
        case .confirmingPairing(let connection, let until, let buzz, let nextBuzz, let answered):
            guard !answered, yes || no else { return [] }
            if no {
                return [.pairingAnswer(connection: connection, accepted: false)]
                    + showResult("Not paired", "Nothing was stored", pattern: .refuse, now: now)
            }
            state = .confirmingPairing(connection: connection, until: until, buzz: buzz, nextBuzz: nextBuzz, answered: true)
            return [.pairingAnswer(connection: connection, accepted: true), .vibrate(.short),
                    .show(.question(title: "Pairing", detail: "Waiting for the laptop", code: nil, keys: ""))]
        case .confirmingDeleteAll:
            guard yes || no else { return [] }
            return [.deleteAllAnswer(accepted: yes)]
                + (yes ? showResult("Deleted", "The band is as new", pattern: .long, now: now)
                       : showResult("Kept", "Nothing was deleted", pattern: .short, now: now))
        case .confirmingForget:
            guard yes || no else { return [] }
            return (yes ? [.forgetLaptops] : [])
                + (yes ? showResult("Laptops forgotten", "Pair again to sync", pattern: .double, now: now)
                       : showResult("Kept", "Laptops stay paired", pattern: .short, now: now))
        case .result:
            state = .idle
            return [.done]
        }
    }

    /// Time passes: questions and pairing mode time out; a passkey is buzzed again.
    public mutating func tick(now: Double) -> [Action] {
        switch state {
        case .idle:
            return []
        case .pairingMode(let until):
            guard now >= until else { return [] }
            state = .idle
            return [.pairingMode(open: false), .vibrate(.refuse), .done]
        case .confirmingPairing(let connection, let until, let buzz, let nextBuzz, let answered):
            if now >= until {
                // Also after the wearer's yes: the band no longer waits for the laptop.
                return [.pairingAnswer(connection: connection, accepted: false)]
                    + showResult("Not paired", "No answer in time", pattern: .refuse, now: now)
            }
            guard let buzz, !answered, now >= nextBuzz else { return [] }
            state = .confirmingPairing(connection: connection, until: until, buzz: buzz,
                                       nextBuzz: now + buzz.durationSeconds + buzzRepeatPauseSeconds, answered: answered)
            return [.vibrate(buzz)]
        case .confirmingDeleteAll(let until):
            guard now >= until else { return [] }
            return [.deleteAllAnswer(accepted: false)] + showResult("Kept", "No answer in time", pattern: .short, now: now)
        case .confirmingForget(let until):
            guard now >= until else { return [] }
            state = .idle
            return [.done]
        case .result(let until):
            guard now >= until else { return [] }
            state = .idle
            return [.done]
        }
    }

    private mutating func showResult(_ title: String, _ detail: String, pattern: HapticPattern, now: Double) -> [Action] {
        state = .result(until: now + 4)
        return [.vibrate(pattern), .show(.notice(title: title, detail: detail))]
    }
}

extension HapticPattern {
    /// A passkey as the band buzzes it: per digit n short pulses, or one long pulse for 0,
    /// with a pause between digits. `digits` holds only 0-9.
    public static func passkey(_ digits: String) -> HapticPattern {
        var segments: [Segment] = []
        for (index, digit) in digits.compactMap(\.wholeNumberValue).enumerated() {
            if index > 0 { segments.append(off(1.2)) }
            if digit == 0 {
                segments.append(on(0.7))
            } else {
                for pulse in 0 ..< digit {
                    if pulse > 0 { segments.append(off(0.25)) }
                    segments.append(on(0.15))
                }
            }
        }
        return HapticPattern(name: "passkey", segments: segments)
    }
}
