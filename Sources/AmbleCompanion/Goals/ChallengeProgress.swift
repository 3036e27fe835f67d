import AmbleCompanionStore
import AmbleModel

/// A challenge's rules: levels, the completion rate and the report's message. Pure: the
/// challenges, the sessions, "now" and the time zone in; figures out.
public enum ChallengeRules {
    /// Levels 1 to 4: level N lasts N weeks.
    public static let levels = 1 ... 4
    /// Walks a week a challenge may ask, 1...21 (three a day).
    public static let walksPerWeekRange = 1 ... 21
    /// A finished challenge at or above this completion rate opens the next level; below
    /// it, the report suggests repeating the level.
    static let passingRate = 0.5

    /// The levels open to start: level 1, any level already started (a level can always be
    /// repeated), and the level after each one finished at `passingRate` or more.
    public static func openLevels(_ challenges: [StoredChallenge], completion: (StoredChallenge) -> Double?) -> [Int] {
        var open: Set<Int> = [1]
        for challenge in challenges {
            open.insert(challenge.level)
            if let rate = completion(challenge), rate >= passingRate, challenge.level < levels.upperBound { open.insert(challenge.level + 1) }
        }
        return open.sorted()
    }

    /// The challenge's local days, `weeks x 7` of them from its first day.
    static func days(weeks: Int, firstDay: CivilDay) -> [CivilDay] { (0 ..< weeks * 7).map { firstDay.adding(days: $0) } }

    /// Mindful walks on each of the challenge's days (those after `throughDay`, when given, count 0).
    static func walksPerDay(weeks: Int, firstDay: CivilDay, sessions: [CompanionSession], time: LocalTime, throughDay: CivilDay? = nil) -> [Int] {
        let log = ActivityLog(sessions, time: time)
        return days(weeks: weeks, firstDay: firstDay).map { day in throughDay.map { day > $0 } == true ? 0 : log[day].walks }
    }

    /// Walks done against walks asked, each week's walks counted up to its target (a busy
    /// week does not make up for an empty one), 0...1.
    static func completionRate(walksPerDay: [Int], walksPerWeek: Int) -> Double {
        let weeks = max(1, walksPerDay.count / 7)
        let counted = (0 ..< weeks).reduce(0) { sum, week in
            sum + min(walksPerWeek, walksPerDay.dropFirst(week * 7).prefix(7).reduce(0, +))
        }
        return Double(counted) / Double(weeks * walksPerWeek)
    }

    /// The report's message: always something done well, the next level when it opened,
    /// and, below `passingRate`, the suggestion to repeat the level.
    static func message(level: Int, walksPerWeek: Int, walks: Int, completionRate: Double) -> (praise: String, next: String) {
        let praise: String
        switch completionRate {
        case 1...: praise = "Challenge complete: every walk you set out to take, and \(walks) in all. Well done!"
        case passingRate...: praise = "Well done: \(walks) mindful walk\(walks == 1 ? "" : "s"), more than half of what you set out to do."
        case _ where walks > 0: praise = "You took \(walks) mindful walk\(walks == 1 ? "" : "s"): each one counts, and the habit grows from there."
        default: praise = "A new start is always open: the walks begin with the next one."
        }
        let next: String
        if completionRate < passingRate {
            next = "Try level \(level) again: amble challenge start --weeks \(level) --walks-per-week \(walksPerWeek)"
        } else if level < levels.upperBound {
            next = "Level \(level + 1) (\(level + 1) weeks) is open: amble challenge start --weeks \(level + 1) --walks-per-week \(walksPerWeek)"
        } else {
            next = "You completed the longest level. Repeat any level to keep the habit going."
        }
        return (praise, next)
    }
}

/// A challenge as of "now": its days, its walks so far, and whether it is over.
public struct ChallengeStatus: Equatable, Sendable {
    public var challenge: StoredChallenge
    var firstDay: CivilDay
    /// The day after its last.
    public var endDay: CivilDay
    var today: CivilDay
    /// Walks on each of its days (stored figures once finished; else counted from the sessions up to today).
    var walksPerDay: [Int]

    public var isOver: Bool { challenge.state == .finished || today >= endDay }
    /// Days left, today included; 0 once over.
    public var daysLeft: Int { isOver ? 0 : endDay.daysSinceEpoch - today.daysSinceEpoch }
    /// The week under way, 0-based (the last once over).
    var weekIndex: Int { min(challenge.weeks - 1, max(0, (today.daysSinceEpoch - firstDay.daysSinceEpoch) / 7)) }
    var walks: Int { walksPerDay.reduce(0, +) }
    var walksThisWeek: Int { walksPerDay.dropFirst(weekIndex * 7).prefix(7).reduce(0, +) }
    var walksAsked: Int { challenge.weeks * challenge.walksPerWeek }
    public var completionRate: Double {
        challenge.result?.completionRate ?? ChallengeRules.completionRate(walksPerDay: walksPerDay, walksPerWeek: challenge.walksPerWeek)
    }

    /// The challenge's status at `nowUnixSeconds`; nil when its stored first day is damaged.
    public init?(_ challenge: StoredChallenge, sessions: [CompanionSession], nowUnixSeconds: Double, time: LocalTime) {
        guard let first = CivilDay(parsing: challenge.firstDay) else { return nil }
        self.challenge = challenge
        firstDay = first
        endDay = first.adding(days: challenge.weeks * 7)
        today = time.day(nowUnixSeconds)
        if let result = challenge.result, result.walksPerDay.count == challenge.weeks * 7 {
            walksPerDay = result.walksPerDay
        } else {
            walksPerDay = ChallengeRules.walksPerDay(weeks: challenge.weeks, firstDay: first, sessions: sessions, time: time, throughDay: today)
        }
    }

    /// The figures to keep when it closes.
    public func result(closedUnixSeconds: Double) -> StoredChallenge.Result {
        StoredChallenge.Result(closedUnixSeconds: closedUnixSeconds, walksPerDay: walksPerDay,
                               completionRate: ChallengeRules.completionRate(walksPerDay: walksPerDay, walksPerWeek: challenge.walksPerWeek))
    }
}
