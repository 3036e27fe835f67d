import AmbleCompanionStore

/// `amble goals` on screen and as JSON. Pure.
public enum GoalsText {
    public static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded())) %" }

    /// A day of the strip as one character: full, three quarters, half, a little, nothing.
    static func glyph(_ share: Double) -> String {
        switch share {
        case 1...: return "█"
        case 0.75...: return "▆"
        case 0.5...: return "▄"
        case 0.000_1...: return "▂"
        default: return "·"
        }
    }

    public static func targetsLine(_ targets: GoalTargets) -> String {
        var goals: [String] = []
        if let steps = targets.stepsPerDay { goals.append("\(steps) steps a day") }
        if let walks = targets.walksPerWeek { goals.append("\(walks) walk\(walks == 1 ? "" : "s") a week") }
        if let minutes = targets.mindfulMinutesPerWeek { goals.append("\(minutes) mindful minutes a week") }
        return goals.joined(separator: ", ")
    }

    /// "1200 of 1000 steps", "2 of 3 walks"; for a weekly goal on a day, the week so far
    /// against its pace: "2 so far, pace 1.3".
    private static func amount(_ part: GoalPart, daily: Bool) -> String {
        let done = part.kind == .mindfulMinutes ? Int(part.done.rounded(.down)) : Int(part.done)
        if daily && part.kind != .steps { return "\(done) so far, pace \(n(part.target))" }
        switch part.kind {
        case .steps: return "\(done) of \(Int(part.target.rounded())) steps"
        case .walks: return "\(done) of \(n(part.target)) walks"
        case .mindfulMinutes: return "\(done) of \(n(part.target)) minutes"
        }
    }

    private static func label(_ part: GoalPart, daily: Bool) -> String {
        switch part.kind {
        case .steps: return daily ? "steps today" : "steps"
        case .walks: return daily ? "walks this week" : "walks"
        case .mindfulMinutes: return daily ? "minutes this week" : "mindful minutes"
        }
    }

    public static func text(_ s: GoalsSnapshot) -> String {
        var lines = ["Goals: \(targetsLine(s.targets)) (set \(s.targetsSince.long))", ""]
        lines.append("Today, \(s.today.day.long): \(percent(s.today.share))")
        for part in s.today.parts {
            lines.append("  " + SessionText.pad(label(part, daily: true), 22) + SessionText.pad(amount(part, daily: true), 26) + percent(part.share))
        }
        lines.append("This week, from \(s.weekStart.long): \(percent(s.weekShare))")
        for part in s.week {
            lines.append("  " + SessionText.pad(label(part, daily: false), 22) + SessionText.pad(amount(part, daily: false), 26) + percent(part.share))
        }
        lines.append("")
        if let strength = s.stripStrength {
            lines.append("Strip, the last \(s.strip.count) day\(s.strip.count == 1 ? "" : "s") with a goal: "
                         + s.strip.map { glyph($0.share) }.joined() + "  \(percent(strength))")
            lines.append("  " + s.strip.map { "\($0.day.short) \(percent($0.share))" }.joined(separator: " · "))
            lines.append("  A missed day weakens the strip by a tenth at most; the next good day builds it up again.")
        } else {
            lines.append("Strip: it starts tomorrow, with today as its first day.")
        }
        return lines.joined(separator: "\n")
    }

    public static func json(_ s: GoalsSnapshot) -> String {
        func part(_ p: GoalPart) -> String {
            "{\"goal\": \(SessionJSON.string(p.kind.rawValue)), \"done\": \(SessionJSON.number(p.done, digits: 1)), "
                + "\"target\": \(SessionJSON.number(p.target, digits: 2)), \"share\": \(SessionJSON.number(p.share, digits: 3))}"
        }
        func optional(_ value: Int?) -> String { value.map(String.init) ?? "null" }
        let strip = s.strip.map { "{\"day\": \(SessionJSON.string($0.day.iso)), \"share\": \(SessionJSON.number($0.share, digits: 3))}" }
        let fields: [(String, String)] = [
            ("goals", "{\"steps_per_day\": \(optional(s.targets.stepsPerDay)), \"walks_per_week\": \(optional(s.targets.walksPerWeek)), "
                + "\"mindful_minutes_per_week\": \(optional(s.targets.mindfulMinutesPerWeek)), \"since\": \(SessionJSON.string(s.targetsSince.iso))}"),
            ("today", "{\"day\": \(SessionJSON.string(s.today.day.iso)), \"share\": \(SessionJSON.number(s.today.share, digits: 3)), "
                + "\"parts\": [" + s.today.parts.map(part).joined(separator: ", ") + "]}"),
            ("week", "{\"first_day\": \(SessionJSON.string(s.weekStart.iso)), \"share\": \(SessionJSON.number(s.weekShare, digits: 3)), "
                + "\"parts\": [" + s.week.map(part).joined(separator: ", ") + "]}"),
            ("strip", "{\"days\": [" + strip.joined(separator: ", ") + "], \"strength\": "
                + (s.stripStrength.map { SessionJSON.number($0, digits: 3) } ?? "null") + "}"),
            ("band_line", SessionJSON.string(GoalProgress.bandLine(s))),
        ]
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }
}
