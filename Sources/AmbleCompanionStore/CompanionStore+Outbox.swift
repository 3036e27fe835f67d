import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the laptop sends a study server: a session as the band encoded it, an answer sheet,
/// a consent event.
public enum OutboxKind: String, CaseIterable, Sendable {
    case session, answer, consent
}

/// An item of the outbox: made on the laptop with its own id, sent by an idempotent PUT, and
/// kept until the server acknowledged it (`acknowledgedUnixSeconds`).
public struct OutboxItem: Equatable, Sendable {
    /// 32 lowercase hex digits, made on the laptop from a CSPRNG; the item's name on the server.
    public var itemID: String
    public var kind: OutboxKind
    /// Exactly the bytes sent (a session: the band's own encoding, as the band sent it).
    public var body: [UInt8]
    /// SHA-256 of `body`, 64 lowercase hex digits (the `X-Amble-SHA256` header).
    public var sha256: String
    /// The session's band and its id for it (sessions only).
    public var bandID: String?
    public var bandSessionID: Int64?
    /// When it was queued, seconds since 1970.
    public var createdUnixSeconds: Double
    /// Uploads tried and not acknowledged.
    public var attempts: Int
    /// Not tried before this time (seconds since 1970): the backoff after a failed try.
    public var nextAttemptUnixSeconds: Double
    /// Why the last try failed, in words.
    public var lastError: String?
    /// Set when the server refused it for good (`conflict`, `outside_consent`, ...): it is no
    /// longer tried by itself, and `amble study status` shows it.
    public var held: String?
    /// When the server acknowledged it (200 or 201), seconds since 1970; nil while waiting.
    public var acknowledgedUnixSeconds: Double?

    public init(itemID: String, kind: OutboxKind, body: [UInt8], sha256: String, bandID: String? = nil, bandSessionID: Int64? = nil,
                createdUnixSeconds: Double, attempts: Int = 0, nextAttemptUnixSeconds: Double? = nil, lastError: String? = nil,
                held: String? = nil, acknowledgedUnixSeconds: Double? = nil) {
        self.itemID = itemID
        self.kind = kind
        self.body = body
        self.sha256 = sha256
        self.bandID = bandID
        self.bandSessionID = bandSessionID
        self.createdUnixSeconds = createdUnixSeconds
        self.attempts = attempts
        self.nextAttemptUnixSeconds = nextAttemptUnixSeconds ?? createdUnixSeconds
        self.lastError = lastError
        self.held = held
        self.acknowledgedUnixSeconds = acknowledgedUnixSeconds
    }

    /// Whether `text` is an item id: 32 lowercase hex digits.
    public static func isItemID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30 ... 0x39).contains($0) || (0x61 ... 0x66).contains($0) }
    }
}

/// What an item queued for a new session needs besides the session: its id and digest, made
/// by the caller (the store has no CSPRNG of its own nor SHA-256).
public struct OutboxSessionItem: Equatable, Sendable {
    public var itemID: String
    public var body: [UInt8]
    public var sha256: String

    public init(itemID: String, body: [UInt8], sha256: String) {
        self.itemID = itemID
        self.body = body
        self.sha256 = sha256
    }
}

/// The study server this laptop joined (`amble study join https://HOST:PORT --code CODE`).
public struct StudyServerEnrollment: Equatable, Sendable {
    /// `https://HOST:PORT` (or `http://` on a loopback host), without a path.
    public var baseURL: String
    /// SHA-256 of the server's certificate (DER), 64 lowercase hex digits; nil over plain http.
    public var fingerprint: String?
    /// The server's ids for the participant and the study.
    public var participantID: String
    public var studyID: String
    /// The consent document accepted: its version and SHA-256, and when.
    public var consentVersion: String
    public var consentSHA256: String
    public var acceptedUnixSeconds: Double
    /// The arm's band settings (`BandSetting` keys), applied to each band at its next sync.
    public var bandSettings: [String: String]
    /// The rotating refresh token (nil once withdrawn), and the short-lived access token.
    public var refreshToken: String?
    public var accessToken: String?
    /// When the access token expires, seconds since 1970 (the laptop's clock).
    public var accessExpiresUnixSeconds: Double?
    /// When an upload last went through, seconds since 1970.
    public var lastUploadUnixSeconds: Double?
    /// When the participant withdrew (`amble study withdraw`), seconds since 1970.
    public var withdrawnUnixSeconds: Double?

    public init(baseURL: String, fingerprint: String?, participantID: String, studyID: String, consentVersion: String, consentSHA256: String,
                acceptedUnixSeconds: Double, bandSettings: [String: String], refreshToken: String?, accessToken: String?,
                accessExpiresUnixSeconds: Double?, lastUploadUnixSeconds: Double? = nil, withdrawnUnixSeconds: Double? = nil) {
        self.baseURL = baseURL
        self.fingerprint = fingerprint
        self.participantID = participantID
        self.studyID = studyID
        self.consentVersion = consentVersion
        self.consentSHA256 = consentSHA256
        self.acceptedUnixSeconds = acceptedUnixSeconds
        self.bandSettings = bandSettings
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.accessExpiresUnixSeconds = accessExpiresUnixSeconds
        self.lastUploadUnixSeconds = lastUploadUnixSeconds
        self.withdrawnUnixSeconds = withdrawnUnixSeconds
    }
}

/// What is waiting in the outbox, for `amble study status`.
public struct OutboxSummary: Equatable, Sendable {
    /// Items not acknowledged yet, per kind (held ones included).
    public var waiting: [OutboxKind: Int]
    /// Items the server refused for good, per reason (`conflict`, `outside_consent`, ...).
    public var held: [String: Int]
    /// When the oldest waiting item was queued.
    public var oldestWaitingUnixSeconds: Double?
    /// The last error of the most recently tried waiting item.
    public var lastError: String?
    public var acknowledged: Int
}

extension CompanionStore {
    /// The "study-server" migration: the study server joined and the outbox of items for it.
    /// Registered after "study-leave" (CompanionStore.migrator); its SQL is frozen once shipped.
    static func registerOutboxMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("study-server") { db in
            try db.execute(sql: """
                CREATE TABLE "study_server" (
                  "id" INTEGER PRIMARY KEY CHECK ("id" = 1),
                  "enrollment_id" INTEGER NOT NULL REFERENCES "study_enrollment"("id") ON DELETE CASCADE,
                  "base_url" TEXT NOT NULL,
                  "fingerprint" TEXT CHECK (length("fingerprint") = 64),
                  "participant_id" TEXT NOT NULL,
                  "study_id" TEXT NOT NULL,
                  "consent_version" TEXT NOT NULL,
                  "consent_sha256" TEXT NOT NULL,
                  "accepted_unix" DOUBLE NOT NULL,
                  "band_settings" TEXT NOT NULL,
                  "refresh_token" TEXT,
                  "access_token" TEXT,
                  "access_expires_unix" DOUBLE,
                  "last_upload_unix" DOUBLE,
                  "withdrawn_unix" DOUBLE);
                CREATE TABLE "study_band_settings_applied" (
                  "band_id" TEXT PRIMARY KEY NOT NULL REFERENCES "band"("id") ON DELETE CASCADE,
                  "band_settings" TEXT NOT NULL,
                  "applied_unix" DOUBLE NOT NULL);
                CREATE TABLE "outbox" (
                  "item_id" TEXT PRIMARY KEY NOT NULL CHECK (length("item_id") = 32 AND "item_id" NOT GLOB '*[^0-9a-f]*'),
                  "kind" TEXT NOT NULL CHECK ("kind" IN ('session', 'answer', 'consent')),
                  "body" BLOB NOT NULL,
                  "sha256" TEXT NOT NULL CHECK (length("sha256") = 64),
                  "band_id" TEXT,
                  "band_session_id" INTEGER,
                  "created_unix" DOUBLE NOT NULL,
                  "attempts" INTEGER NOT NULL DEFAULT 0 CHECK ("attempts" >= 0),
                  "next_attempt_unix" DOUBLE NOT NULL,
                  "last_error" TEXT,
                  "held" TEXT,
                  "acknowledged_unix" DOUBLE,
                  CHECK (("kind" = 'session') = ("band_id" IS NOT NULL AND "band_session_id" IS NOT NULL)),
                  UNIQUE ("band_id", "band_session_id"));
                CREATE INDEX "outbox_waiting" ON "outbox"("acknowledged_unix", "next_attempt_unix");
                """)
        }
    }

    // MARK: The study server

    /// Records a study joined on a server: its study file joins as `joinStudy` does (the
    /// server's participant id as the participant), then the server, tokens and band settings
    /// are kept, and the consent event is queued, all in one transaction.
    @discardableResult
    public func joinStudyServer(_ server: StudyServerEnrollment, studyName: String, fileText: String, consentEvent: OutboxItem) throws -> StudyEnrollment {
        let participant = String(server.participantID.prefix(32))
        return try writer.write { db in
            let enrollment = try Self.join(db, participantID: participant, studyName: studyName, fileName: server.baseURL, fileText: fileText,
                                           nowUnixSeconds: server.acceptedUnixSeconds)
            try db.execute(sql: #"DELETE FROM "study_server""#)
            try db.execute(sql: """
                INSERT INTO "study_server" ("id", "enrollment_id", "base_url", "fingerprint", "participant_id", "study_id", "consent_version",
                  "consent_sha256", "accepted_unix", "band_settings", "refresh_token", "access_token", "access_expires_unix")
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [enrollment.id, server.baseURL, server.fingerprint, server.participantID, server.studyID, server.consentVersion,
                                 server.consentSHA256, server.acceptedUnixSeconds, Self.settingsText(server.bandSettings),
                                 server.refreshToken, server.accessToken, server.accessExpiresUnixSeconds])
            try Self.enqueue(db, consentEvent)
            return enrollment
        }
    }

    /// The study server joined here, if any (also once withdrawn: `withdrawnUnixSeconds`).
    public func studyServer() throws -> StudyServerEnrollment? {
        try writer.read(Self.studyServer)
    }

    /// Keeps the tokens `/v1/token` gave (the refresh token is rotated on every use).
    public func saveStudyTokens(refreshToken: String, accessToken: String, accessExpiresUnixSeconds: Double) throws {
        try writer.write { db in
            try db.execute(sql: """
                UPDATE "study_server" SET "refresh_token" = ?, "access_token" = ?, "access_expires_unix" = ? WHERE "withdrawn_unix" IS NULL
                """, arguments: [refreshToken, accessToken, accessExpiresUnixSeconds])
        }
    }

    /// The participant withdrew: the tokens are forgotten, the items not sent yet are dropped
    /// (returned, to say what was dropped), and the study is left (`leaveStudy`).
    @discardableResult
    public func withdrawFromStudyServer(nowUnixSeconds: Double) throws -> [OutboxKind: Int] {
        try writer.write { db in
            let dropped = try Self.waitingCounts(db)
            try db.execute(sql: #"DELETE FROM "outbox" WHERE "acknowledged_unix" IS NULL"#)
            try db.execute(sql: """
                UPDATE "study_server" SET "refresh_token" = NULL, "access_token" = NULL, "access_expires_unix" = NULL,
                  "withdrawn_unix" = coalesce("withdrawn_unix", ?)
                """, arguments: [nowUnixSeconds])
            try db.execute(sql: #"UPDATE "study_enrollment" SET "left_unix" = coalesce("left_unix", ?)"#, arguments: [nowUnixSeconds])
            return dropped
        }
    }

    /// The arm's band settings, when they differ from those last applied to `bandID` (nil:
    /// nothing to apply: no server study, withdrawn, or applied already).
    public func bandSettingsToApply(bandID: String) throws -> [String: String]? {
        try writer.read { db in
            guard let server = try Self.studyServer(db), server.withdrawnUnixSeconds == nil, !server.bandSettings.isEmpty else { return nil }
            let applied = try String.fetchOne(db, sql: #"SELECT "band_settings" FROM "study_band_settings_applied" WHERE "band_id" = ?"#,
                                              arguments: [bandID])
            return applied == Self.settingsText(server.bandSettings) ? nil : server.bandSettings
        }
    }

    /// Records that `settings` were applied to `bandID`: the next sync does not send them again.
    public func markBandSettingsApplied(bandID: String, _ settings: [String: String], nowUnixSeconds: Double) throws {
        try writer.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO "study_band_settings_applied" ("band_id", "band_settings", "applied_unix") VALUES (?, ?, ?)
                """, arguments: [bandID, Self.settingsText(settings), nowUnixSeconds])
        }
    }

    // MARK: The outbox

    /// Queues an item; one already there with the same id, or for the same band session, is
    /// left as it is (only a uniqueness conflict is passed over: a malformed id or digest throws).
    /// Returns whether it was added.
    @discardableResult
    public func enqueue(_ item: OutboxItem) throws -> Bool {
        try writer.write { db in try Self.enqueue(db, item) }
    }

    /// The items not acknowledged and not held whose backoff is over at `nowUnixSeconds`
    /// (all waiting ones, held included, with `includeHeld`), oldest first.
    public func outboxItemsDue(nowUnixSeconds: Double, includeHeld: Bool = false, limit: Int = 1000) throws -> [OutboxItem] {
        try writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM "outbox" WHERE "acknowledged_unix" IS NULL AND "next_attempt_unix" <= ? AND (? OR "held" IS NULL)
                ORDER BY "created_unix", rowid LIMIT ?
                """, arguments: [nowUnixSeconds, includeHeld, limit]).map(Self.outboxItem)
        }
    }

    /// Every item, oldest first (tests and `amble study status`).
    public func outboxItems() throws -> [OutboxItem] {
        try writer.read { db in
            try Row.fetchAll(db, sql: #"SELECT * FROM "outbox" ORDER BY "created_unix", rowid"#).map(Self.outboxItem)
        }
    }

    /// The server acknowledged the item (200 or 201): it leaves the outbox.
    public func acknowledgeOutboxItem(_ itemID: String, nowUnixSeconds: Double) throws {
        try writer.write { db in
            try db.execute(sql: #"UPDATE "outbox" SET "acknowledged_unix" = coalesce("acknowledged_unix", ?), "held" = NULL WHERE "item_id" = ?"#,
                           arguments: [nowUnixSeconds, itemID])
            try db.execute(sql: #"UPDATE "study_server" SET "last_upload_unix" = ?"#, arguments: [nowUnixSeconds])
        }
    }

    /// A try failed: one more attempt, the error, and when to try again (`held` set: not again
    /// by itself).
    public func recordOutboxFailure(_ itemID: String, error: String, nextAttemptUnixSeconds: Double, held: String?) throws {
        try writer.write { db in
            try db.execute(sql: """
                UPDATE "outbox" SET "attempts" = "attempts" + 1, "last_error" = ?, "next_attempt_unix" = ?, "held" = ?
                WHERE "item_id" = ? AND "acknowledged_unix" IS NULL
                """, arguments: [error, nextAttemptUnixSeconds, held, itemID])
        }
    }

    /// What waits in the outbox.
    public func outboxSummary() throws -> OutboxSummary {
        try writer.read { db in
            let held = try Row.fetchAll(db, sql: """
                SELECT "held", COUNT(*) FROM "outbox" WHERE "acknowledged_unix" IS NULL AND "held" IS NOT NULL GROUP BY "held"
                """).map { (row: Row) -> (String, Int) in (row[0], row[1]) }
            let oldest = try Double.fetchOne(db, sql: #"SELECT min("created_unix") FROM "outbox" WHERE "acknowledged_unix" IS NULL"#)
            let lastError = try String.fetchOne(db, sql: """
                SELECT "last_error" FROM "outbox" WHERE "acknowledged_unix" IS NULL AND "last_error" IS NOT NULL
                ORDER BY "attempts" > 0 DESC, "next_attempt_unix" DESC LIMIT 1
                """)
            let acknowledged = try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "outbox" WHERE "acknowledged_unix" IS NOT NULL"#) ?? 0
            return OutboxSummary(waiting: try Self.waitingCounts(db), held: Dictionary(held, uniquingKeysWith: +),
                                 oldestWaitingUnixSeconds: oldest, lastError: lastError, acknowledged: acknowledged)
        }
    }

    // MARK: Helpers

    /// A new session of a band is queued in the transaction that stores it, when a server
    /// study is joined here, not withdrawn, and the session started after consent.
    static func enqueueSession(_ db: Database, bandID: String, bandSessionID: Int64, startUnixSeconds: Double,
                               item: OutboxSessionItem?, nowUnixSeconds: Double) throws {
        guard let item, let server = try studyServer(db), server.withdrawnUnixSeconds == nil,
              startUnixSeconds >= server.acceptedUnixSeconds else { return }
        try enqueue(db, OutboxItem(itemID: item.itemID, kind: .session, body: item.body, sha256: item.sha256, bandID: bandID,
                                   bandSessionID: bandSessionID, createdUnixSeconds: nowUnixSeconds))
    }

    /// Whether answers submitted now go to a study server.
    static func queuesToServer(_ db: Database) throws -> Bool {
        guard let server = try studyServer(db) else { return false }
        return server.withdrawnUnixSeconds == nil
    }

    @discardableResult
    static func enqueue(_ db: Database, _ item: OutboxItem) throws -> Bool {
        try db.execute(sql: """
            INSERT INTO "outbox" ("item_id", "kind", "body", "sha256", "band_id", "band_session_id", "created_unix",
              "attempts", "next_attempt_unix", "last_error", "held", "acknowledged_unix")
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """, arguments: [item.itemID, item.kind.rawValue, Data(item.body), item.sha256, item.bandID, item.bandSessionID,
                             item.createdUnixSeconds, item.attempts, item.nextAttemptUnixSeconds, item.lastError, item.held,
                             item.acknowledgedUnixSeconds])
        return db.changesCount == 1
    }

    private static func waitingCounts(_ db: Database) throws -> [OutboxKind: Int] {
        let rows = try Row.fetchAll(db, sql: #"SELECT "kind", COUNT(*) FROM "outbox" WHERE "acknowledged_unix" IS NULL GROUP BY "kind""#)
        return Dictionary(rows.compactMap { row in OutboxKind(rawValue: row[0]).map { ($0, row[1] as Int) } }, uniquingKeysWith: +)
    }

    private static func outboxItem(_ row: Row) -> OutboxItem {
        OutboxItem(itemID: row["item_id"], kind: OutboxKind(rawValue: row["kind"]) ?? .session, body: [UInt8](row["body"] as Data),
                   sha256: row["sha256"], bandID: row["band_id"], bandSessionID: row["band_session_id"],
                   createdUnixSeconds: row["created_unix"], attempts: row["attempts"], nextAttemptUnixSeconds: row["next_attempt_unix"],
                   lastError: row["last_error"], held: row["held"], acknowledgedUnixSeconds: row["acknowledged_unix"])
    }

    private static func studyServer(_ db: Database) throws -> StudyServerEnrollment? {
        try Row.fetchOne(db, sql: #"SELECT * FROM "study_server" WHERE "id" = 1"#).map { row in
            StudyServerEnrollment(baseURL: row["base_url"], fingerprint: row["fingerprint"], participantID: row["participant_id"],
                                  studyID: row["study_id"], consentVersion: row["consent_version"], consentSHA256: row["consent_sha256"],
                                  acceptedUnixSeconds: row["accepted_unix"], bandSettings: settings(row["band_settings"]),
                                  refreshToken: row["refresh_token"], accessToken: row["access_token"],
                                  accessExpiresUnixSeconds: row["access_expires_unix"], lastUploadUnixSeconds: row["last_upload_unix"],
                                  withdrawnUnixSeconds: row["withdrawn_unix"])
        }
    }

    /// Band settings as stored: `key=value` lines, sorted (keys and values hold no newline).
    static func settingsText(_ settings: [String: String]) -> String {
        settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }

    static func settings(_ text: String) -> [String: String] {
        Dictionary(text.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let eq = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<eq]), String(line[line.index(after: eq)...]))
        }, uniquingKeysWith: { _, b in b })
    }
}
