/// A questionnaire asked one question at a time, as a value: each line typed goes in, the
/// text to show comes out. `b` goes back to change the previous answer; after the last
/// question a review lists every answer, where a number changes that answer and `s` submits.
/// End of input cancels (nothing is stored). No I/O: `SurveyTerminal` feeds it lines.
public struct SurveyMachine {
    public enum State: Equatable {
        /// Asking question `index` (0-based); `reviewAfter`: the answer goes back to the review.
        case asking(index: Int, reviewAfter: Bool)
        case reviewing
        case submitted
        case cancelled
    }

    public let questionnaire: Questionnaire
    /// What the occasion is ("today", "for your walk of ...").
    public let label: String
    public private(set) var state: State = .asking(index: 0, reviewAfter: false)
    /// Answers by item id (`""`: skipped).
    private(set) var answers: [String: String] = [:]

    public init(questionnaire: Questionnaire, label: String) {
        self.questionnaire = questionnaire
        self.label = label
    }

    public var items: [StudyItem] { questionnaire.items }

    /// The header and the first question.
    public func start() -> String {
        var lines = ["\(questionnaire.title) (\(label)): \(plural(items.count, "question")).",
                     "Type the answer and Enter; b goes back to the previous question. End of input (Ctrl-D) cancels without saving."]
        if let intro = questionnaire.intro { lines.append(intro) }
        return lines.joined(separator: "\n") + "\n\n" + prompt()
    }

    /// What to show for the current state: a question with its choices, or the review.
    public func prompt() -> String {
        switch state {
        case let .asking(index, _):
            let item = items[index]
            var lines = ["\(index + 1)/\(items.count) \(item.text)"]
            switch item.kind {
            case let .likert(low, high, labels):
                if labels.count == high - low + 1 {
                    lines.append("  " + (low...high).map { "\($0) \(labels[$0 - low])" }.joined(separator: "   "))
                } else if labels.count == 2 {
                    lines.append("  \(low) \(labels[0]) ... \(high) \(labels[1])")
                } else {
                    lines.append("  \(low) to \(high)")
                }
            case let .single(choices), let .multiple(choices):
                for (i, choice) in choices.enumerated() { lines.append("  \(i + 1)) \(choice)") }
            case .number, .text:
                break
            }
            var hint = "Answer: \(item.expected)"
            if !item.required { hint += "; Enter skips it" }
            if let current = answers[item.id] { hint += "; Enter keeps \(item.display(current))" }
            lines.append("  (\(hint))")
            return lines.joined(separator: "\n") + "\n> "
        case .reviewing:
            var lines = ["Your answers:"]
            for (i, item) in items.enumerated() {
                lines.append("  \(i + 1). \(item.text): \(answers[item.id].map(item.display) ?? "-")")
            }
            lines.append("Type s to submit, a question's number to change its answer, b to go back to the last question.")
            return lines.joined(separator: "\n") + "\n> "
        case .submitted, .cancelled:
            return ""
        }
    }

    /// A typed line (without its line end): what to show next.
    public mutating func handle(_ line: String) -> String {
        let text = line.trimmingSpaces
        switch state {
        case let .asking(index, reviewAfter):
            let item = items[index]
            if text.lowercased() == "b" {
                if reviewAfter { state = .reviewing; return prompt() }
                guard index > 0 else { return "This is the first question.\n" + prompt() }
                state = .asking(index: index - 1, reviewAfter: false)
                return prompt()
            }
            if text.isEmpty, answers[item.id] != nil {
                // Enter keeps the answer already given.
            } else {
                switch item.parse(text) {
                case let .failure(error): return "Not taken: \(error.message).\n" + prompt()
                case let .success(value): answers[item.id] = value
                }
            }
            if reviewAfter || index + 1 == items.count {
                state = .reviewing
            } else {
                state = .asking(index: index + 1, reviewAfter: false)
            }
            return prompt()
        case .reviewing:
            if text.lowercased() == "s" {
                state = .submitted
                return ""
            }
            if text.lowercased() == "b" {
                state = .asking(index: items.count - 1, reviewAfter: false)
                return prompt()
            }
            if let n = Int(text), (1...items.count).contains(n) {
                state = .asking(index: n - 1, reviewAfter: true)
                return prompt()
            }
            return "Type s to submit, or a number from 1 to \(items.count) to change that answer.\n> "
        case .submitted, .cancelled:
            return ""
        }
    }

    /// End of input: cancels unless already submitted.
    public mutating func endOfInput() {
        if state != .submitted { state = .cancelled }
    }

    /// The answers in the questionnaire's order, once submitted.
    public var submittedAnswers: [(item: String, value: String)]? {
        guard state == .submitted else { return nil }
        return items.map { ($0.id, answers[$0.id] ?? "") }
    }
}
