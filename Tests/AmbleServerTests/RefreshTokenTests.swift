import AmbleServer
import AmbleStudyAPI
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct RefreshTokenTests {
    @Test func everyUseRotatesTheRefreshToken() async throws {
        try await ServerFixture.run { f in
            let joined = try await f.joined()
            var refresh = joined.refreshToken
            for _ in 0 ..< 3 {
                f.clock.advance(60)
                let response = try await f.post("/v1/token", TokenRequest(refreshToken: refresh))
                #expect(response.status == .ok)
                let tokens = try f.decode(TokenResponse.self, response)
                #expect(tokens.refreshToken != refresh)
                #expect(tokens.accessExpiresIn == AccessTokens.lifetimeSeconds)
                #expect(try await f.get("/v1/study", token: tokens.accessToken).status == .ok)
                refresh = tokens.refreshToken
            }
        }
    }

    /// A spent refresh token presented again once its successor was shown revokes the whole
    /// family: the newest refresh token and the access tokens issued so far stop working.
    @Test func aReusedRefreshTokenRevokesTheFamily() async throws {
        try await ServerFixture.run { f in
            let joined = try await f.joined()
            f.clock.advance(60)
            let rotated = try f.decode(TokenResponse.self, try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken)))
            f.clock.advance(60)
            let newest = try f.decode(TokenResponse.self, try await f.post("/v1/token", TokenRequest(refreshToken: rotated.refreshToken)))
            let reuse = try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken))
            #expect(reuse.status == .unauthorized)
            #expect(f.errorCode(reuse) == "token_reused")
            #expect(try await f.post("/v1/token", TokenRequest(refreshToken: newest.refreshToken)).status == .unauthorized)
            for access in [joined.accessToken, rotated.accessToken, newest.accessToken] {
                let study = try await f.get("/v1/study", token: access)
                #expect(study.status == .unauthorized)
                #expect(f.errorCode(study) == "revoked_token")
            }
            #expect(try await f.post("/v1/token", TokenRequest(refreshToken: "unknown")).status == .unauthorized)
        }
    }

    /// The answer of a rotation lost on the way (a cut): the spent token works once more, in
    /// place of the successor nobody has shown, which is revoked; a third showing revokes all.
    @Test func aLostRotationAnswerDoesNotLockTheLaptopOut() async throws {
        try await ServerFixture.run { f in
            let joined = try await f.joined()
            f.clock.advance(60)
            let lost = try f.decode(TokenResponse.self, try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken)))
            f.clock.advance(600)
            let again = try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken))
            #expect(again.status == .ok)
            let kept = try f.decode(TokenResponse.self, again)
            #expect(try await f.get("/v1/study", token: kept.accessToken).status == .ok)
            f.clock.advance(60)
            let next = try await f.post("/v1/token", TokenRequest(refreshToken: kept.refreshToken))
            #expect(next.status == .ok)
            let third = try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken))
            #expect(f.errorCode(third) == "token_reused")
            #expect(try await f.post("/v1/token", TokenRequest(refreshToken: lost.refreshToken)).status == .unauthorized)
        }
    }

    @Test func anAccessTokenExpiresAfterItsLifetime() async throws {
        try await ServerFixture.run { f in
            let joined = try await f.joined()
            f.clock.advance(Double(AccessTokens.lifetimeSeconds - 1))
            #expect(try await f.get("/v1/study", token: joined.accessToken).status == .ok)
            f.clock.advance(1)
            let expired = try await f.get("/v1/study", token: joined.accessToken)
            #expect(expired.status == .unauthorized)
            #expect(f.errorCode(expired) == "expired_token")
        }
    }
}
