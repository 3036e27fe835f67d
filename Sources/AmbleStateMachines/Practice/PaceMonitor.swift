/// Decides, second by second, whether a mindful walk is too fast and when to buzz.
///
/// Over the limit means cadence above `limitStepsPerMinute`; once over, the walk counts as
/// slowed only below the limit minus the hysteresis. The first alert comes after
/// `sustainSeconds` in a row over the limit; while still over, another every `realertSeconds`.
public struct PaceMonitor: Equatable, Sendable {
    public let limitStepsPerMinute: Double
    let sustainSeconds: Int
    let realertSeconds: Int
    let hysteresisStepsPerMinute: Double

    /// Where the pace stands, for the screen: under the limit, over it, or easing (below the
    /// limit but not yet by the hysteresis, so still counted as over).
    public enum Pace: Equatable, Sendable {
        case under, over, easing
    }

    public private(set) var pace = Pace.under
    private var over = false
    private var secondsOver = 0
    private var secondsSinceAlert: Int?

    public init(limitStepsPerMinute: Double, settings: PracticeSettings) {
        self.limitStepsPerMinute = limitStepsPerMinute
        sustainSeconds = settings.sustainSecondsBeforeAlert
        realertSeconds = settings.realertSeconds
        hysteresisStepsPerMinute = settings.hysteresisStepsPerMinute
    }

    /// Feeds one second's cadence; returns whether it was over the limit and whether to alert.
    public mutating func secondElapsed(cadenceStepsPerMinute cadence: Double) -> (overLimit: Bool, alert: Bool) {
        if over {
            over = cadence >= limitStepsPerMinute - hysteresisStepsPerMinute
        } else {
            over = cadence > limitStepsPerMinute
        }
        secondsSinceAlert = secondsSinceAlert.map { $0 + 1 }
        pace = !over ? .under : cadence > limitStepsPerMinute ? .over : .easing
        guard over else {
            secondsOver = 0
            secondsSinceAlert = nil  // slowed down: the next surge gets its grace again
            return (false, false)
        }
        secondsOver += 1
        let due: Bool
        if let since = secondsSinceAlert {
            due = since >= realertSeconds
        } else {
            due = secondsOver >= sustainSeconds
        }
        if due { secondsSinceAlert = 0 }
        return (true, due)
    }
}
