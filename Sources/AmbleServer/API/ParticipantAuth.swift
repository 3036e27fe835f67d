#if canImport(FoundationEssentials)
import AmbleModel
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import HTTPTypes
import Hummingbird
import PostgresNIO

/// The participant behind a request's access token, as the database has them now.
struct AuthenticatedParticipant: Sendable {
    var id: UUID
    var studyID: UUID
    var armName: String
    var consentAcceptedAt: Double
    var withdrawnAt: Double?
}

extension StudyServer {
    /// The header a client may send to say which study it means; a token of another study is
    /// then refused with 403 (a laptop in two studies must not file one's data under the other).
    static let studyHeader = HTTPField.Name(StudyAPI.studyHeader)!

    /// Checks the bearer token (signature, expiry, revocation, study) and the participant's rate.
    func authenticate(_ request: Request) async throws -> AuthenticatedParticipant {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw ServerError.unauthorized("missing_token", "Send the access token as `Authorization: Bearer TOKEN`; get one from POST /v1/token.")
        }
        let now = self.now
        let claims: AccessTokens.Claims
        do {
            claims = try tokens.verify(header.dropFirst("Bearer ".count), now: Int(now))
        } catch .expired {
            throw ServerError.unauthorized("expired_token", "The access token has expired; get a new one from POST /v1/token with the refresh token.")
        } catch {
            throw ServerError.unauthorized("invalid_token", "The access token is not one this server issued; join again or refresh the token.")
        }
        guard let participantID = UUID(uuidString: claims.sub), let tokenStudy = UUID(uuidString: claims.aud) else {
            throw ServerError.unauthorized("invalid_token", "The access token names no participant; join again.")
        }
        if let named = request.headers[Self.studyHeader], UUID(uuidString: named) != tokenStudy {
            throw ServerError(.forbidden, "wrong_study", "This access token belongs to another study than \(printableText(named)); use the token of that study.")
        }
        let rows = try await client.query("""
            SELECT study_id, arm_name, consent_accepted_at, tokens_revoked_at, withdrawn_at
            FROM participants WHERE id = \(participantID)
            """, logger: logger)
        guard let (studyID, arm, consentAt, revokedAt, withdrawnAt) = try await rows.decode((UUID, String, Date, Date?, Date?).self).first(where: { _ in true }) else {
            throw ServerError.unauthorized("invalid_token", "The participant of this token is not enrolled here; join again.")
        }
        guard studyID == tokenStudy else {
            throw ServerError(.forbidden, "wrong_study", "This access token belongs to another study.")
        }
        if let revokedAt, Double(claims.iat) <= revokedAt.timeIntervalSince1970 {
            throw ServerError.unauthorized("revoked_token", withdrawnAt != nil
                ? "You have withdrawn from this study; the server takes no more data from this laptop."
                : "This laptop's tokens were revoked (a refresh token was used twice); join the study again with a new code.")
        }
        if let wait = rateLimiter.take(participantID.uuidString, now: now) {
            throw ServerError(.tooManyRequests, "rate_limited", "Too many requests from this participant; try again in \(wait) s.", retryAfter: wait)
        }
        return AuthenticatedParticipant(id: participantID, studyID: studyID, armName: arm,
                                        consentAcceptedAt: consentAt.timeIntervalSince1970,
                                        withdrawnAt: withdrawnAt?.timeIntervalSince1970)
    }
}
