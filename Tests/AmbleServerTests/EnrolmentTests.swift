import AmbleServer
import AmbleStudyAPI
import Foundation
import PostgresNIO
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct EnrolmentTests {
    @Test func joinShowsConsentRecordsAcceptanceAndConcealsTheArm() async throws {
        try await ServerFixture.run { f in
            let code = try await f.codes(1)[0]
            for _ in 0 ..< 2 {   // looking does not use the code up
                let preview = try await f.get("/v1/join/\(code.lowercased())")
                #expect(preview.status == .ok)
                let shown = try f.decode(JoinPreview.self, preview)
                #expect(shown.studyName == "Mindful walking")
                #expect(shown.consent == f.consent)
            }
            f.clock.advance(30)
            let response = try await f.join(code)
            #expect(response.status == .created)
            let joined = try f.decode(JoinResponse.self, response)
            #expect(joined.studyID == f.study.uuidString.lowercased())
            #expect(joined.studyFile.contains("Mindful walking") && joined.studyFile.contains("evening"))
            #expect(!joined.studyFile.contains("seed") && !joined.studyFile.contains("allocation"), "the seed reached the participant")
            #expect(["firm", "silent"].contains(joined.bandSettings["alert_style"]))
            let text = String(buffer: response.body)
            #expect(!text.contains("\"walk\"") && !text.contains("control") && !text.contains("arm"), "the arm's name reached the participant: \(text)")

            let rows = try await f.database.query("""
                SELECT arm_name, consent_version, consent_sha256, consent_accepted_at, allocated_at FROM participants
                WHERE id = \(UUID(uuidString: joined.participantID)!)
                """).decode((String, String, String, Date, Date).self)
            var found = 0
            for try await (arm, version, sha, acceptedAt, allocatedAt) in rows {
                found += 1
                #expect(["walk", "control"].contains(arm))
                #expect(version == "2" && sha == f.consent.sha256)
                #expect(acceptedAt.timeIntervalSince1970 == f.clock.now)
                #expect(allocatedAt.timeIntervalSince1970 == f.clock.now)
            }
            #expect(found == 1)
        }
    }

    @Test func aConsentOtherThanTheStudysIsRefusedAndTheCodeKept() async throws {
        try await ServerFixture.run { f in
            let code = try await f.codes(1)[0]
            let stale = try await f.post("/v1/join", JoinRequest(code: code, consentVersion: "1", consentSHA256: String(repeating: "0", count: 64),
                                                                 acceptedAt: f.clock.now))
            #expect(stale.status == .conflict)
            #expect(f.errorCode(stale) == "consent_changed")
            #expect(try await f.join(code).status == .created)
        }
    }
}
