#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PostgresNIO

/// A study as the database keeps it, with its arms.
struct StudyRow: Sendable {
    var id: UUID
    var name: String
    var fileText: String
    var participantFileText: String
    var consentVersion: String
    var consentSHA256: String
    var enrolmentOpens: Double?
    var enrolmentCloses: Double?
    var deleteOnWithdrawal: Bool
    var codeExpiryDays: Int
    var arms: [StudyDefinition.Arm]

    /// The study, its row locked until the transaction ends (joins of one study are allocated one at a time).
    static func lock(_ id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> StudyRow {
        try await load(id, on: connection, logger: logger, forUpdate: true)
    }

    static func load(_ id: UUID, on connection: PostgresConnection, logger: Logger, forUpdate: Bool = false) async throws -> StudyRow {
        let query: PostgresQuery = forUpdate
            ? "SELECT name, study_file, participant_file, consent_version, consent_sha256, enrolment_opens, enrolment_closes, delete_on_withdrawal, code_expiry_days FROM studies WHERE id = \(id) FOR UPDATE"
            : "SELECT name, study_file, participant_file, consent_version, consent_sha256, enrolment_opens, enrolment_closes, delete_on_withdrawal, code_expiry_days FROM studies WHERE id = \(id)"
        var found: StudyRow?
        for try await (name, file, participantFile, version, sha, opens, closes, delete, expiry) in try await connection.query(query, logger: logger)
            .decode((String, String, String, String, String, Date?, Date?, Bool, Int).self) {
            found = StudyRow(id: id, name: name, fileText: file, participantFileText: participantFile, consentVersion: version, consentSHA256: sha,
                             enrolmentOpens: opens?.timeIntervalSince1970, enrolmentCloses: closes?.timeIntervalSince1970,
                             deleteOnWithdrawal: delete, codeExpiryDays: expiry, arms: [])
        }
        guard var study = found else { throw StoreError.noStudy(id.uuidString.lowercased()) }
        for try await (name, ratio, settings) in try await connection.query(
            "SELECT name, ratio, band_settings::text FROM arms WHERE study_id = \(id) ORDER BY position", logger: logger)
            .decode((String, Int, String).self) {
            let decoded = (try? JSONDecoder().decode([String: String].self, from: Data(settings.utf8))) ?? [:]
            study.arms.append(StudyDefinition.Arm(name: name, ratio: ratio, bandSettings: decoded))
        }
        return study
    }
}

/// What the administrative operations refuse, in words that say what to do.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    case noStudy(String)
    case noResearcher(String)
    case researcherExists(String)
    case invalid(String)

    public var description: String {
        switch self {
        case let .noStudy(id): "no study \(id) on this server; `amble-server admin study list` shows them"
        case let .noResearcher(name): "no researcher \(name); add one with `amble-server admin researcher add \(name)`"
        case let .researcherExists(name): "a researcher \(name) exists already; choose another name"
        case let .invalid(message): message
        }
    }
}
