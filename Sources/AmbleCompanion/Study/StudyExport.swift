import AmbleCompanionStore

/// The files of one participant's study export.
public enum StudyExport {
    static let answersFileName = "amble-answers.csv"

    static let answerColumns = [
        "participant_id", "study", "questionnaire", "due", "period", "item", "item_type", "question", "value",
        "answered_utc", "first_answered_utc", "submitted_utc", "session_id", "band_id", "band_session_id",
    ]

    public static func files(_ context: StudyContext, store: CompanionStore, time: LocalTime) throws -> [ExportFile] {
        let start = StudyRules.studyStart(context.study, time: time), end = StudyRules.studyEnd(context.study, time: time)
        var sessions: [ExportedSession] = []
        for session in context.sessions where session.summary.startUnixSeconds >= start && session.summary.startUnixSeconds < end {
            guard let (stored, seconds) = try store.session(id: session.id) else { continue }
            sessions.append(ExportedSession(session: stored, seconds: seconds))
        }
        var files = [answersFile(context)]
        files += CSVExport.files(sessions)
        files.append(OpenMHealthExport.file(sessions))
        files.append(ExportFile(name: "study.toml", contents: context.enrollment.fileText, summary: "the study file joined"))
        return files
    }

    /// `amble-answers.csv`: a row per answer, in the order given; times UTC ISO 8601; the walk an
    /// answer belongs to by the laptop's session id and the band's.
    static func answersFile(_ context: StudyContext) -> ExportFile {
        let lines = [answerColumns.joined(separator: ",")] + answerRows(context)
        return ExportFile(name: answersFileName, contents: lines.joined(separator: "\n") + "\n", summary: plural(context.answers.count, "answer"))
    }

    /// The lines of `amble-answers.csv` for the answers of `context` (no header, no line breaks).
    static func answerRows(_ context: StudyContext) -> [String] {
        let study = context.study
        let sessionsByID = Dictionary(context.sessions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let submissions = Dictionary(context.submissions.map { ("\($0.questionnaire)\u{0}\($0.period)", $0) }, uniquingKeysWith: { _, b in b })
        var lines: [String] = []
        for answer in context.answers {
            let questionnaire = study.questionnaire(named: answer.questionnaire)
            let item = questionnaire?.items.first { $0.id == answer.item }
            let submission = submissions["\(answer.questionnaire)\u{0}\(answer.period)"]
            var walkID = answer.sessionID
            if walkID == nil, let questionnaire, let submission {
                walkID = StudyRules.walk(for: submission, due: questionnaire.due, walks: context.walks)
            }
            let walk = walkID.flatMap { sessionsByID[$0] }
            lines.append(CSVExport.row([
                context.enrollment.participantID, study.name, answer.questionnaire, questionnaire?.due.rawValue, answer.period,
                answer.item, item?.typeName, item?.text, answer.value,
                isoDate(answer.answeredUnixSeconds), isoDate(answer.firstAnsweredUnixSeconds), submission.map { isoDate($0.submittedUnixSeconds) },
                walk.map { String($0.id) }, walk?.bandID, walk.map { String($0.bandSessionID) },
            ]))
        }
        return lines
    }
}
