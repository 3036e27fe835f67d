#if canImport(FoundationEssentials)
import AmbleModel
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import Logging
import PostgresNIO

/// The researcher side's operations (`amble-server admin ...`), each one transaction.
public struct Admin: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in try await Transaction.run(on: connection, logger: logger, body) }
    }

    /// Adds a researcher with a password (hashed with `PasswordHash`).
    @discardableResult
    public func addResearcher(name: String, password: String, rounds: Int = PasswordHash.defaultRounds) async throws -> Int64 {
        guard (1 ... 80).contains(name.count), printableText(name, maximum: 80) == name else {
            throw StoreError.invalid("a researcher's name is 1-80 printable characters; \(printableText(name)) is not")
        }
        guard password.count >= PasswordHash.minimumLength else {
            throw StoreError.invalid("the password is shorter than \(PasswordHash.minimumLength) characters; choose a longer one")
        }
        let hash = try PasswordHash.make(password, rounds: rounds)
        return try await transaction { connection in
            for try await _ in try await connection.query("SELECT 1 FROM researchers WHERE name = \(name)", logger: logger).decode(Int.self) {
                throw StoreError.researcherExists(name)
            }
            let rows = try await connection.query("""
                INSERT INTO researchers (name, password_kdf, password_iterations, password_salt, password_hash)
                VALUES (\(name), \(PasswordHash.kdf), \(hash.rounds), \(ByteBuffer(bytes: hash.salt)), \(ByteBuffer(bytes: hash.hash)))
                RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { return id }
            throw StoreError.invalid("the researcher was not stored")
        }
    }

    /// Whether `password` is the researcher's (for the web login).
    public func checkPassword(name: String, password: String) async throws -> Bool {
        let rows = try await client.query(
            "SELECT password_iterations, password_salt, password_hash FROM researchers WHERE name = \(name)", logger: logger)
        for try await (rounds, salt, hash) in rows.decode((Int, ByteBuffer, ByteBuffer).self) {
            return PasswordHash(rounds: rounds, salt: Array(salt.readableBytesView), hash: Array(hash.readableBytesView)).verifies(password)
        }
        return false
    }

    /// Creates a study owned by the researcher `owner`; returns its id.
    public func createStudy(_ study: StudyDefinition, owner: String) async throws -> UUID {
        guard !study.arms.isEmpty, Set(study.arms.map(\.name)).count == study.arms.count else {
            throw StoreError.invalid("a study needs at least one arm, each with its own name")
        }
        let id = UUID()
        let consent = study.consent
        try await transaction { connection in
            var ownerID: Int64?
            for try await found in try await connection.query("SELECT id FROM researchers WHERE name = \(owner)", logger: logger).decode(Int64.self) {
                ownerID = found
            }
            guard let ownerID else { throw StoreError.noResearcher(owner) }
            try await connection.query("""
                INSERT INTO studies (id, owner_id, name, study_file, participant_file, consent_version, consent_sha256, consent_text,
                                     enrolment_opens, enrolment_closes, code_expiry_days, delete_on_withdrawal)
                VALUES (\(id), \(ownerID), \(study.name), \(study.fileText), \(study.participantFileText), \(consent.version),
                        \(consent.sha256), \(consent.text), \(study.enrolmentOpens.map(date)), \(study.enrolmentCloses.map(date)),
                        \(study.codeExpiryDays), \(study.deleteOnWithdrawal))
                """, logger: logger)
            for (position, arm) in study.arms.enumerated() {
                let settings = String(decoding: try JSONEncoder().encode(arm.bandSettings), as: UTF8.self)
                try await connection.query("""
                    INSERT INTO arms (study_id, name, position, ratio, band_settings)
                    VALUES (\(id), \(arm.name), \(position), \(arm.ratio), \(settings)::jsonb)
                    """, logger: logger)
            }
            try await audit(connection, researcher: ownerID, study: id, action: "study create", detail: ["name": study.name])
        }
        return id
    }

    /// Makes `count` single-use join codes for `study`, valid for `expiresDays` days from `now`
    /// (the study file's `code_expiry_days` when nil); the codes are returned once and only
    /// their SHA-256 is stored.
    public func generateCodes(study: UUID, count: Int, expiresDays: Double?, now: Double) async throws -> [String] {
        guard (1 ... 100_000).contains(count) else { throw StoreError.invalid("--count: give 1 to 100000 codes at a time") }
        if let expiresDays, !(expiresDays > 0 && expiresDays <= 366) {
            throw StoreError.invalid("--expires-days: give more than 0 and at most 366 days")
        }
        let codes = (0 ..< count).map { _ in Secrets.newJoinCode() }
        try await transaction { connection in
            var studyDays: Int?
            for try await days in try await connection.query("SELECT code_expiry_days FROM studies WHERE id = \(study)", logger: logger).decode(Int.self) {
                studyDays = days
            }
            guard let studyDays else { throw StoreError.noStudy(study.uuidString.lowercased()) }
            let expires = date(now + (expiresDays ?? Double(studyDays)) * 86_400)
            for code in codes {
                let hash = ByteBuffer(bytes: Secrets.joinCodeHash(Secrets.normalizedJoinCode(code)!))
                try await connection.query("""
                    INSERT INTO join_codes (code_sha256, study_id, created_at, expires_at) VALUES (\(hash), \(study), \(date(now)), \(expires))
                    """, logger: logger)
            }
            try await audit(connection, researcher: nil, study: study, action: "codes generate", detail: ["count": String(count)])
        }
        return codes
    }

    func audit(_ connection: PostgresConnection, researcher: Int64?, study: UUID?, action: String, detail: [String: String]) async throws {
        let json = String(decoding: try JSONEncoder().encode(detail), as: UTF8.self)
        try await connection.query("""
            INSERT INTO audit_log (researcher_id, study_id, action, detail) VALUES (\(researcher), \(study), \(action), \(json)::jsonb)
            """, logger: logger)
    }
}
