import AmbleCompanionStore
import AmbleModel

/// What one local day holds for the goals: every session that started on it.
public struct DayActivity: Equatable, Sendable {
    var walks = 0
    /// Minutes of mindful walking: the walks' durations without their pauses.
    var mindfulMinutes = 0.0
    /// Steps of every session (calibrations too).
    var steps = 0

    static func + (a: DayActivity, b: DayActivity) -> DayActivity {
        DayActivity(walks: a.walks + b.walks, mindfulMinutes: a.mindfulMinutes + b.mindfulMinutes, steps: a.steps + b.steps)
    }
}

/// The sessions' figures per local day (the day a session started on).
public struct ActivityLog: Sendable {
    private var days: [CivilDay: DayActivity] = [:]

    init(_ sessions: [CompanionSession], time: LocalTime) {
        for session in sessions {
            let s = session.summary
            var day = days[time.day(s.startUnixSeconds)] ?? DayActivity()
            day.steps += s.steps
            if s.kind == .mindfulWalk {
                day.walks += 1
                day.mindfulMinutes += max(0, s.durationSeconds - Double(s.pausedSeconds)) / 60
            }
            days[time.day(s.startUnixSeconds)] = day
        }
    }

    subscript(day: CivilDay) -> DayActivity { days[day] ?? DayActivity() }

    /// The days from `first` to `last`, both included, added up.
    func total(from first: CivilDay, through last: CivilDay) -> DayActivity {
        guard first <= last else { return DayActivity() }
        return (first.daysSinceEpoch ... last.daysSinceEpoch).reduce(DayActivity()) { $0 + self[CivilDay(daysSinceEpoch: $1)] }
    }
}

/// One goal's figure: what was done against what was asked.
public struct GoalPart: Equatable, Sendable {
    enum Kind: String, Sendable {
        case steps
        case walks
        case mindfulMinutes = "mindful_minutes"
    }

    var kind: Kind
    var done: Double
    var target: Double

    /// done / target, not capped (1.25: a quarter more than asked).
    var share: Double { target > 0 ? done / target : 0 }
    /// The share counted for a day or a week: a goal met counts fully, more does not count more.
    var counted: Double { min(1, share) }
}

/// A local day's progress: its steps against the daily goal and the weekly goals' pace by
/// the day's end.
public struct DayProgress: Equatable, Sendable {
    var day: CivilDay
    var parts: [GoalPart]
    /// The mean of the parts' counted shares, 0...1.
    var share: Double { parts.isEmpty ? 0 : parts.reduce(0) { $0 + $1.counted } / Double(parts.count) }
}

/// Everything `amble goals` shows. Pure: made from the goals' history, the sessions, "now"
/// and the time zone.
public struct GoalsSnapshot: Equatable, Sendable {
    /// The goals in effect today.
    var targets: GoalTargets
    /// The local day the current goals were set on.
    var targetsSince: CivilDay
    var today: DayProgress
    /// Today's activity (steps and walks of today alone).
    var todayActivity: DayActivity
    /// Monday of this week.
    var weekStart: CivilDay
    /// This week's figures so far against the whole week's targets.
    var week: [GoalPart]
    /// The last days that matter before today (days with a goal), oldest first, at most
    /// `stripLength`.
    var strip: [DayProgress]

    /// Days the strip shows.
    static let stripLength = 10

    /// The week's progress: the mean of the goals' counted shares, 0...1.
    var weekShare: Double { week.isEmpty ? 0 : week.reduce(0) { $0 + $1.counted } / Double(week.count) }

    /// The strip's strength: the mean of its days' shares, 0...1; nil before the first day
    /// with a goal has ended. A missed day lowers it by a tenth at most; it never drops to
    /// nothing because of one day.
    var stripStrength: Double? { strip.isEmpty ? nil : strip.reduce(0) { $0 + $1.share } / Double(strip.count) }
}

public enum GoalProgress {
    /// The goals in effect on `day`: the last change made on or before it (a change made
    /// during a day holds for all of it); nil before the first.
    static func targets(on day: CivilDay, history: [GoalChange], time: LocalTime) -> GoalChange? {
        history.last { time.day($0.setUnixSeconds) <= day }
    }

    /// A day's progress under `targets`: steps of the day against steps per day; walks and
    /// mindful minutes of the week so far (Monday to the day) against the week's target
    /// spread evenly over its days (by Wednesday's end, 3/7 of it).
    static func day(_ day: CivilDay, targets: GoalTargets, log: ActivityLog) -> DayProgress {
        let weekSoFar = log.total(from: day.startOfWeek, through: day)
        let pace = Double(day.weekday + 1) / 7
        var parts: [GoalPart] = []
        if let steps = targets.stepsPerDay { parts.append(GoalPart(kind: .steps, done: Double(log[day].steps), target: Double(steps))) }
        if let walks = targets.walksPerWeek { parts.append(GoalPart(kind: .walks, done: Double(weekSoFar.walks), target: Double(walks) * pace)) }
        if let minutes = targets.mindfulMinutesPerWeek {
            parts.append(GoalPart(kind: .mindfulMinutes, done: weekSoFar.mindfulMinutes, target: Double(minutes) * pace))
        }
        return DayProgress(day: day, parts: parts)
    }

    /// Today's and this week's progress and the strip, at `nowUnixSeconds` in `time`'s zone;
    /// nil when no goal is set today.
    public static func snapshot(history: [GoalChange], sessions: [CompanionSession], nowUnixSeconds: Double, time: LocalTime) -> GoalsSnapshot? {
        let today = time.day(nowUnixSeconds)
        guard let current = targets(on: today, history: history, time: time), !current.targets.isEmpty else { return nil }
        let log = ActivityLog(sessions, time: time)
        let weekStart = today.startOfWeek
        let week = log.total(from: weekStart, through: today)
        var weekParts: [GoalPart] = []
        if let steps = current.targets.stepsPerDay { weekParts.append(GoalPart(kind: .steps, done: Double(week.steps), target: Double(steps * 7))) }
        if let walks = current.targets.walksPerWeek { weekParts.append(GoalPart(kind: .walks, done: Double(week.walks), target: Double(walks))) }
        if let minutes = current.targets.mindfulMinutesPerWeek {
            weekParts.append(GoalPart(kind: .mindfulMinutes, done: week.mindfulMinutes, target: Double(minutes)))
        }
        var strip: [DayProgress] = []
        if let first = history.first.map({ time.day($0.setUnixSeconds) }) {
            var day = today.adding(days: -1)
            while strip.count < GoalsSnapshot.stripLength && day >= first {
                if let change = targets(on: day, history: history, time: time), !change.targets.isEmpty {
                    strip.append(self.day(day, targets: change.targets, log: log))
                }
                day = day.adding(days: -1)
            }
        }
        return GoalsSnapshot(targets: current.targets, targetsSince: time.day(current.setUnixSeconds),
                             today: day(today, targets: current.targets, log: log), todayActivity: log[today],
                             weekStart: weekStart, week: weekParts, strip: strip.reversed())
    }

    /// The line the band shows over its menu after a sync: "Today 64% walks 1/3" (at most
    /// 21 characters, the OLED's width; printable ASCII).
    public static func bandLine(_ snapshot: GoalsSnapshot) -> String {
        let percent = "\(Int((snapshot.today.share * 100).rounded()))%"
        var detail = ""
        if let walks = snapshot.targets.walksPerWeek, let done = snapshot.week.first(where: { $0.kind == .walks }) {
            detail = "walks \(Int(done.done))/\(walks)"
        } else if snapshot.targets.stepsPerDay != nil {
            detail = "\(snapshot.todayActivity.steps) steps"
        } else if let minutes = snapshot.targets.mindfulMinutesPerWeek, let done = snapshot.week.first(where: { $0.kind == .mindfulMinutes }) {
            detail = "\(Int(done.done.rounded(.down)))/\(minutes) min"
        }
        let line = "Today \(percent) \(detail)"
        return String((line.count <= 21 ? line : "\(percent) \(detail)").prefix(21))
    }
}
