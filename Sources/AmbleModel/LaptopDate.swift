/// Which dates a laptop may give the band (`amble band time`). The band keeps its date as an
/// offset from its system clock; a laptop may move it by at most `largestMoveSeconds` at a
/// time, to a date from 2017 to 2100. A laptop whose clock is a year off must not date the
/// band's next sessions a year on, nor age its synced sessions past their retention at once.
public enum LaptopDate {
    /// 2017-07-14: older than any Amble band. A band whose own date is before it has never been
    /// set since it last lost power (a board without a real-time clock): any date is taken.
    public static let earliestUnixSeconds = 1_500_000_000.0
    /// 2100-01-01.
    public static let latestUnixSeconds = 4_102_444_800.0
    /// A day and a half. Two clocks that keep time differ by seconds; a laptop whose clock is
    /// set to local time is at most 14 h off (the zones span UTC-12 to UTC+14); a band without
    /// a real-time clock that was off overnight is a night behind. A larger move means one of
    /// the clocks is days off, and a band whose date is right says no.
    public static let largestMoveSeconds = 36 * 3600.0

    public enum Verdict: Equatable, Sendable {
        case accepted
        /// The laptop's date is not from 2017 to 2100.
        case outOfRange
        /// It would move the band's date by `movedSeconds` (more than `largestMoveSeconds`).
        case tooFar(movedSeconds: Double)
    }

    /// Whether the band takes `laptopUnixSeconds` when its own date is `bandUnixSeconds`.
    public static func check(laptopUnixSeconds laptop: Double, bandUnixSeconds band: Double) -> Verdict {
        guard laptop > earliestUnixSeconds, laptop < latestUnixSeconds else { return .outOfRange }
        if band <= earliestUnixSeconds { return .accepted }
        let moved = laptop - band
        return abs(moved) <= largestMoveSeconds ? .accepted : .tooFar(movedSeconds: moved)
    }

    /// The band's words for a refusal: what looks wrong, in days or hours, never raw seconds.
    public static func refusal(_ verdict: Verdict) -> String? {
        switch verdict {
        case .accepted: return nil
        case .outOfRange: return "the laptop's clock looks wrong: its date is not between 2017 and 2100; the band kept its date"
        case .tooFar(let moved):
            return "the laptop's clock looks wrong: its date is \(span(moved)) \(moved > 0 ? "after" : "before") the band's; "
                + "the band kept its date (it moves it by at most \(span(largestMoveSeconds)) at a time)"
        }
    }

    /// A span of time for people: "400 days", "36 hours", "5 minutes" (its size, not its sign).
    public static func span(_ seconds: Double) -> String {
        let magnitude = abs(seconds)
        func plural(_ n: Int, _ unit: String) -> String { "\(n) \(unit)\(n == 1 ? "" : "s")" }
        if magnitude >= 2 * 86_400 { return plural(Int((magnitude / 86_400).rounded()), "day") }
        if magnitude >= 2 * 3600 { return plural(Int((magnitude / 3600).rounded()), "hour") }
        if magnitude >= 60 { return plural(Int((magnitude / 60).rounded()), "minute") }
        return plural(Int(magnitude.rounded()), "second")
    }
}
