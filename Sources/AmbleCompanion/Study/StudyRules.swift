import AmbleCompanionStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A mindful walk as the study rules see it: the laptop's session id and when it started.
public struct StudyWalk: Equatable, Sendable {
    public var sessionID: Int64
    /// Seconds since 1970-01-01T00:00:00Z.
    public var startUnixSeconds: Double

    public init(sessionID: Int64, startUnixSeconds: Double) {
        self.sessionID = sessionID
        self.startUnixSeconds = startUnixSeconds
    }
}

/// One occurrence of a questionnaire that can be answered now.
public struct DueOccasion: Equatable, Sendable {
    public var questionnaire: String
    /// The period it completes (`StudyAnswer.period`).
    public var period: String
    /// The walk it is about (after-walk questionnaires).
    public var walk: StudyWalk?
    /// For the participant: "today", "for your walk of Tue 3 Mar 2026, 08:10".
    public var label: String
}

/// Where a questionnaire stands at a moment.
public enum QuestionnaireStatus: Equatable, Sendable {
    /// Due now: one occasion, or one per walk not answered yet.
    case due([DueOccasion])
    /// Completed in its current period (at the latest submission), and when it comes again, if ever.
    case completed(atUnixSeconds: Double, again: String?)
    /// Not open yet: it opens at this moment.
    case upcoming(opensUnixSeconds: Double)
    /// Open, but waiting for something (a synced walk).
    case waiting(String)
    /// Over, not due again.
    case closed(String)

    public var isDue: Bool { if case .due = self { return true } else { return false } }
}

/// The study's rules as pure functions: the moment, the local time zone, the study, the
/// submissions and the synced walks in; what is due out. Periods are local days: a study
/// runs from the local midnight of its first day to that of the day after its last.
///
/// - `start`: once, from the first day until the study ends (period `start`).
/// - `end`: once, from the last day on, also after the study is over (period `end`).
/// - `daily`: once each local day of the study (period `day:YYYY-MM-DD`); a missed day is not
///   due later.
/// - `before-walk`: once between two walks while the study runs: due until a walk that starts
///   after the answer is synced (period `before:since-start`, then `before:since-ID` after walk
///   ID). The answer belongs to the first walk that starts after it.
/// - `after-walk`: once for each synced mindful walk that started during the study (period
///   `after:ID`), even after the study is over.
public enum StudyRules {
    public static func studyStart(_ study: Study, time: LocalTime) -> Double { time.startOfDay(study.firstDay) }
    public static func studyEnd(_ study: Study, time: LocalTime) -> Double { time.startOfDay(study.lastDay.adding(days: 1)) }

    /// Every questionnaire's status, in the file's order.
    public static func statuses(_ study: Study, now: Double, time: LocalTime, submissions: [StudySubmission], walks: [StudyWalk])
        -> [(questionnaire: Questionnaire, status: QuestionnaireStatus)] {
        study.questionnaires.map { ($0, status(of: $0, in: study, now: now, time: time, submissions: submissions, walks: walks)) }
    }

    /// What can be answered now, in the file's order (the walks of an after-walk questionnaire oldest first).
    public static func due(_ study: Study, now: Double, time: LocalTime, submissions: [StudySubmission], walks: [StudyWalk]) -> [DueOccasion] {
        statuses(study, now: now, time: time, submissions: submissions, walks: walks).flatMap { entry -> [DueOccasion] in
            if case let .due(occasions) = entry.status { return occasions }
            return []
        }
    }

    public static func status(of q: Questionnaire, in study: Study, now: Double, time: LocalTime,
                       submissions: [StudySubmission], walks: [StudyWalk]) -> QuestionnaireStatus {
        let start = studyStart(study, time: time), end = studyEnd(study, time: time)
        let mine = submissions.filter { $0.questionnaire == q.name }
        func submitted(_ period: String) -> StudySubmission? { mine.last { $0.period == period } }
        switch q.due {
        case .start:
            if let done = submitted("start") { return .completed(atUnixSeconds: done.submittedUnixSeconds, again: nil) }
            if now < start { return .upcoming(opensUnixSeconds: start) }
            if now >= end { return .closed("missed: the study is over") }
            return .due([DueOccasion(questionnaire: q.name, period: "start", walk: nil, label: "at the start of the study")])
        case .end:
            if let done = submitted("end") { return .completed(atUnixSeconds: done.submittedUnixSeconds, again: nil) }
            let opens = time.startOfDay(study.lastDay)
            if now < opens { return .upcoming(opensUnixSeconds: opens) }
            return .due([DueOccasion(questionnaire: q.name, period: "end", walk: nil, label: "at the end of the study")])
        case .daily:
            if now < start { return .upcoming(opensUnixSeconds: start) }
            if now >= end {
                let count = Set(mine.map(\.period).filter { $0.hasPrefix("day:") }).count
                return .closed("the study is over; answered on \(count) of \(study.days) days")
            }
            let today = time.day(now)
            if let done = submitted(dayPeriod(today)) {
                let tomorrow = today.adding(days: 1)
                return .completed(atUnixSeconds: done.submittedUnixSeconds, again: tomorrow <= study.lastDay ? "again tomorrow" : nil)
            }
            return .due([DueOccasion(questionnaire: q.name, period: dayPeriod(today), walk: nil, label: "today")])
        case .beforeWalk:
            if now < start { return .upcoming(opensUnixSeconds: start) }
            if now >= end { return .closed("the study is over") }
            let period = beforeWalkPeriod(now: now, start: start, walks: walks)
            if let done = submitted(period) {
                return .completed(atUnixSeconds: done.submittedUnixSeconds, again: "again once your next walk is synced")
            }
            return .due([DueOccasion(questionnaire: q.name, period: period, walk: nil, label: "before your next walk")])
        case .afterWalk:
            let studyWalks = walks.filter { $0.startUnixSeconds >= start && $0.startUnixSeconds < end && $0.startUnixSeconds <= now }
                .sorted { ($0.startUnixSeconds, $0.sessionID) < ($1.startUnixSeconds, $1.sessionID) }
            let open = studyWalks.filter { submitted(afterWalkPeriod($0)) == nil }
            if !open.isEmpty {
                return .due(open.map { DueOccasion(questionnaire: q.name, period: afterWalkPeriod($0), walk: $0,
                                                   label: "for your walk of \(time.dateAndClock($0.startUnixSeconds))") })
            }
            if now < start { return .upcoming(opensUnixSeconds: start) }
            if let last = mine.filter({ $0.period.hasPrefix("after:") }).max(by: { $0.submittedUnixSeconds < $1.submittedUnixSeconds }) {
                return now >= end ? .closed("the study is over; \(studyWalks.count) walk\(studyWalks.count == 1 ? "" : "s") answered")
                    : .completed(atUnixSeconds: last.submittedUnixSeconds, again: "again after your next walk, once synced")
            }
            return now >= end ? .closed("the study is over; no walk was synced") : .waiting("due after your first walk, once synced")
        }
    }

    public static func dayPeriod(_ day: CivilDay) -> String { "day:" + day.iso }

    /// Whether `text` is one of the periods above: `start`, `end`, `day:YYYY-MM-DD`,
    /// `before:since-start`, `before:since-ID` or `after:ID` (ID a walk's id, 0 or more).
    public static func isPeriod(_ text: String) -> Bool {
        func isID(_ digits: Substring) -> Bool { !digits.isEmpty && digits.count <= 19 && Int64(digits).map { $0 >= 0 } == true }
        switch text {
        case "start", "end", "before:since-start": return true
        case _ where text.hasPrefix("day:"): return CivilDay(parsing: String(text.dropFirst(4))).map { dayPeriod($0) == text } == true
        case _ where text.hasPrefix("before:since-"): return isID(text.dropFirst("before:since-".count))
        case _ where text.hasPrefix("after:"): return isID(text.dropFirst("after:".count))
        default: return false
        }
    }
    public static func afterWalkPeriod(_ walk: StudyWalk) -> String { "after:\(walk.sessionID)" }

    /// The stretch since the latest synced walk of the study that started at or before `now`.
    public static func beforeWalkPeriod(now: Double, start: Double, walks: [StudyWalk]) -> String {
        let latest = walks.filter { $0.startUnixSeconds >= start && $0.startUnixSeconds <= now }
            .max { ($0.startUnixSeconds, $0.sessionID) < ($1.startUnixSeconds, $1.sessionID) }
        return latest.map { "before:since-\($0.sessionID)" } ?? "before:since-start"
    }

    /// The walk an answer belongs to: an after-walk answer's own; a before-walk answer's is the
    /// first walk that started after it was submitted (nil until one is synced).
    public static func walk(for submission: StudySubmission, due: DueKind, walks: [StudyWalk]) -> Int64? {
        switch due {
        case .afterWalk:
            return submission.sessionID ?? Int64(submission.period.dropFirst("after:".count))
        case .beforeWalk:
            return walks.filter { $0.startUnixSeconds >= submission.submittedUnixSeconds }
                .min { ($0.startUnixSeconds, $0.sessionID) < ($1.startUnixSeconds, $1.sessionID) }?.sessionID
        default:
            return submission.sessionID
        }
    }

    /// The reminder the band should give for the study at `now`: the earliest `remind_at` of
    /// the questionnaires that ask for one and are due today or open later today (a daily one,
    /// one due now, or the end questionnaire on the last day), while the study runs or an end
    /// questionnaire is due; `off` once nothing asks for one; nil when the study has no
    /// reminders at all (the band's own reminder is left alone).
    public static func reminder(_ study: Study, now: Double, time: LocalTime, submissions: [StudySubmission], walks: [StudyWalk])
        -> (time: Int, text: String)?? {
        let withReminder = study.questionnaires.filter { $0.remindAtMinutes != nil }
        guard !withReminder.isEmpty else { return nil }
        let candidates = withReminder.filter { q in
            let status = status(of: q, in: study, now: now, time: time, submissions: submissions, walks: walks)
            switch status {
            case .due: return true
            case .completed(_, let again): return q.due == .daily && again != nil
            case .upcoming(let opens): return opens - now < 86_400
            default: return false
            }
        }
        guard let first = candidates.min(by: { $0.remindAtMinutes! < $1.remindAtMinutes! }) else { return .some(nil) }
        let text = String(("Study: " + first.title).prefix(40))
        return .some((first.remindAtMinutes!, text))
    }
}

extension LocalTime {
    /// Local time in an explicit zone (`TimeZone(identifier: "Europe/Berlin")`), daylight saving included.
    init(zone: TimeZone) {
        self.init { unixSeconds in zone.secondsFromGMT(for: Date(timeIntervalSince1970: unixSeconds)) }
    }

    /// The local time of a zone written as an IANA name (`Europe/Berlin`, daylight saving
    /// included) or a fixed offset from UTC (`UTC`, `Z`, `+02:00`, `-0530`, `+5`, at most 14
    /// hours); nil for anything else, so that a caller can say the name is unknown.
    public static func zone(named text: String) -> LocalTime? {
        if text == "UTC" || text == "Z" { return .utc }
        if let sign = text.first, sign == "+" || sign == "-" {
            let digits = text.dropFirst().filter { $0 != ":" }
            guard text.dropFirst().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":") }), [1, 2, 4].contains(digits.count),
                  let number = Int(digits) else { return nil }
            let (hours, minutes) = digits.count == 4 ? (number / 100, number % 100) : (number, 0)
            guard hours <= 14, minutes < 60 else { return nil }
            return .fixed(offsetSeconds: (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60))
        }
        guard (1 ... 64).contains(text.utf8.count),
              text.utf8.allSatisfy({ (0x41 ... 0x5a).contains($0) || (0x61 ... 0x7a).contains($0) || (0x30 ... 0x39).contains($0) || "/_+-".utf8.contains($0) }),
              let zone = TimeZone(identifier: text) else { return nil }
        return LocalTime(zone: zone)
    }
}
