import AmbleServer
import AmbleStudyAPI
import Foundation
import PostgresNIO
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct WithdrawalTests {
    func itemCount(_ f: ServerFixture) async throws -> Int {
        var count = 0
        for try await n in try await f.database.query("SELECT count(*)::int FROM items").decode(Int.self) { count = n }
        return count
    }

    /// Each row: the study's policy, what the participant asks, whether the data goes.
    @Test(arguments: [(false, nil, false), (true, nil, true), (false, true, true), (true, false, false)] as [(Bool, Bool?, Bool)])
    func withdrawalRevokesTokensAndDeletesOrKeepsAsSaid(policy: Bool, asked: Bool?, deleted: Bool) async throws {
        try await ServerFixture.run(ServerFixture.studyDefinition(onWithdrawal: policy ? "delete" : "keep")) { f in
            let joined = try await f.joined()
            #expect(try await f.put("session", itemID(), sessionBytes(start: f.clock.now + 60), token: joined.accessToken).status == .created)
            f.clock.advance(300)
            let response = try await f.post("/v1/withdraw", WithdrawRequest(deleteData: asked), token: joined.accessToken)
            #expect(response.status == .ok)
            #expect(try f.decode(WithdrawResponse.self, response) == WithdrawResponse(withdrawnAt: f.clock.now, dataDeleted: deleted))
            #expect(try await itemCount(f) == (deleted ? 0 : 1))
            let late = try await f.put("session", itemID(), sessionBytes(start: f.clock.now + 60), token: joined.accessToken)
            #expect(late.status == .unauthorized)
            #expect(try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken)).status == .unauthorized)
            #expect(try await itemCount(f) == (deleted ? 0 : 1))
        }
    }
}
