@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import AmbleServer
import AmbleStudyAPI
import AmbleSync
import AmbleTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import Testing

/// `GET /studies/{id}/export` against the real server and database: AmbleCompanion's files of
/// the uploaded sessions, read in pages (more items than a page), resumable after an item's
/// number, logged in the audit table, and the Open mHealth file valid against the schemas.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct StudyExportTests {
    static let walks = 20   // more than a page (16)

    /// Two participants, `walks` walks between them in turn; the sessions as the exporters take
    /// them (item numbers 1... in upload order, the participant for the band).
    static func upload(_ server: ServerFixture) async throws -> [ExportedSession] {
        let people = [try await server.joined(), try await server.joined()]
        var sessions: [ExportedSession] = []
        for index in 0 ..< walks {
            let person = people[index % 2]
            let bytes = sessionBytes(start: server.clock.now + Double(index) * 3600, seconds: 60 + index, steps: 1 + index % 3)
            #expect(try await server.put("session", itemID(), bytes, token: person.accessToken).status == .created)
            let record = try SessionCoding.decode(bytes)
            let seq = Int64(index + 1)
            sessions.append(ExportedSession(session: CompanionSession(id: seq, bandID: person.participantID, bandName: person.participantID,
                                                                      bandSessionID: seq, summary: record.summary), seconds: record.seconds))
        }
        return sessions
    }

    @Test func exportsAreTheCompanionsFilesInPagesAndResumable() async throws {
        try await ServerFixture.run { server in
            let sessions = try await Self.upload(server)
            let cookie = try await server.loggedIn()
            let base = "/studies/\(server.study.uuidString.lowercased())/export"
            var notes: [String] = []
            let csv = ExportFormat.csv.files(sessions, notes: &notes)
            let omh = ExportFormat.openmhealth.files(sessions, notes: &notes)
            for (query, expected) in [("format=csv", csv[0]), ("format=csv&table=seconds", csv[1]), ("format=openmhealth", omh[0])] {
                let response = try await server.page("\(base)?\(query)", cookie: cookie)
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("X-Amble-Export-Through")!] == String(Self.walks))
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"\(expected.name)\"")
                #expect(Array(response.body.readableBytesView) == expected.bytes, "\(query)")
            }
            // Resumed after item 13, through 20: the items 14 to 20, even after more arrived.
            let joined = try await server.joined()
            #expect(try await server.put("session", itemID(), sessionBytes(start: server.clock.now), token: joined.accessToken).status == .created)
            let rest = Array(sessions[13...])
            let resumed = try await server.page("\(base)?format=csv&after=13&through=20", cookie: cookie)
            #expect(Array(resumed.body.readableBytesView) == ExportFormat.csv.files(rest, notes: &notes)[0].bytes)
            // One participant's.
            let first = sessions[0].session.bandID
            let mine = try await server.page("\(base)?format=openmhealth&participant=\(first)&through=20", cookie: cookie)
            let theirs = sessions.filter { $0.session.bandID == first }
            #expect(Array(mine.body.readableBytesView) == ExportFormat.openmhealth.files(theirs, notes: &notes)[0].bytes)
            // Every export is in the audit log: who, when, what.
            var logged: [String] = []
            for try await (who, detail) in try await server.database.query(
                "SELECT researcher_id, detail::text FROM audit_log WHERE action = 'export' ORDER BY id", logger: TestDatabase.logger)
                .decode((Int64?, String).self) {
                #expect(who != nil)
                logged.append(detail)
            }
            #expect(logged.count == 5)
            #expect(logged[3].contains("\"after\": \"13\"") && logged[3].contains("amble-sessions.csv"))
            #expect(logged[4].contains(first))
        }
    }

    @Test(.enabled(if: StudyExportTests.python != nil, "needs python3 with jsonschema (scripts/setup python3-jsonschema)"))
    func theOpenMHealthExportIsValidAgainstTheSchemas() async throws {
        try await ServerFixture.run { server in
            _ = try await Self.upload(server)
            let cookie = try await server.loggedIn()
            let response = try await server.page("/studies/\(server.study.uuidString.lowercased())/export?format=openmhealth", cookie: cookie)
            let path = NSTemporaryDirectory() + "amble-server-\(UUID().uuidString).json"
            try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let (status, output) = try runProgram(Self.python!, [repositoryRoot.appendingPathComponent("scripts/check-openmhealth").path, path])
            #expect(status == 0, "\(output.split(separator: "\n").filter { !$0.hasPrefix("ok") }.prefix(20).joined(separator: "\n"))")
            // Per walk: a step-count point per started minute and one physical activity.
            let minutes = (0 ..< Self.walks).reduce(0) { $0 + (60 + $1 + 59) / 60 }
            #expect(output.split(separator: "\n").filter { $0.hasPrefix("ok") }.count == minutes + Self.walks)
        }
    }

    @Test func answersAreExportedWithTheirQuestions() async throws {
        try await ServerFixture.run { server in
            let person = try await server.joined()
            try await server.uploadAnswers(person, questionnaire: "evening", at: server.clock.now + 60, answers: ["calm": "4"])
            try await server.uploadAnswers(person, questionnaire: "evening", at: server.clock.now + 90_000, answers: ["calm": "2"], period: "day:2026-02-26")
            let cookie = try await server.loggedIn()
            let response = try await server.page("/studies/\(server.study.uuidString.lowercased())/export?format=csv&table=answers", cookie: cookie)
            let lines = server.text(response).split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            #expect(lines[0].hasPrefix("participant_id,study,questionnaire,due,period,item,"))
            // A sheet of an older client has its own period; one sent with its period keeps it.
            #expect(lines[1].hasPrefix("\(person.participantID),Mindful walking,evening,daily,sheet:1,calm,likert,How calm was your day?,4,"))
            #expect(lines[2].hasPrefix("\(person.participantID),Mindful walking,evening,daily,day:2026-02-26,calm,likert,How calm was your day?,2,"))
        }
    }

    @Test func badExportRequestsSayWhatToGive() async throws {
        try await ServerFixture.run { server in
            let cookie = try await server.loggedIn()
            let base = "/studies/\(server.study.uuidString.lowercased())/export"
            // A study whose stored file no longer reads as a study file (its questionnaires unknown).
            var old = ServerFixture.studyDefinition()
            old.fileText = "name = \"Old\"\n"
            let unreadable = "/studies/\(try await server.admin.createStudy(old, owner: "ada").uuidString.lowercased())/export"
            for (query, status, code) in [("format=xml", 400, "bad_format"), ("format=csv&table=walks", 400, "bad_table"),
                                          ("format=csv&after=-1", 400, "bad_after"), ("format=csv&participant=P01", 400, "bad_participant"),
                                          ("format=csv&participant=\(UUID().uuidString)", 404, "unknown_participant"),
                                          ("format=csv&table=answers", 409, "study_file_unreadable")] {
                let response = try await server.page("\(query.hasSuffix("answers") ? unreadable : base)?\(query)", cookie: cookie)
                #expect(response.status.code == status, "\(query)")
                #expect(server.errorCode(response) == code, "\(query)")
            }
        }
    }

    static let python = pythonImporting("jsonschema")
}
