/// What the band shows: on the OLED when there is one, and on the simulated board's status line.
public enum Screen: Equatable, Sendable {
    public struct MenuEntry: Equatable, Sendable {
        public var title: String
        public var enabled: Bool
    }

    case menu(entries: [MenuEntry], selected: Int)
    case choosingReduction(percent: Int, limitStepsPerMinute: Double)
    case countdown(title: String, secondsLeft: Int)
    case calibrating(elapsedSeconds: Int, totalSeconds: Int?, cadenceStepsPerMinute: Double, steps: Int)
    case walking(elapsedSeconds: Int, cadenceStepsPerMinute: Double, limitStepsPerMinute: Double, steps: Int, heartRateBPM: Double?, overLimit: Bool)
    case notice(title: String, detail: String)
    /// A question for the wearer (pairing, a wipe): a sentence, an optional code in large
    /// digits, and which button says what.
    case question(title: String, detail: String, code: String?, keys: String)
}
