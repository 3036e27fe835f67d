import AmbleCompanionStore

/// The joined study, its answers and the synced walks, read from the store.
public struct StudyContext {
    public var enrollment: StudyEnrollment
    public var study: Study
    public var submissions: [StudySubmission]
    public var answers: [StudyAnswer]
    public var sessions: [CompanionSession]

    public init(enrollment: StudyEnrollment, study: Study, submissions: [StudySubmission], answers: [StudyAnswer], sessions: [CompanionSession]) {
        self.enrollment = enrollment
        self.study = study
        self.submissions = submissions
        self.answers = answers
        self.sessions = sessions
    }

    public var walks: [StudyWalk] {
        sessions.filter { $0.summary.kind == .mindfulWalk }.map { StudyWalk(sessionID: $0.id, startUnixSeconds: $0.summary.startUnixSeconds) }
    }

    /// Every questionnaire's status; all over once the wearer left the study.
    public func statuses(now: Double, time: LocalTime) -> [(questionnaire: Questionnaire, status: QuestionnaireStatus)] {
        if let left = enrollment.leftUnixSeconds {
            return study.questionnaires.map { ($0, .closed("you left the study on \(time.dateAndClock(left))")) }
        }
        return StudyRules.statuses(study, now: now, time: time, submissions: submissions, walks: walks)
    }

    /// The reminder the band should give (`StudyRules.reminder`); none once the wearer left,
    /// so that the next sync turns the study's reminder off.
    public func reminder(now: Double, time: LocalTime) -> (time: Int, text: String)?? {
        let wanted = StudyRules.reminder(study, now: now, time: time, submissions: submissions, walks: walks)
        return enrollment.leftUnixSeconds != nil && wanted != nil ? .some(nil) : wanted
    }
}
