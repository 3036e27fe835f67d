import AmbleServer
import AmbleStudyAPI
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct StudyBoundaryTests {
    /// A laptop in two studies sends study B's token with study A's name: refused, nothing stored.
    @Test func aTokenOfAnotherStudyIsRefused() async throws {
        try await ServerFixture.run { f in
            let other = try await f.admin.createStudy(ServerFixture.studyDefinition(), owner: "ada")
            let code = try await f.admin.generateCodes(study: other, count: 1, expiresDays: 1, now: f.clock.now)[0]
            let inOther = try f.decode(JoinResponse.self, try await f.join(code))
            #expect(inOther.studyID == other.uuidString.lowercased())
            let studyHeader = HTTPField.Name(StudyAPI.studyHeader)!
            let refused = try await f.get("/v1/study", token: inOther.accessToken, headers: [studyHeader: f.study.uuidString])
            #expect(refused.status == .forbidden)
            #expect(f.errorCode(refused) == "wrong_study")
            #expect(try await f.get("/v1/study", token: inOther.accessToken, headers: [studyHeader: other.uuidString]).status == .ok)
        }
    }

    @Test func aTokenSignedWithAnotherKeyOrForgedIsRefused() async throws {
        try await ServerFixture.run { f in
            let joined = try await f.joined()
            let stranger = AccessTokens(key: Curve25519.Signing.PrivateKey())
            let foreign = try stranger.issue(participant: joined.participantID, study: joined.studyID, now: Int(f.clock.now))
            var parts = joined.accessToken.split(separator: ".").map(String.init)
            parts[0] = Base64URL.encode(Array("{\"alg\":\"none\"}".utf8))
            for token in [foreign, parts.joined(separator: "."), "a.b.c", String(repeating: "x", count: 3000)] {
                let response = try await f.get("/v1/study", token: token)
                #expect(response.status == .unauthorized)
                #expect(f.errorCode(response) == "invalid_token")
            }
            #expect(try await f.get("/v1/study").status == .unauthorized)
        }
    }

    @Test func aParticipantPastTheBurstIsToldToWait() async throws {
        try await ServerFixture.run(configuration: { clock in .init(now: { clock.now }, rateLimitBurst: 3, rateLimitPerSecond: 0.5, runsJobs: false) }) { f in
            let token = try await f.joined().accessToken
            for _ in 0 ..< 3 { #expect(try await f.get("/v1/study", token: token).status == .ok) }
            let limited = try await f.get("/v1/study", token: token)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "2")
            #expect(f.errorCode(limited) == "rate_limited")
            f.clock.advance(2)
            #expect(try await f.get("/v1/study", token: token).status == .ok)
        }
    }
}
