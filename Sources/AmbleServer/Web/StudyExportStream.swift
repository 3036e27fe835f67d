#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import AmbleStudyAPI
import AmbleSync
import HTTPTypes
import Hummingbird
import PostgresNIO

/// `GET /studies/{id}/export?format=csv|openmhealth[&table=sessions|seconds|answers][&participant=P][&after=SEQ][&through=SEQ]`:
/// the study export's files (AmbleCompanion's exporters, so the same files as `amble study
/// export`), streamed a page of items at a time, so a study of any size costs a page of memory.
///
/// Resuming: items are exported in the order they arrived (`items.seq`, which never changes).
/// Every row and data point names its item's number: `session_id` (and `band_session_id`) in
/// the session CSVs, the data point ids `amble-PARTICIPANT-SEQ-…` in Open mHealth, the period
/// `sheet:SEQ` in the answers of sheets sent without their period. An export cut short is resumed with `after=` the last complete
/// item's number, and `through=` the `X-Amble-Export-Through` header of the first response
/// (the last item it covers): the resumed part is a file of its own (its own CSV header, its
/// own JSON array) holding exactly the items after `after`.
struct StudyExportRequest: Sendable, Equatable {
    /// Items read from the database at a time.
    static let pageItems = 16

    var file: PagedExport.File
    var participant: UUID?
    var after: Int64
    var through: Int64?

    init(query: [String: String]) throws {
        let table = query["table"] ?? "sessions"
        switch query["format"] {
        case "csv":
            guard let file = PagedExport.File(rawValue: table), file != .openMHealth else {
                throw ServerError.badRequest("bad_table", "table=\(printableText(table)): give sessions, seconds or answers.")
            }
            self.file = file
        case "openmhealth": file = .openMHealth
        default:
            throw ServerError.badRequest("bad_format", "format=\(printableText(query["format"] ?? "")): give csv or openmhealth.")
        }
        participant = nil
        if let text = query["participant"] {
            guard let id = UUID(uuidString: text) else {
                throw ServerError.badRequest("bad_participant", "participant=\(printableText(text)) is not a participant id (the dashboard's export links carry them).")
            }
            participant = id
        }
        func sequence(_ name: String) throws -> Int64? {
            guard let text = query[name] else { return nil }
            guard let value = Int64(text), value >= 0 else {
                throw ServerError.badRequest("bad_\(name)", "\(name)=\(printableText(text)): give an item number (0 or more) from an earlier export.")
            }
            return value
        }
        after = try sequence("after") ?? 0
        through = try sequence("through")
    }

    var kind: ItemKind { file.holdsSessions ? .session : .answer }
}

extension StudyServer {
    func export(_ request: StudyExportRequest, study: StudyRow, researcher: AuthenticatedResearcher) async throws -> Response {
        let studyFile: Study? = try? StudyFile.parse(text: study.fileText, file: "study.toml")
        if request.file == .answers, studyFile == nil {
            throw ServerError(.conflict, "study_file_unreadable", "The study's file does not read as a study file (docs/study.md), so its questionnaires are unknown; export the sessions, or query analyst.answers in SQL.")
        }
        if let participant = request.participant {
            var found = false
            for try await _ in try await client.query(
                "SELECT 1 FROM participants WHERE id = \(participant) AND study_id = \(study.id)", logger: logger).decode(Int.self) { found = true }
            guard found else { throw ServerError(.notFound, "unknown_participant", "This study has no participant with that id.") }
        }
        // The last item stored in any study bounds this one's export: read by index, where the
        // study's own last would scan all its items (a study of ten thousand: 0.7 s).
        var last = request.through ?? 0
        if request.through == nil {
            for try await seq in try await client.query("""
                SELECT coalesce(max(seq), 0) FROM items
                """, logger: logger).decode(Int64.self) { last = seq }
        }
        let through = last
        try await audit(researcher: researcher, study: study.id, action: "export", detail: [
            "file": request.file.fileName, "participant": request.participant?.uuidString.lowercased() ?? "all",
            "after": String(request.after), "through": String(through),
        ])
        let server = self
        let body = ResponseBody { writer in
            var paged = PagedExport(request.file)
            try await writer.write(ByteBuffer(string: paged.head()))
            var cursor = request.after
            while true {
                let page = try await server.exportPage(study: study.id, request: request, after: cursor, through: through)
                guard let last = page.last else { break }
                var text = ""
                if request.file.holdsSessions {
                    text = paged.page(try page.map(Self.exportedSession))
                } else {
                    for run in Self.participantRuns(page) {
                        text += paged.page(answersOf: Self.answersContext(run, study: studyFile!, fileText: study.fileText))
                    }
                }
                if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                cursor = last.seq
                if page.count < StudyExportRequest.pageItems { break }
            }
            try await writer.write(ByteBuffer(string: paged.end()))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: request.file.contentType,
            .contentDisposition: "attachment; filename=\"\(request.file.fileName)\"",
            .cacheControl: "no-store",
            HTTPField.Name("X-Amble-Export-Through")!: String(through),
        ], body: body)
    }

    struct ExportItem: Sendable {
        var seq: Int64
        var participant: UUID
        var bytes: ByteBuffer
    }

    func exportPage(study: UUID, request: StudyExportRequest, after: Int64, through: Int64) async throws -> [ExportItem] {
        let kind = request.kind.rawValue
        let query: PostgresQuery = if let participant = request.participant {
            """
            SELECT i.seq, i.participant_id, i.bytes FROM items i
            WHERE i.participant_id = \(participant) AND i.kind = \(kind) AND i.seq > \(after) AND i.seq <= \(through)
            ORDER BY i.seq LIMIT \(StudyExportRequest.pageItems)
            """
        } else {
            """
            SELECT i.seq, i.participant_id, i.bytes FROM items i JOIN participants p ON p.id = i.participant_id
            WHERE p.study_id = \(study) AND i.kind = \(kind) AND i.seq > \(after) AND i.seq <= \(through)
            ORDER BY i.seq LIMIT \(StudyExportRequest.pageItems)
            """
        }
        var items: [ExportItem] = []
        for try await (seq, participant, bytes) in try await client.query(query, logger: logger).decode((Int64, UUID, ByteBuffer).self) {
            items.append(ExportItem(seq: seq, participant: participant, bytes: bytes))
        }
        return items
    }

    /// A stored session as the exporters take it: the server never learns the band's id, so
    /// `band_id` and `band_name` carry the participant's id, and `session_id` and
    /// `band_session_id` the item's number on the server.
    static func exportedSession(_ item: ExportItem) throws -> ExportedSession {
        let record = try SessionCoding.decode(Array(item.bytes.readableBytesView))
        let participant = item.participant.uuidString.lowercased()
        return ExportedSession(session: CompanionSession(id: item.seq, bandID: participant, bandName: participant,
                                                         bandSessionID: item.seq, summary: record.summary),
                               seconds: record.seconds)
    }

    /// The page cut where the participant changes (keeping the order the items arrived in).
    static func participantRuns(_ page: [ExportItem]) -> [[ExportItem]] {
        var runs: [[ExportItem]] = []
        for item in page {
            if let last = runs.last?.last, last.participant == item.participant {
                runs[runs.count - 1].append(item)
            } else {
                runs.append([item])
            }
        }
        return runs
    }

    /// One participant's answer sheets as the answers' CSV takes them: each sheet in the period
    /// the laptop sent with it, or, from older clients that send none, its own period
    /// `sheet:SEQ`. Items in the questionnaire's order.
    static func answersContext(_ page: [ExportItem], study: Study, fileText: String) -> StudyContext {
        var answers: [StudyAnswer] = []
        var submissions: [StudySubmission] = []
        for item in page {
            guard let sheet = try? JSONDecoder().decode(AnswerItem.self, from: Data(item.bytes.readableBytesView)) else { continue }
            let period = sheet.period ?? "sheet:\(item.seq)"
            let order = study.questionnaire(named: sheet.questionnaire)?.items.map(\.id) ?? []
            let keys = sheet.answers.keys.sorted { (order.firstIndex(of: $0) ?? .max, $0) < (order.firstIndex(of: $1) ?? .max, $1) }
            for key in keys {
                answers.append(StudyAnswer(questionnaire: sheet.questionnaire, period: period, item: key, value: sheet.answers[key]!,
                                           answeredUnixSeconds: sheet.answeredAt))
            }
            submissions.append(StudySubmission(questionnaire: sheet.questionnaire, period: period, submittedUnixSeconds: sheet.answeredAt, sessionID: nil))
        }
        let participant = page.first?.participant.uuidString.lowercased() ?? ""
        return StudyContext(enrollment: StudyEnrollment(id: 0, participantID: participant, studyName: study.name, fileName: "study.toml",
                                                        fileText: fileText, joinedUnixSeconds: 0, leftUnixSeconds: nil),
                            study: study, submissions: submissions, answers: answers, sessions: [])
    }
}
