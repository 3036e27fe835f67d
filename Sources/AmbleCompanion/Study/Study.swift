/// A study as its file defines it (docs/study.md): a name, the course a participant goes
/// through, the first and last day, and questionnaires, each due at a moment of the study.
public struct Study: Equatable, Sendable {
    public var name: String
    public var description: String?
    /// The first day of the study (from its local midnight) and the last (to its end), both
    /// included, in the participant's local time.
    public var firstDay: CivilDay
    public var lastDay: CivilDay
    public var course: [CourseStep]
    public var questionnaires: [Questionnaire]
    /// For a study run by the server (docs/study.md, "A study on the server"): its arms (none,
    /// or at least two), how participants are allocated to them, the consent document and
    /// when participants may join. A laptop-only study has none of them.
    public var arms: [StudyArm] = []
    public var allocation: StudyAllocation?
    public var consent: StudyConsent?
    public var enrolment: StudyEnrolment?

    public func questionnaire(named name: String) -> Questionnaire? { questionnaires.first { $0.name == name } }

    /// Days the study lasts, both ends included.
    public var days: Int { lastDay.daysSinceEpoch - firstDay.daysSinceEpoch + 1 }
}

/// One step of a study's course, as `amble study course` shows it.
public struct CourseStep: Equatable, Sendable {
    public var title: String
    /// When, in the participant's words ("Day 1", "Days 2 to 13").
    public var when: String?
    public var text: String?
    /// A questionnaire this step is about; the course marks it done once completed.
    public var questionnaire: String?
}

/// When a questionnaire is due.
public enum DueKind: String, CaseIterable, Equatable, Sendable {
    /// Once, from the study's first day.
    case start
    /// Once, from the study's last day.
    case end
    /// Once each local day of the study.
    case daily
    /// Once before each mindful walk: due until a walk starting after the answer is synced.
    case beforeWalk = "before-walk"
    /// Once for each synced mindful walk of the study.
    case afterWalk = "after-walk"

    public var phrase: String {
        switch self {
        case .start: return "at study start"
        case .end: return "at study end"
        case .daily: return "daily"
        case .beforeWalk: return "before each walk"
        case .afterWalk: return "after each walk"
        }
    }
}

public struct Questionnaire: Equatable, Sendable {
    /// Its short name (lowercase letters, digits, `-`): `amble survey NAME`.
    public var name: String
    public var title: String
    public var due: DueKind
    /// Local time of day (minutes after midnight) the band reminds the wearer while it is due; nil: no reminder.
    public var remindAtMinutes: Int?
    /// Shown before the first question.
    public var intro: String?
    public var items: [StudyItem]
}

/// A question.
public struct StudyItem: Equatable, Sendable {
    public var id: String
    public var text: String
    public var required: Bool
    public var kind: Kind

    public enum Kind: Equatable, Sendable {
        /// Points `low...high`; `labels` name every point, or just the two ends.
        case likert(low: Int, high: Int, labels: [String])
        case single(choices: [String])
        case multiple(choices: [String])
        case number(min: Double, max: Double, unit: String?)
        case text(maxLength: Int)
    }

    /// The type's name in the file.
    public var typeName: String {
        switch kind {
        case .likert: return "likert"
        case .single: return "single"
        case .multiple: return "multiple"
        case .number: return "number"
        case .text: return "text"
        }
    }

    /// What the answer may be, for the prompt and for a rejected answer.
    public var expected: String {
        switch kind {
        case let .likert(low, high, _): return "a number from \(low) to \(high)"
        case let .single(choices): return "a number from 1 to \(choices.count)"
        case let .multiple(choices): return "numbers from 1 to \(choices.count) separated by commas (1,3)"
        case let .number(min, max, unit): return "a number from \(formatPlain(min)) to \(formatPlain(max))" + (unit.map { " (\($0))" } ?? "")
        case let .text(maxLength): return "text of at most \(maxLength) characters"
        }
    }

    /// Reads a typed answer: the value to store (`""` for a skipped optional item), or why not.
    public func parse(_ raw: String) -> Result<String, StudyAnswerError> {
        let text = raw.trimmingSpaces
        if text.isEmpty {
            return required ? .failure(StudyAnswerError("an answer is needed: \(expected)")) : .success("")
        }
        switch kind {
        case let .likert(low, high, _):
            guard let n = Int(text), (low...high).contains(n) else { return .failure(StudyAnswerError("\"\(text)\" is not \(expected)")) }
            return .success(String(n))
        case let .single(choices):
            if let n = Int(text), (1...choices.count).contains(n) { return .success(choices[n - 1]) }
            if let exact = choices.first(where: { $0.lowercased() == text.lowercased() }) { return .success(exact) }
            return .failure(StudyAnswerError("\"\(text)\" is not \(expected)"))
        case let .multiple(choices):
            var picked: [Int] = []
            for part in text.split(separator: ",") {
                guard let n = Int(part.trimmingCharacters), (1...choices.count).contains(n) else {
                    return .failure(StudyAnswerError("\"\(part.trimmingCharacters)\" is not one of the numbers 1 to \(choices.count); give \(expected)"))
                }
                if !picked.contains(n) { picked.append(n) }
            }
            guard !picked.isEmpty else { return .failure(StudyAnswerError("give \(expected)")) }
            return .success(picked.sorted().map { choices[$0 - 1] }.joined(separator: " | "))
        case let .number(min, max, _):
            guard let n = Double(text.replacing(",", with: ".")), n.isFinite, n >= min, n <= max else {
                return .failure(StudyAnswerError("\"\(text)\" is not \(expected)"))
            }
            return .success(formatPlain(n))
        case let .text(maxLength):
            guard text.count <= maxLength else { return .failure(StudyAnswerError("the answer has \(text.count) characters; at most \(maxLength)")) }
            return .success(text)
        }
    }

    /// A stored value as the participant reads it in the review (`4 (often)`).
    public func display(_ value: String) -> String {
        guard !value.isEmpty else { return "(skipped)" }
        if case let .likert(low, high, labels) = kind, let n = Int(value) {
            if labels.count == high - low + 1 { return "\(n) (\(labels[n - low]))" }
            if n == low, let first = labels.first { return "\(n) (\(first))" }
            if n == high, let last = labels.last { return "\(n) (\(last))" }
        }
        if case let .number(_, _, unit?) = kind { return "\(value) \(unit)" }
        return value
    }
}

/// An answer the survey does not take, and why.
public struct StudyAnswerError: Error, Equatable {
    public var message: String
    init(_ message: String) { self.message = message }
}

/// `12`, `12.5`: a number without a needless point.
func formatPlain(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
}

extension String {
    /// Without spaces, tabs and line ends at either end.
    public var trimmingSpaces: String { Substring(self).trimmingCharacters }
}

extension Substring {
    public var trimmingCharacters: String {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\r" || f == "\n" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s.removeLast() }
        return String(s)
    }
}
