import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The study this laptop's wearer joined (`amble study join`): the study file as it was read,
/// and who takes part.
public struct StudyEnrollment: Equatable, Sendable {
    public var id: Int64
    /// The participant's id (letters, digits, `-` and `_`; it names their export folder).
    public var participantID: String
    /// The study's `name` from its file.
    public var studyName: String
    /// The path the study file was joined from, for messages.
    public var fileName: String
    /// The study file's whole text, kept so the study reads the same if the file moves or changes.
    public var fileText: String
    /// When the wearer joined, seconds since 1970-01-01T00:00:00Z.
    public var joinedUnixSeconds: Double
    /// When the wearer left the study (`amble study leave`), seconds since 1970; nil while
    /// they take part. A study left asks nothing more, and its reminder is turned off on the
    /// band at the next sync; its answers stay unless the wearer deleted them.
    public var leftUnixSeconds: Double?

    public init(id: Int64, participantID: String, studyName: String, fileName: String, fileText: String,
                joinedUnixSeconds: Double, leftUnixSeconds: Double? = nil) {
        self.id = id
        self.participantID = participantID
        self.studyName = studyName
        self.fileName = fileName
        self.fileText = fileText
        self.joinedUnixSeconds = joinedUnixSeconds
        self.leftUnixSeconds = leftUnixSeconds
    }
}

/// One answer to one item of a questionnaire, in one of its periods.
public struct StudyAnswer: Equatable, Sendable {
    public var questionnaire: String
    /// Which occurrence of the questionnaire it answers: `start`, `end`, `day:2026-03-02`,
    /// `before:since-start`, `before:since-12`, `after:12` (the study rules make them).
    public var period: String
    public var item: String
    /// The answer as text: a Likert point or a number (`4`, `12.5`), a choice's text, several
    /// choices joined by ` | `, or free text. Empty: the item was skipped (optional items).
    public var value: String
    /// When this value was given (the latest, when the answer was changed), seconds since 1970.
    public var answeredUnixSeconds: Double
    /// When the item was first answered in this period, seconds since 1970.
    public var firstAnsweredUnixSeconds: Double
    /// The laptop's id of the mindful walk it belongs to, when known (after-walk answers).
    public var sessionID: Int64?

    public init(questionnaire: String, period: String, item: String, value: String, answeredUnixSeconds: Double,
                firstAnsweredUnixSeconds: Double? = nil, sessionID: Int64? = nil) {
        self.questionnaire = questionnaire
        self.period = period
        self.item = item
        self.value = value
        self.answeredUnixSeconds = answeredUnixSeconds
        self.firstAnsweredUnixSeconds = firstAnsweredUnixSeconds ?? answeredUnixSeconds
        self.sessionID = sessionID
    }
}

/// A questionnaire submitted in one of its periods: it is completed there.
public struct StudySubmission: Equatable, Sendable {
    public var questionnaire: String
    public var period: String
    public var submittedUnixSeconds: Double
    /// The laptop's id of the walk it belongs to, when known.
    public var sessionID: Int64?

    public init(questionnaire: String, period: String, submittedUnixSeconds: Double, sessionID: Int64?) {
        self.questionnaire = questionnaire
        self.period = period
        self.submittedUnixSeconds = submittedUnixSeconds
        self.sessionID = sessionID
    }
}

/// What the store refuses about studies.
public enum StudyStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A questionnaire is already submitted in this period.
    case alreadySubmitted(questionnaire: String, period: String)
    /// Another study (or another participant) is joined here.
    case otherStudyJoined(studyName: String, participantID: String)
    /// No study is joined.
    case noStudy
    /// No answer to change.
    case noSuchAnswer(questionnaire: String, period: String, item: String)
    /// The store keeps the answers of a study the wearer left; another study waits until they
    /// are exported and deleted.
    case leftStudyHasAnswers(studyName: String, participantID: String, answers: Int)
    /// The wearer left the study: nothing is asked or stored any more.
    case left(studyName: String)

    public var description: String {
        switch self {
        case let .alreadySubmitted(questionnaire, period):
            return "\(questionnaire) is already completed for \(period)"
        case let .otherStudyJoined(name, participant):
            return "this store already takes part in \"\(name)\" as participant \(participant); use another --store for another study or participant"
        case .noStudy:
            return "no study joined; join one with `amble study join FILE`"
        case let .noSuchAnswer(questionnaire, period, item):
            return "no answer to \(questionnaire).\(item) for \(period)"
        case let .leftStudyHasAnswers(name, participant, answers):
            return "this store keeps \(answers) answer\(answers == 1 ? "" : "s") of \"\(name)\" (participant \(participant), who left it): "
                + "export them with `amble study export`, then delete them with `amble study leave --delete-answers`, or use another --store"
        case let .left(name):
            return "you left \"\(name)\"; join it again with `amble study join FILE` to answer"
        }
    }
}

extension CompanionStore {
    /// The "study" migration: the study joined and its answers, and "study-leave": when the
    /// wearer left it. Registered after "goals" (CompanionStore.migrator); their SQL is frozen
    /// once shipped.
    static func registerStudyMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("study") { db in
            try db.execute(sql: """
                CREATE TABLE "study_enrollment" (
                  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "participant_id" TEXT NOT NULL CHECK (length("participant_id") BETWEEN 1 AND 32),
                  "study_name" TEXT NOT NULL,
                  "file_name" TEXT NOT NULL,
                  "file_text" TEXT NOT NULL,
                  "joined_unix" DOUBLE NOT NULL,
                  UNIQUE ("study_name", "participant_id"));
                CREATE TABLE "study_submission" (
                  "enrollment_id" INTEGER NOT NULL REFERENCES "study_enrollment"("id") ON DELETE CASCADE,
                  "questionnaire" TEXT NOT NULL,
                  "period" TEXT NOT NULL,
                  "submitted_unix" DOUBLE NOT NULL,
                  "session_id" INTEGER REFERENCES "session"("id") ON DELETE SET NULL,
                  PRIMARY KEY ("enrollment_id", "questionnaire", "period"));
                CREATE TABLE "study_answer" (
                  "enrollment_id" INTEGER NOT NULL REFERENCES "study_enrollment"("id") ON DELETE CASCADE,
                  "questionnaire" TEXT NOT NULL,
                  "period" TEXT NOT NULL,
                  "item" TEXT NOT NULL,
                  "value" TEXT NOT NULL,
                  "answered_unix" DOUBLE NOT NULL,
                  "first_answered_unix" DOUBLE NOT NULL CHECK ("first_answered_unix" <= "answered_unix"),
                  "session_id" INTEGER REFERENCES "session"("id") ON DELETE SET NULL,
                  PRIMARY KEY ("enrollment_id", "questionnaire", "period", "item"));
                """)
        }
        migrator.registerMigration("study-leave") { db in
            // When the wearer left the study (`amble study leave`); NULL while they take part.
            try db.execute(sql: #"ALTER TABLE "study_enrollment" ADD COLUMN "left_unix" DOUBLE"#)
        }
    }

    // MARK: Joining

    /// Joins a study: records its file and the participant. Joining the same study as the same
    /// participant again replaces the kept file (a corrected one) and keeps the answers, also
    /// after leaving it (the participant takes part again). Another study or participant is
    /// refused (`StudyStoreError.otherStudyJoined`); once the one joined was left, it is
    /// replaced, unless its answers are still here (`StudyStoreError.leftStudyHasAnswers`).
    @discardableResult
    public func joinStudy(participantID: String, studyName: String, fileName: String, fileText: String,
                          nowUnixSeconds: Double) throws -> StudyEnrollment {
        try writer.write { db in
            try Self.join(db, participantID: participantID, studyName: studyName, fileName: fileName, fileText: fileText, nowUnixSeconds: nowUnixSeconds)
        }
    }

    /// `joinStudy` inside a transaction (joining a study server does it too).
    static func join(_ db: Database, participantID: String, studyName: String, fileName: String, fileText: String,
                     nowUnixSeconds: Double) throws -> StudyEnrollment {
        if let existing = try Self.enrollment(db) {
            if existing.studyName == studyName && existing.participantID == participantID {
                try db.execute(sql: #"UPDATE "study_enrollment" SET "file_name" = ?, "file_text" = ?, "left_unix" = NULL WHERE "id" = ?"#,
                               arguments: [fileName, fileText, existing.id])
                return StudyEnrollment(id: existing.id, participantID: participantID, studyName: studyName, fileName: fileName,
                                       fileText: fileText, joinedUnixSeconds: existing.joinedUnixSeconds)
            }
            guard existing.leftUnixSeconds != nil else {
                throw StudyStoreError.otherStudyJoined(studyName: existing.studyName, participantID: existing.participantID)
            }
            let answers = try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "study_answer" WHERE "enrollment_id" = ?"#, arguments: [existing.id]) ?? 0
            guard answers == 0 else {
                throw StudyStoreError.leftStudyHasAnswers(studyName: existing.studyName, participantID: existing.participantID, answers: answers)
            }
            try db.execute(sql: #"DELETE FROM "study_enrollment" WHERE "id" = ?"#, arguments: [existing.id])
        }
        try db.execute(sql: """
            INSERT INTO "study_enrollment" ("participant_id", "study_name", "file_name", "file_text", "joined_unix")
            VALUES (?, ?, ?, ?, ?)
            """, arguments: [participantID, studyName, fileName, fileText, nowUnixSeconds])
        return StudyEnrollment(id: db.lastInsertedRowID, participantID: participantID, studyName: studyName, fileName: fileName,
                               fileText: fileText, joinedUnixSeconds: nowUnixSeconds)
    }

    /// Leaves the study joined here at `nowUnixSeconds` (the first time counts when left
    /// again); with `deleteAnswers`, its answers and submissions are deleted in the same
    /// transaction. Returns the enrollment as left and how many answers were deleted.
    @discardableResult
    public func leaveStudy(nowUnixSeconds: Double, deleteAnswers: Bool) throws -> (enrollment: StudyEnrollment, answersDeleted: Int) {
        try writer.write { db in
            guard var enrollment = try Self.enrollment(db) else { throw StudyStoreError.noStudy }
            if enrollment.leftUnixSeconds == nil {
                try db.execute(sql: #"UPDATE "study_enrollment" SET "left_unix" = ? WHERE "id" = ?"#, arguments: [nowUnixSeconds, enrollment.id])
                enrollment.leftUnixSeconds = nowUnixSeconds
            }
            guard deleteAnswers else { return (enrollment, 0) }
            try db.execute(sql: #"DELETE FROM "study_answer" WHERE "enrollment_id" = ?"#, arguments: [enrollment.id])
            let deleted = db.changesCount
            try db.execute(sql: #"DELETE FROM "study_submission" WHERE "enrollment_id" = ?"#, arguments: [enrollment.id])
            return (enrollment, deleted)
        }
    }

    /// The study joined here, if any.
    public func studyEnrollment() throws -> StudyEnrollment? {
        try writer.read(Self.enrollment)
    }

    // MARK: Answers

    /// Submits a questionnaire in one period: its answers and the submission, in one
    /// transaction. Throws `StudyStoreError.alreadySubmitted` when it was submitted there
    /// before (nothing is written then). `answerSheet`, the sheet for a study server, is
    /// queued in the outbox in the same transaction when a server study is joined here.
    public func submitStudyAnswers(_ answers: [StudyAnswer], questionnaire: String, period: String, sessionID: Int64?,
                                   nowUnixSeconds: Double, answerSheet: OutboxItem? = nil) throws {
        try writer.write { db in
            guard let enrollment = try Self.enrollment(db) else { throw StudyStoreError.noStudy }
            guard enrollment.leftUnixSeconds == nil else { throw StudyStoreError.left(studyName: enrollment.studyName) }
            let done = try Bool.fetchOne(db, sql: """
                SELECT 1 FROM "study_submission" WHERE "enrollment_id" = ? AND "questionnaire" = ? AND "period" = ?
                """, arguments: [enrollment.id, questionnaire, period]) ?? false
            guard !done else { throw StudyStoreError.alreadySubmitted(questionnaire: questionnaire, period: period) }
            try db.execute(sql: """
                INSERT INTO "study_submission" ("enrollment_id", "questionnaire", "period", "submitted_unix", "session_id")
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [enrollment.id, questionnaire, period, nowUnixSeconds, sessionID])
            for answer in answers {
                try Self.upsert(db, enrollmentID: enrollment.id, answer)
            }
            if let answerSheet, try Self.queuesToServer(db) { try Self.enqueue(db, answerSheet) }
        }
    }

    /// Changes one stored answer: the new value with its time; the time of the first answer stays.
    public func reviseStudyAnswer(questionnaire: String, period: String, item: String, value: String, nowUnixSeconds: Double) throws {
        try writer.write { db in
            guard let enrollment = try Self.enrollment(db) else { throw StudyStoreError.noStudy }
            try db.execute(sql: """
                UPDATE "study_answer" SET "value" = ?, "answered_unix" = max(?, "first_answered_unix")
                WHERE "enrollment_id" = ? AND "questionnaire" = ? AND "period" = ? AND "item" = ?
                """, arguments: [value, nowUnixSeconds, enrollment.id, questionnaire, period, item])
            guard db.changesCount == 1 else {
                throw StudyStoreError.noSuchAnswer(questionnaire: questionnaire, period: period, item: item)
            }
        }
    }

    /// Records the walk a submitted questionnaire belongs to, once known (a before-walk one
    /// belongs to the walk that followed it): its submission and answers that have none get
    /// `sessionID`. Returns whether anything changed.
    @discardableResult
    public func attachStudyWalk(questionnaire: String, period: String, sessionID: Int64) throws -> Bool {
        try writer.write { db in
            guard let enrollment = try Self.enrollment(db) else { throw StudyStoreError.noStudy }
            let arguments: StatementArguments = [sessionID, enrollment.id, questionnaire, period]
            try db.execute(sql: """
                UPDATE "study_submission" SET "session_id" = ?
                WHERE "enrollment_id" = ? AND "questionnaire" = ? AND "period" = ? AND "session_id" IS NULL
                """, arguments: arguments)
            let changed = db.changesCount
            try db.execute(sql: """
                UPDATE "study_answer" SET "session_id" = ?
                WHERE "enrollment_id" = ? AND "questionnaire" = ? AND "period" = ? AND "session_id" IS NULL
                """, arguments: arguments)
            return changed + db.changesCount > 0
        }
    }

    /// Every answer of the study joined here, oldest first.
    public func studyAnswers() throws -> [StudyAnswer] {
        try writer.read { db in
            guard let enrollment = try Self.enrollment(db) else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT * FROM "study_answer" WHERE "enrollment_id" = ? ORDER BY "first_answered_unix", "questionnaire", "period", rowid
                """, arguments: [enrollment.id]).map { row in
                StudyAnswer(questionnaire: row["questionnaire"], period: row["period"], item: row["item"], value: row["value"],
                            answeredUnixSeconds: row["answered_unix"], firstAnsweredUnixSeconds: row["first_answered_unix"],
                            sessionID: row["session_id"])
            }
        }
    }

    /// Every submission of the study joined here, oldest first.
    public func studySubmissions() throws -> [StudySubmission] {
        try writer.read { db in
            guard let enrollment = try Self.enrollment(db) else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT * FROM "study_submission" WHERE "enrollment_id" = ? ORDER BY "submitted_unix", "questionnaire"
                """, arguments: [enrollment.id]).map { row in
                StudySubmission(questionnaire: row["questionnaire"], period: row["period"], submittedUnixSeconds: row["submitted_unix"],
                                sessionID: row["session_id"])
            }
        }
    }

    private static func enrollment(_ db: Database) throws -> StudyEnrollment? {
        try Row.fetchOne(db, sql: #"SELECT * FROM "study_enrollment" ORDER BY "id" DESC LIMIT 1"#).map { row in
            StudyEnrollment(id: row["id"], participantID: row["participant_id"], studyName: row["study_name"], fileName: row["file_name"],
                            fileText: row["file_text"], joinedUnixSeconds: row["joined_unix"], leftUnixSeconds: row["left_unix"])
        }
    }

    /// Inserts an answer, or changes the stored one (its first time stays).
    private static func upsert(_ db: Database, enrollmentID: Int64, _ answer: StudyAnswer) throws {
        try db.execute(sql: """
            INSERT INTO "study_answer" ("enrollment_id", "questionnaire", "period", "item", "value", "answered_unix", "first_answered_unix", "session_id")
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT ("enrollment_id", "questionnaire", "period", "item")
            DO UPDATE SET "value" = excluded."value", "answered_unix" = excluded."answered_unix", "session_id" = excluded."session_id"
            """, arguments: [enrollmentID, answer.questionnaire, answer.period, answer.item, answer.value,
                             answer.answeredUnixSeconds, answer.firstAnsweredUnixSeconds, answer.sessionID])
    }
}
