#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import Hummingbird
import PostgresNIO

extension StudyServer {
    /// A new refresh token of `family` for `participant`, stored as its SHA-256.
    func issueRefreshToken(participant: UUID, family: UUID, now: Double, on connection: PostgresConnection) async throws -> String {
        let token = Secrets.newRefreshToken()
        try await connection.query("""
            INSERT INTO refresh_tokens (token_sha256, participant_id, family, issued_at)
            VALUES (\(ByteBuffer(bytes: Secrets.refreshTokenHash(token))), \(participant), \(family), \(date(now)))
            """, logger: logger)
        return token
    }

    /// Whether the token `hash` was rotated (not revoked) and the one issued at its rotation, the
    /// family's newest, has been neither used nor revoked since.
    private func successorUnused(of hash: ByteBuffer, family: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("""
            SELECT count(*) FROM refresh_tokens spent JOIN refresh_tokens next
              ON next.family = spent.family AND next.issued_at = spent.rotated_at
            WHERE spent.token_sha256 = \(hash) AND spent.revoked_at IS NULL
              AND next.rotated_at IS NULL AND next.revoked_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM refresh_tokens later
                              WHERE later.family = spent.family AND later.issued_at > spent.rotated_at)
            """, logger: logger)
        var count = 0
        for try await (n) in rows.decode(Int.self) { count = n }
        return count == 1
    }

    private enum Rotation: Sendable { case rotated(TokenResponse), reused, refused(ServerError) }

    /// Rotates a refresh token: the one given is spent and a new one of its family returned with
    /// an access token. A token already spent (or revoked) is a sign that it was copied: the
    /// whole family and every access token of the participant are revoked, and 401 answered;
    /// except the one spent token whose successor nobody has shown yet (its answer was lost),
    /// which is rotated again in the successor's place.
    func rotate(refreshToken: String) async throws -> TokenResponse {
        let now = self.now
        let hash = ByteBuffer(bytes: Secrets.refreshTokenHash(refreshToken))
        let outcome = try await transaction { connection -> Rotation in
            let rows = try await connection.query("""
                SELECT t.participant_id, t.family, t.rotated_at IS NOT NULL OR t.revoked_at IS NOT NULL, p.study_id, p.withdrawn_at IS NOT NULL
                FROM refresh_tokens t JOIN participants p ON p.id = t.participant_id
                WHERE t.token_sha256 = \(hash) FOR UPDATE OF t, p
                """, logger: logger)
            var found: (UUID, UUID, Bool, UUID, Bool)?
            for try await row in rows.decode((UUID, UUID, Bool, UUID, Bool).self) { found = row }
            guard let (participant, family, spent, study, withdrawn) = found else {
                return .refused(.unauthorized("invalid_token", "This refresh token is unknown here; join the study again."))
            }
            if withdrawn {
                return .refused(.unauthorized("revoked_token", "You have withdrawn from this study; its tokens no longer work."))
            }
            if spent, try await successorUnused(of: hash, family: family, on: connection) {
                // The answer that carried the successor never reached the laptop (a cut, a crash
                // before the store's write): nobody has shown the successor, so it is revoked and
                // a fresh pair issued, once. A copy used after the laptop's next rotation still
                // revokes the family below, as does the successor shown after this grace.
                try await connection.query(
                    "UPDATE refresh_tokens SET revoked_at = \(date(now)) WHERE family = \(family) AND rotated_at IS NULL AND revoked_at IS NULL",
                    logger: logger)
                let next = try await issueRefreshToken(participant: participant, family: family, now: now, on: connection)
                let access = try tokens.issue(participant: participant.uuidString, study: study.uuidString, now: Int(now))
                return .rotated(TokenResponse(accessToken: access, refreshToken: next, accessExpiresIn: AccessTokens.lifetimeSeconds))
            }
            if spent {
                try await connection.query(
                    "UPDATE refresh_tokens SET revoked_at = \(date(now)) WHERE family = \(family) AND revoked_at IS NULL", logger: logger)
                try await connection.query(
                    "UPDATE participants SET tokens_revoked_at = \(date(now)) WHERE id = \(participant)", logger: logger)
                return .reused
            }
            try await connection.query("UPDATE refresh_tokens SET rotated_at = \(date(now)) WHERE token_sha256 = \(hash)", logger: logger)
            let next = try await issueRefreshToken(participant: participant, family: family, now: now, on: connection)
            let access = try tokens.issue(participant: participant.uuidString, study: study.uuidString, now: Int(now))
            return .rotated(TokenResponse(accessToken: access, refreshToken: next, accessExpiresIn: AccessTokens.lifetimeSeconds))
        }
        switch outcome {
        case let .rotated(response): return response
        case let .refused(error): throw error
        case .reused:
            logger.warning("a spent refresh token was presented again: the participant's tokens are revoked")
            throw ServerError.unauthorized("token_reused", "This refresh token was used before, so it may have been copied: every token of this laptop is revoked. Join the study again with a new code from the study team.")
        }
    }
}
