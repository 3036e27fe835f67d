/// What the band shows: on the OLED when there is one, and on the simulated board's status line.
public enum Screen: Equatable, Sendable {
    public struct MenuEntry: Equatable, Sendable {
        public var title: String
        public var enabled: Bool

        public init(title: String, enabled: Bool = true) {
            self.title = title
            self.enabled = enabled
        }
    }

    /// The menu; `status` is a line over it when there is one (the store's warning, else the
    /// goals' progress a laptop sent).
    case menu(entries: [MenuEntry], selected: Int, status: String? = nil)
    case choosingReduction(percent: Int, limitStepsPerMinute: Double)
    case countdown(title: String, secondsLeft: Int)
    case calibrating(elapsedSeconds: Int, totalSeconds: Int?, cadenceStepsPerMinute: Double, steps: Int)
    case walking(Walking)
    case notice(title: String, detail: String)
    /// A question for the wearer (pairing, a wipe): a sentence, an optional code in large
    /// digits, and which button says what.
    case question(title: String, detail: String, code: String?, keys: String)
    /// A choice among a few options (end the walk, a reminder, a setting's value): `next`
    /// moves, `select` takes.
    case choice(title: String, options: [String], selected: Int)
    /// One page of the end-of-walk summary (`next` turns the page).
    case summary(title: String, lines: [String], page: Int, pages: Int)

    /// A mindful walk under way.
    public struct Walking: Equatable, Sendable {
        public var elapsedSeconds: Int
        public var cadenceStepsPerMinute: Double
        public var limitStepsPerMinute: Double
        public var steps: Int
        public var heartRateBPM: Double?
        public var pace: PaceMonitor.Pace
        /// The wearer paused the walk: seconds paused so far in this pause.
        public var pausedSeconds: Int?

        public init(elapsedSeconds: Int, cadenceStepsPerMinute: Double, limitStepsPerMinute: Double, steps: Int,
                    heartRateBPM: Double?, pace: PaceMonitor.Pace, pausedSeconds: Int? = nil) {
            self.elapsedSeconds = elapsedSeconds
            self.cadenceStepsPerMinute = cadenceStepsPerMinute
            self.limitStepsPerMinute = limitStepsPerMinute
            self.steps = steps
            self.heartRateBPM = heartRateBPM
            self.pace = pace
            self.pausedSeconds = pausedSeconds
        }

        /// The pace in words, with the hysteresis said when it is what keeps the wearer over:
        /// "84 / limit 89", "96 / limit 89 TOO FAST", "88, easing: limit 89 (slow to 87)".
        public var paceText: String {
            let cadence = Int(cadenceStepsPerMinute.rounded()), limit = Int(limitStepsPerMinute.rounded())
            switch pace {
            case .under: return "\(cadence) / limit \(limit)"
            case .over: return "\(cadence) / limit \(limit) TOO FAST"
            case .easing: return "easing: \(cadence), limit \(limit)"
            }
        }
    }
}

/// Durations as people read them: "0:17", "4:05", "1:02:09".
public func clockText(_ seconds: Int) -> String {
    let total = max(0, seconds)
    let h = total / 3600, m = (total % 3600) / 60, s = total % 60
    let ss = s < 10 ? "0\(s)" : "\(s)"
    if h > 0 { return "\(h):\(m < 10 ? "0\(m)" : "\(m)"):\(ss)" }
    return "\(m):\(ss)"
}
