#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleModel
import AmbleStudyAPI
import HTTPTypes
import Hummingbird
import PostgresNIO

/// A researcher logged in through the web page.
struct AuthenticatedResearcher: Sendable, Equatable {
    var id: Int64
    var name: String
}

/// Researchers' web logins: a form's password checked against the stored PBKDF2 hash, then a
/// random token in a cookie (HttpOnly, SameSite=Strict, Secure unless the server is plain HTTP
/// on loopback) whose SHA-256 is kept in `researcher_sessions` with its expiry. Nothing of the
/// login lives in the server process, so any process of the study serves the next request.
enum ResearcherLogin {
    static let cookieName = "amble_researcher"
    /// How long a login lasts, seconds: a working day.
    static let lifetimeSeconds = 8 * 3600

    /// A hash to check a password against when the name is unknown, so that a wrong name takes
    /// as long to refuse as a wrong password (the name is not revealed by the time taken).
    static let decoy = PasswordHash(rounds: PasswordHash.defaultRounds, salt: Array(repeating: 0x5a, count: 16), hash: Array(repeating: 0, count: 32))

    struct Form: Decodable {
        var name: String
        var password: String
    }
}

extension StudyServer {
    /// The researcher whose name and password these are, or nil (either wrong; said the same way).
    func checkResearcher(name: String, password: String) async throws -> AuthenticatedResearcher? {
        // A researcher's name is 1-80 printable characters (`admin researcher add`); others are
        // refused before the database sees them (PostgreSQL refuses NUL in text).
        guard (1 ... 80).contains(name.count), printableText(name, maximum: 80) == name else {
            _ = ResearcherLogin.decoy.verifies(password)
            return nil
        }
        var found: (AuthenticatedResearcher, PasswordHash)?
        for try await (id, rounds, salt, hash) in try await researcherClient.query(
            "SELECT id, password_iterations, password_salt, password_hash FROM researchers WHERE name = \(name)", logger: logger)
            .decode((Int64, Int, ByteBuffer, ByteBuffer).self) {
            found = (AuthenticatedResearcher(id: id, name: name),
                     PasswordHash(rounds: rounds, salt: Array(salt.readableBytesView), hash: Array(hash.readableBytesView)))
        }
        guard let (researcher, hash) = found else {
            _ = ResearcherLogin.decoy.verifies(password)
            return nil
        }
        return hash.verifies(password) ? researcher : nil
    }

    /// Starts a login: stores the token's hash, returns the token for the cookie.
    func startResearcherSession(_ researcher: AuthenticatedResearcher) async throws -> String {
        let token = Secrets.newRefreshToken()
        let now = self.now
        try await researcherClient.query("""
            INSERT INTO researcher_sessions (token_sha256, researcher_id, created_at, expires_at)
            VALUES (\(ByteBuffer(bytes: Secrets.sha256(token))), \(researcher.id), \(date(now)), \(date(now + Double(ResearcherLogin.lifetimeSeconds))))
            """, logger: logger)
        // Expired logins of anyone are cleared now and then (a login is a rare event).
        try await researcherClient.query("DELETE FROM researcher_sessions WHERE expires_at <= \(date(now))", logger: logger)
        return token
    }

    /// The researcher whose unexpired login cookie the request carries, or nil.
    func researcher(_ request: Request) async throws -> AuthenticatedResearcher? {
        guard let token = request.cookies[ResearcherLogin.cookieName]?.value, Base64URL.decode(token)?.count == 32 else { return nil }
        for try await (id, name) in try await researcherClient.query("""
            SELECT r.id, r.name FROM researcher_sessions s JOIN researchers r ON r.id = s.researcher_id
            WHERE s.token_sha256 = \(ByteBuffer(bytes: Secrets.sha256(token))) AND s.expires_at > \(date(now))
            """, logger: logger).decode((Int64, String).self) {
            return AuthenticatedResearcher(id: id, name: name)
        }
        return nil
    }

    /// Ends the login the request carries (if any).
    func endResearcherSession(_ request: Request) async throws {
        guard let token = request.cookies[ResearcherLogin.cookieName]?.value else { return }
        try await researcherClient.query("DELETE FROM researcher_sessions WHERE token_sha256 = \(ByteBuffer(bytes: Secrets.sha256(token)))", logger: logger)
    }

    /// The login cookie carrying `token`; an empty token with no lifetime ends it.
    func loginCookie(_ token: String) -> Cookie {
        Cookie(name: ResearcherLogin.cookieName, value: token, maxAge: token.isEmpty ? 0 : ResearcherLogin.lifetimeSeconds,
               path: "/", secure: configuration.secureCookies, httpOnly: true, sameSite: .strict)
    }

    /// The study `id` names, when `researcher` owns it; 404 for another's study and for no
    /// study alike (a researcher learns nothing of studies that are not theirs).
    func ownedStudy(_ id: String, by researcher: AuthenticatedResearcher) async throws -> StudyRow {
        guard let uuid = UUID(uuidString: id) else { throw ServerError.noStudyPage }
        var owned = false
        for try await _ in try await researcherClient.query(
            "SELECT 1 FROM studies WHERE id = \(uuid) AND owner_id = \(researcher.id)", logger: logger).decode(Int.self) { owned = true }
        guard owned else { throw ServerError.noStudyPage }
        return try await researcherClient.withConnection { try await StudyRow.load(uuid, on: $0, logger: logger) }
    }

    /// Writes who exported or looked at what into `audit_log`.
    func audit(researcher: AuthenticatedResearcher, study: UUID, action: String, detail: [String: String]) async throws {
        let json = String(decoding: try JSONEncoder().encode(detail), as: UTF8.self)
        try await researcherClient.query("""
            INSERT INTO audit_log (at, researcher_id, study_id, action, detail) VALUES (\(date(now)), \(researcher.id), \(study), \(action), \(json)::jsonb)
            """, logger: logger)
    }
}

extension ServerError {
    static let noStudyPage = ServerError(.notFound, "unknown_study", "There is no study of yours with this id; /studies lists yours.")
    static let notLoggedIn = ServerError(.unauthorized, "not_logged_in", "Log in at /login first (the export takes the login's cookie).")
}
