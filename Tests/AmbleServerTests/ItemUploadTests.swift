import AmbleServer
import AmbleStudyAPI
import Foundation
import Hummingbird
import PostgresNIO
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct ItemUploadTests {
    /// Idempotent PUT: each row uploads under one id and expects a status and error code; only
    /// the first is stored, with its session summary.
    @Test func putIsIdempotentAndRefusesWhatItCannotKeep() async throws {
        try await ServerFixture.run { f in
            let joined = try await f.joined()
            let token = joined.accessToken
            let id = itemID()
            let walk = sessionBytes(start: f.clock.now + 600)
            let otherWalk = sessionBytes(start: f.clock.now + 600, steps: 2)
            let cases: [(String, String, [UInt8], String?, HTTPResponse.Status, String?)] = [
                ("new session", id, walk, nil, .created, nil),
                ("the same bytes again", id, walk, nil, .ok, nil),
                ("other bytes under the id", id, otherWalk, nil, .conflict, "conflict"),
                ("a damaged body", itemID(), walk, Digest.sha256Hex(otherWalk), .badRequest, "digest_mismatch"),
                ("not a session", itemID(), Array("hello".utf8), nil, .badRequest, "malformed_session"),
                ("a cut session", itemID(), Array(walk.prefix(walk.count / 2)), nil, .badRequest, "malformed_session"),
                ("a walk before consent", itemID(), sessionBytes(start: f.clock.now - 3600), nil, .unprocessableContent, "outside_consent"),
                ("a bad item id", "NOT-HEX", walk, nil, .badRequest, "bad_item_id"),
            ]
            for (name, id, bytes, digest, status, code) in cases {
                let response = try await f.put("session", id, bytes, token: token, digest: digest)
                #expect(response.status == status, "\(name)")
                #expect(f.errorCode(response) == code, "\(name)")
            }
            var stored: [(String, Int64, Double)] = []
            for try await row in try await f.database.query("""
                SELECT i.item_id, s.steps, s.mindful_seconds FROM items i JOIN sessions s USING (participant_id, item_id)
                """).decode((String, Int64, Double).self) { stored.append(row) }
            #expect(stored.count == 1)
            #expect(stored.first?.0 == id && stored.first?.1 == 60 && stored.first?.2 == 60)
        }
    }

    @Test func answersAndConsentEventsAreItemsToo() async throws {
        try await ServerFixture.run { f in
            let token = try await f.joined().accessToken
            let answer = try JSONEncoder().encode(AnswerItem(questionnaire: "evening", answeredAt: f.clock.now + 10, answers: ["calm": "5"]))
            #expect(try await f.put("answer", itemID(), Array(answer), token: token).status == .created)
            let consent = try JSONEncoder().encode(ConsentItem(event: .accepted, version: "2", sha256: f.consent.sha256, at: f.clock.now))
            #expect(try await f.put("consent", itemID(), Array(consent), token: token).status == .created)
            let bad = try await f.put("answer", itemID(), Array("{\"questionnaire\": 3}".utf8), token: token)
            #expect(bad.status == .badRequest && f.errorCode(bad) == "malformed_answer")
            #expect(try await f.put("photo", itemID(), [1], token: token).status == .notFound)
            #expect(try await f.put("answer", itemID(), Array(answer), token: "forged").status == .unauthorized)
        }
    }

    @Test func aBodyOverTheLimitIsRefusedUnstored() async throws {
        try await ServerFixture.run(configuration: { clock in .init(now: { clock.now }, maxItemBytes: 100, runsJobs: false) }) { f in
            let token = try await f.joined().accessToken
            let (big, small) = (sessionBytes(start: f.clock.now + 60, seconds: 3000), sessionBytes(start: f.clock.now + 60, seconds: 5))
            #expect(big.count > 100 && small.count <= 100)
            let response = try await f.put("session", itemID(), big, token: token)
            #expect(response.status == .contentTooLarge)
            #expect(f.errorCode(response) == "too_large")
            #expect(try await f.put("session", itemID(), small, token: token).status == .created)
        }
    }
}
