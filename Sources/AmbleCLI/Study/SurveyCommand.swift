import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleStudyAPI
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble survey [NAME]`: asks the due questionnaires in the terminal, one question at a time.
struct SurveyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "survey",
        abstract: "Answer the study's due questionnaires, one question at a time.",
        discussion: """
            Without NAME every due questionnaire is asked in turn (an after-walk one once for each walk not \
            answered yet). b goes back to change the previous answer; after the last question a review lists \
            the answers: a number changes one, s submits. End of input (Ctrl-D) cancels without saving. A \
            questionnaire completed in its period is refused. Lines can be piped in: \
            printf '4\\n2\\ns\\n' | amble survey evening.
            """
    )

    @ParentCommand var amble: AmbleCommand

    @Argument(help: ArgumentHelp("A questionnaire's name (`amble study` lists them). Default: every due one.", valueName: "name"))
    var name: String?

    func run() throws {
        let store = try openCompanionStore(path: amble.storePath)
        let context = try StudyContext.read(store: store)
        guard context.enrollment.leftUnixSeconds == nil else { throw CommandError(StudyStoreError.left(studyName: context.study.name).description) }
        try Self.attachWalks(context, store: store)
        let now = laptopNow()
        let time = LocalTime.system
        let occasions = try Self.occasions(context, name: name, now: now, time: time)
        guard !occasions.isEmpty else {
            print("Nothing is due now. `amble study` shows when the questionnaires open.")
            return
        }
        for (index, occasion) in occasions.enumerated() {
            let questionnaire = context.study.questionnaire(named: occasion.questionnaire)!
            if index > 0 { print("") }
            var machine = SurveyMachine(questionnaire: questionnaire, label: occasion.label)
            // Piped answers are echoed after their prompt, as a terminal would show them.
            let echo = !standardInputIsTerminal()
            let answers = SurveyTerminal.run(&machine, read: {
                let line = readLine(strippingNewline: true)
                if echo, let line { print(line) }
                return line
            }, write: { print($0, terminator: ""); flushStandardOutput() })
            guard let answers else {
                throw CommandError("cancelled at the end of input: nothing of \"\(questionnaire.title)\" was saved"
                                   + (index > 0 ? " (the questionnaires before it were)" : ""))
            }
            let answeredAt = laptopNow()
            let rows = answers.map {
                StudyAnswer(questionnaire: questionnaire.name, period: occasion.period, item: $0.item, value: $0.value,
                            answeredUnixSeconds: answeredAt, sessionID: occasion.walk?.sessionID)
            }
            let sheet = Self.sheet(occasion, answers: answers, at: answeredAt)
            do {
                try store.submitStudyAnswers(rows, questionnaire: questionnaire.name, period: occasion.period,
                                             sessionID: occasion.walk?.sessionID, nowUnixSeconds: answeredAt,
                                             answerSheet: outboxItem(.answer, body: StudyServerClient.json(sheet), now: answeredAt))
            } catch let error as StudyStoreError {
                throw CommandError(error.description)
            }
            print("Saved: \(questionnaire.title) (\(occasion.label)), \(plural(rows.count, "answer")).")
        }
    }

    /// The answer sheet queued for a study server: the answers and the period they complete,
    /// so that the server's due rules place it as the laptop's do.
    static func sheet(_ occasion: DueOccasion, answers: [(item: String, value: String)], at answeredAt: Double) -> AnswerItem {
        AnswerItem(questionnaire: occasion.questionnaire, answeredAt: answeredAt,
                   answers: Dictionary(answers.map { ($0.item, $0.value) }, uniquingKeysWith: { _, b in b }), period: occasion.period)
    }

    /// Before-walk answers get the walk that followed them, once it is synced.
    static func attachWalks(_ context: StudyContext, store: CompanionStore) throws {
        for submission in context.submissions where submission.sessionID == nil {
            guard let q = context.study.questionnaire(named: submission.questionnaire), q.due == .beforeWalk,
                  let walk = StudyRules.walk(for: submission, due: .beforeWalk, walks: context.walks) else { continue }
            try store.attachStudyWalk(questionnaire: submission.questionnaire, period: submission.period, sessionID: walk)
        }
    }

    /// The occasions to ask: every due one, or those of the questionnaire named. Refuses a
    /// named one that is not due, saying why and when it is.
    static func occasions(_ context: StudyContext, name: String?, now: Double, time: LocalTime) throws -> [DueOccasion] {
        let statuses = context.statuses(now: now, time: time)
        guard let name else {
            return statuses.flatMap { entry -> [DueOccasion] in
                if case let .due(occasions) = entry.status { return occasions }
                return []
            }
        }
        guard let entry = statuses.first(where: { $0.questionnaire.name == name }) else {
            let names = context.study.questionnaires.map(\.name)
            throw CommandError("the study has no questionnaire \"\(name)\"" + suggestion(name, among: names) + " (it has \(names.joined(separator: ", ")))")
        }
        let title = entry.questionnaire.title
        switch entry.status {
        case let .due(occasions):
            return occasions
        case let .completed(at, again):
            throw CommandError("\"\(title)\" was completed \(time.dateAndClock(at)) and is not due now; " + (again ?? "it is not asked again"))
        case let .upcoming(opens):
            throw CommandError("\"\(title)\" is not due yet: it opens \(time.dateAndClock(opens))")
        case let .waiting(why):
            throw CommandError("\"\(title)\" is not due now: \(why)")
        case let .closed(why):
            throw CommandError("\"\(title)\" is not due any more: \(why)")
        }
    }
}

/// Runs a `SurveyMachine` over lines: `read` gives the next line (nil at the end of input),
/// `write` shows text. Returns the answers once submitted, nil when cancelled.
enum SurveyTerminal {
    static func run(_ machine: inout SurveyMachine, read: () -> String?, write: (String) -> Void) -> [(item: String, value: String)]? {
        write(machine.start())
        while machine.state != .submitted {
            guard let line = read() else {
                machine.endOfInput()
                write("\n")
                return nil
            }
            write(machine.handle(line))
        }
        return machine.submittedAnswers
    }
}
