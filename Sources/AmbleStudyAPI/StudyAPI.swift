#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// The study server's HTTP API, version 1 (docs/server.md, "API"): the JSON bodies both sides
/// exchange, with snake_case keys on the wire. Times are seconds since 1970 (UTC), durations
/// seconds.
public enum StudyAPI {
    /// The path prefix of every endpoint of this version.
    public static let pathPrefix = "/v1"
    /// The header that carries the lowercase hex SHA-256 of an item's body.
    public static let digestHeader = "X-Amble-SHA256"
    /// The header that names the study a request is meant for (its id, optional): the server
    /// refuses a token of another study with 403 `wrong_study`.
    public static let studyHeader = "X-Amble-Study"
}

/// What a participant uploads under `PUT /v1/items/{kind}/{item_id}`.
public enum ItemKind: String, Codable, Sendable, CaseIterable {
    /// The band's own session encoding (`SessionCoding`), `application/octet-stream`.
    case session
    /// A questionnaire's answer sheet (JSON, `AnswerItem`).
    case answer
    /// A consent event (JSON, `ConsentItem`).
    case consent
}

/// Limits the server enforces and the client respects.
public enum StudyAPILimits {
    /// Largest item body, bytes: a day-long session with raw samples compresses to well under
    /// this (the band's own cap on uncompressed session data is 16 MiB, `SessionCoding`).
    public static let maxItemBytes = 8 << 20
    /// Largest JSON request body other than items, bytes.
    public static let maxJSONBytes = 64 << 10
    /// An item id: 32 lowercase hex characters (128 random bits made on the laptop).
    public static let itemIDLength = 32
    /// A join code: 48 random bits, written as 10 base32 characters in two groups of five.
    public static let joinCodeBits = 48

    /// Whether `id` is a well-formed item id.
    public static func isItemID(_ id: some StringProtocol) -> Bool {
        id.utf8.count == itemIDLength && id.utf8.allSatisfy { (48 ... 57).contains($0) || (97 ... 102).contains($0) }
    }
}

/// SHA-256 as the API writes it: 64 lowercase hex characters.
public enum Digest {
    public static func sha256Hex(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(data: Array(bytes))
        return hex(hasher.finalize())
    }

    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// An error body: `{"error": "code", "message": "sentence saying what to do"}`.
public struct APIError: Codable, Sendable, Equatable, Error {
    public var error: String
    public var message: String
    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
}

/// The consent document a participant reads before joining.
public struct ConsentDocument: Codable, Sendable, Equatable {
    public var version: String
    public var sha256: String
    public var text: String
    public init(version: String, sha256: String, text: String) {
        self.version = version
        self.sha256 = sha256
        self.text = text
    }
}

/// `GET /v1/join/{code}`: the study a code leads to, before the participant accepts.
public struct JoinPreview: Codable, Sendable, Equatable {
    public var studyID: String
    public var studyName: String
    public var consent: ConsentDocument
    /// When enrolment closes (seconds since 1970), if the study file says.
    public var enrolmentCloses: Double?
    enum CodingKeys: String, CodingKey {
        case studyID = "study_id", studyName = "study_name", consent, enrolmentCloses = "enrolment_closes"
    }
    public init(studyID: String, studyName: String, consent: ConsentDocument, enrolmentCloses: Double?) {
        self.studyID = studyID
        self.studyName = studyName
        self.consent = consent
        self.enrolmentCloses = enrolmentCloses
    }
}

/// `POST /v1/join`: the participant accepts the consent document shown by `JoinPreview`.
public struct JoinRequest: Codable, Sendable, Equatable {
    public var code: String
    public var consentVersion: String
    public var consentSHA256: String
    /// When the participant accepted (seconds since 1970), as the laptop's clock said.
    public var acceptedAt: Double
    /// The values of the study's strata (`[allocation] strata`), such as `{"sex": "f"}`; a
    /// missing one counts as empty.
    public var strata: [String: String]?
    /// The participant's time zone, which the server's due rules count local days in: an IANA
    /// name (`Europe/Berlin`) or a fixed offset from UTC (`+02:00`, `-0530`, `UTC`); absent:
    /// UTC. Older clients do not send it.
    public var timeZone: String?
    enum CodingKeys: String, CodingKey {
        case code, consentVersion = "consent_version", consentSHA256 = "consent_sha256", acceptedAt = "accepted_at", strata,
             timeZone = "time_zone"
    }
    public init(code: String, consentVersion: String, consentSHA256: String, acceptedAt: Double, strata: [String: String]? = nil,
                timeZone: String? = nil) {
        self.code = code
        self.consentVersion = consentVersion
        self.consentSHA256 = consentSHA256
        self.acceptedAt = acceptedAt
        self.strata = strata
        self.timeZone = timeZone
    }
}

/// The answer to `POST /v1/join`. The arm's name is not in it (the participant is blind to it).
public struct JoinResponse: Codable, Sendable, Equatable {
    public var participantID: String
    public var studyID: String
    public var studyFile: String
    public var bandSettings: [String: String]
    public var refreshToken: String
    public var accessToken: String
    public var accessExpiresIn: Int
    enum CodingKeys: String, CodingKey {
        case participantID = "participant_id", studyID = "study_id", studyFile = "study_file",
             bandSettings = "band_settings", refreshToken = "refresh_token", accessToken = "access_token",
             accessExpiresIn = "access_expires_in"
    }
    public init(participantID: String, studyID: String, studyFile: String, bandSettings: [String: String],
                refreshToken: String, accessToken: String, accessExpiresIn: Int) {
        self.participantID = participantID
        self.studyID = studyID
        self.studyFile = studyFile
        self.bandSettings = bandSettings
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.accessExpiresIn = accessExpiresIn
    }
}

/// `POST /v1/token`.
public struct TokenRequest: Codable, Sendable, Equatable {
    public var refreshToken: String
    enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// The answer to `POST /v1/token`: a new access token and the refresh token that replaces the one sent.
public struct TokenResponse: Codable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var accessExpiresIn: Int
    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", accessExpiresIn = "access_expires_in"
    }
    public init(accessToken: String, refreshToken: String, accessExpiresIn: Int) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessExpiresIn = accessExpiresIn
    }
}

/// A questionnaire's state for the participant, as the due rules say.
public struct QuestionnaireState: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case due, completed, notOpen = "not_open", over }
    public var name: String
    public var state: State
    public init(name: String, state: State) {
        self.name = name
        self.state = state
    }
}

/// `GET /v1/study`.
public struct StudyResponse: Codable, Sendable, Equatable {
    public var studyFile: String
    public var bandSettings: [String: String]
    public var questionnaires: [QuestionnaireState]
    enum CodingKeys: String, CodingKey {
        case studyFile = "study_file", bandSettings = "band_settings", questionnaires
    }
    public init(studyFile: String, bandSettings: [String: String], questionnaires: [QuestionnaireState]) {
        self.studyFile = studyFile
        self.bandSettings = bandSettings
        self.questionnaires = questionnaires
    }
}

/// `POST /v1/withdraw`. `deleteData` nil: the study file's policy decides.
public struct WithdrawRequest: Codable, Sendable, Equatable {
    public var deleteData: Bool?
    enum CodingKeys: String, CodingKey { case deleteData = "delete_data" }
    public init(deleteData: Bool?) { self.deleteData = deleteData }
}

/// The answer to `POST /v1/withdraw`.
public struct WithdrawResponse: Codable, Sendable, Equatable {
    public var withdrawnAt: Double
    public var dataDeleted: Bool
    enum CodingKeys: String, CodingKey { case withdrawnAt = "withdrawn_at", dataDeleted = "data_deleted" }
    public init(withdrawnAt: Double, dataDeleted: Bool) {
        self.withdrawnAt = withdrawnAt
        self.dataDeleted = dataDeleted
    }
}

/// An `answer` item: one questionnaire's answer sheet, made on the laptop.
public struct AnswerItem: Codable, Sendable, Equatable {
    public var questionnaire: String
    /// When the sheet was completed (seconds since 1970).
    public var answeredAt: Double
    /// Item id to answer text, as `amble survey` stores it.
    public var answers: [String: String]
    /// The period of the study rules the sheet completes (`StudyRules`: `start`, `end`,
    /// `day:YYYY-MM-DD`, `before:since-start`, `before:since-ID`, `after:ID`), as the laptop
    /// queued it; absent from older clients.
    public var period: String?
    enum CodingKeys: String, CodingKey { case questionnaire, answeredAt = "answered_at", answers, period }
    public init(questionnaire: String, answeredAt: Double, answers: [String: String], period: String? = nil) {
        self.questionnaire = questionnaire
        self.answeredAt = answeredAt
        self.answers = answers
        self.period = period
    }
}

/// A `consent` item: a consent event recorded on the laptop (accepted, or withdrawn there first).
public struct ConsentItem: Codable, Sendable, Equatable {
    public enum Event: String, Codable, Sendable { case accepted, withdrawn }
    public var event: Event
    public var version: String
    public var sha256: String
    public var at: Double
    public init(event: Event, version: String, sha256: String, at: Double) {
        self.event = event
        self.version = version
        self.sha256 = sha256
        self.at = at
    }
}

/// The answer to a `PUT /v1/items/...` that stored or found the item.
public struct ItemReceipt: Codable, Sendable, Equatable {
    public var kind: ItemKind
    public var itemID: String
    public var sha256: String
    public var receivedAt: Double
    enum CodingKeys: String, CodingKey { case kind, itemID = "item_id", sha256, receivedAt = "received_at" }
    public init(kind: ItemKind, itemID: String, sha256: String, receivedAt: Double) {
        self.kind = kind
        self.itemID = itemID
        self.sha256 = sha256
        self.receivedAt = receivedAt
    }
}
