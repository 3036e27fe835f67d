import AmbleServer
import AmbleStudyAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct ItemBatchTests {
    func batch(_ f: ServerFixture, _ entries: [ItemBatch.Entry], token: String) async throws -> TestResponse {
        try await f.post("/v1/items", ItemBatch(items: entries), token: token)
    }

    static func entry(_ kind: String, _ id: String, _ bytes: [UInt8], sha256: String?? = .none) -> ItemBatch.Entry {
        ItemBatch.Entry(kind: kind, id: id, sha256: sha256 ?? Digest.sha256Hex(bytes), bytes: Data(bytes).base64EncodedString())
    }

    /// Each entry answers what PUT answers for it alone, in request order; what passed is
    /// stored once (an id twice in a batch is a retry), nothing else.
    @Test func eachEntryIsAnsweredAsPutWouldAnswerIt() async throws {
        try await ServerFixture.run { f in
            let token = try await f.joined().accessToken
            let (a, b) = (itemID(), itemID())
            let walk = sessionBytes(start: f.clock.now + 600)
            let other = sessionBytes(start: f.clock.now + 600, steps: 2)
            #expect(try await f.put("session", b, walk, token: token).status == .created)
            let answer = Array(try JSONEncoder().encode(AnswerItem(questionnaire: "evening", answeredAt: f.clock.now + 10, answers: ["calm": "4"])))
            let cases: [(ItemBatch.Entry, Int, String?)] = [
                (Self.entry("session", a, walk), 201, nil),
                (Self.entry("session", a, walk), 200, nil),
                (Self.entry("session", a, other), 409, "conflict"),
                (Self.entry("session", b, walk), 200, nil),
                (Self.entry("session", b, other), 409, "conflict"),
                (Self.entry("answer", itemID(), answer), 201, nil),
                (Self.entry("session", itemID(), walk, sha256: Digest.sha256Hex(other)), 400, "digest_mismatch"),
                (Self.entry("session", itemID(), walk, sha256: .some(nil)), 400, "missing_digest"),
                (Self.entry("session", itemID(), Array("hello".utf8)), 400, "malformed_session"),
                (Self.entry("session", itemID(), sessionBytes(start: f.clock.now - 3600)), 422, "outside_consent"),
                (Self.entry("session", "NOT-HEX", walk), 400, "bad_item_id"),
                (Self.entry("photo", itemID(), [1]), 404, "unknown_kind"),
            ]
            let response = try await batch(f, cases.map(\.0), token: token)
            #expect(response.status == .ok)
            let results = try f.decode(ItemBatchResults.self, response).results
            #expect(results.map(\.id) == cases.map(\.0.id))
            for (result, (entry, status, error)) in zip(results, cases) {
                #expect(result.status == status && result.error == error, "\(entry.kind) \(entry.id)")
            }
            #expect(String(buffer: response.body).contains("\"error\":null"))
            var stored: [String] = []
            for try await (kind, id) in try await f.database.query(
                "SELECT i.kind, i.item_id FROM item_keys k JOIN items i USING (participant_id, kind, item_id) ORDER BY i.seq").decode((String, String).self) {
                stored.append("\(kind) \(id)")
            }
            #expect(stored == ["session \(b)", "session \(a)", "answer \(cases[5].0.id)"])
        }
    }

    /// A malformed envelope or one over the limits is refused whole: nothing stored.
    @Test func aMalformedOrOversizedBatchStoresNothing() async throws {
        try await ServerFixture.run { f in
            let token = try await f.joined().accessToken
            let walk = Self.entry("session", itemID(), sessionBytes(start: f.clock.now + 600))
            var badBase64 = Self.entry("session", itemID(), sessionBytes(start: f.clock.now + 700))
            badBase64.bytes = "not base64!"
            let tooMany = (0 ... ItemBatch.maxItems).map { _ in Self.entry("answer", itemID(), [1]) }
            for (entries, status, code) in [([walk, badBase64], HTTPResponse.Status.badRequest, "malformed_body"),
                                            (tooMany, .contentTooLarge, "too_large")] {
                let response = try await batch(f, entries, token: token)
                #expect(response.status == status && f.errorCode(response) == code)
            }
            let notJSON = try await f.client.execute(uri: "/v1/items", method: .post, headers: [.authorization: "Bearer \(token)"],
                                                     body: ByteBuffer(string: "{\"items\": [{\"kind\": \"session\"}]}"))
            #expect(notJSON.status == .badRequest && f.errorCode(notJSON) == "malformed_body")
            #expect(try await batch(f, [walk], token: "forged").status == .unauthorized)
            var count = -1
            for try await n in try await f.database.query("SELECT count(*)::int FROM item_keys").decode(Int.self) { count = n }
            #expect(count == 0)
        }
    }

    /// An upload racing another request that holds the same new id uncommitted waits for it,
    /// then answers as a retry: 200 for the same bytes (PUT), 409 for others (batch), never an
    /// error, and the id stays stored once.
    @Test func anUploadRacingTheSameIdAnswersAsARetry() async throws {
        try await ServerFixture.run { f in
            let joined = try await f.joined()
            let participant = try #require(UUID(uuidString: joined.participantID))
            let walk = sessionBytes(start: f.clock.now + 600)
            for viaBatch in [false, true] {
                let id = itemID()
                try await f.database.withConnection { other in
                    try await other.query("BEGIN", logger: TestDatabase.logger)
                    try await other.query("""
                        INSERT INTO item_keys (participant_id, kind, item_id, sha256, received_at)
                        VALUES (\(participant), 'session', \(id), \(Digest.sha256Hex(walk)), now())
                        """, logger: TestDatabase.logger)
                    let upload = Task {
                        if !viaBatch { return Int(try await f.put("session", id, walk, token: joined.accessToken).status.code) }
                        let response = try await batch(f, [Self.entry("session", id, sessionBytes(start: f.clock.now + 9))], token: joined.accessToken)
                        return try f.decode(ItemBatchResults.self, response).results[0].status
                    }
                    var waiting = 0
                    while waiting == 0 {
                        for try await n in try await f.database.query("SELECT count(*)::int FROM pg_locks WHERE NOT granted").decode(Int.self) { waiting = n }
                    }
                    try await other.query("COMMIT", logger: TestDatabase.logger)
                    #expect(try await upload.value == (viaBatch ? 409 : 200))
                }
            }
            var keys = -1
            for try await n in try await f.database.query("SELECT count(*)::int FROM item_keys").decode(Int.self) { keys = n }
            #expect(keys == 2)
        }
    }
}
