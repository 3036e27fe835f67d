import AmbleModel
import AmbleStoreSupport
import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A session in the laptop's store.
public struct CompanionSession: Equatable, Sendable {
    /// The laptop's id for it (what `amble sessions show ID` takes).
    public var id: Int64
    public var bandID: String
    public var bandName: String
    /// The band's own id for it.
    public var bandSessionID: Int64
    public var summary: SessionSummary

    public init(id: Int64, bandID: String, bandName: String, bandSessionID: Int64, summary: SessionSummary) {
        self.id = id
        self.bandID = bandID
        self.bandName = bandName
        self.bandSessionID = bandSessionID
        self.summary = summary
    }
}

/// A band paired with this laptop: what a sync needs to reach it and to know it.
public struct PairedBand: Equatable, Sendable {
    /// The band's stable id (a lowercase UUID the band made on its first start).
    public var id: String
    /// The name the wearer gave the band, as of the last pairing or sync.
    public var name: String
    /// The band's static public key (Curve25519, 32 bytes).
    public var publicKey: [UInt8]
    /// The last address the band was reached at: `host:port` over TCP, or a serial device path.
    public var address: String?
    /// When it was paired (or last re-paired), seconds since 1970-01-01T00:00:00Z.
    public var pairedUnixSeconds: Double
    /// When a sync with it last finished, seconds since 1970-01-01T00:00:00Z; nil before the first.
    public var lastSyncUnixSeconds: Double?
    /// Sessions of this band in the store.
    public var sessionCount: Int

    public init(id: String, name: String, publicKey: [UInt8], address: String?, pairedUnixSeconds: Double,
                lastSyncUnixSeconds: Double?, sessionCount: Int) {
        self.id = id
        self.name = name
        self.publicKey = publicKey
        self.address = address
        self.pairedUnixSeconds = pairedUnixSeconds
        self.lastSyncUnixSeconds = lastSyncUnixSeconds
        self.sessionCount = sessionCount
    }
}

extension PairedBand {
    /// Whether `text`, as a person names a band (`--band`, `amble unpair`), names the band with
    /// this id and name: the start of its id, of any length and in any case (the whole id
    /// included), or its name in any case. Several bands may answer to a short start: the
    /// callers say so and ask for more of the id.
    public static func isNamed(_ text: String, id: String, name: String) -> Bool {
        let lowered = text.lowercased()
        return !lowered.isEmpty && (id.lowercased().hasPrefix(lowered) || name.lowercased() == lowered)
    }
}

/// What the laptop's store refuses, and why.
public enum CompanionStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Several paired bands answer to `text` (an id prefix, or a name two bands share).
    case ambiguous(String, [PairedBand])
    /// No band with this id is in the store.
    case unknownBand(String)
    /// A Curve25519 key must be 32 bytes; this one had `count`.
    case keyLength(Int)
    /// A partial download claims more bytes than the session's whole length, or a negative length.
    case partialDownloadTooLong(bandID: String, bandSessionID: Int64, received: Int, totalLength: Int)
    /// None of these session ids is in the store (laptop ids, ascending).
    case unknownSessions([Int64])
    /// The store was made by an earlier build: it must be opened for writing once to upgrade it.
    case needsUpgrade

    public var description: String {
        switch self {
        case let .ambiguous(text, candidates):
            let length = distinguishingLength(candidates.map(\.id))
            let listed = candidates.map { "\($0.name) (id \($0.id.prefix(length))\(length < $0.id.count ? "…" : ""))" }
            return "several bands match '\(text)': \(listed.joined(separator: ", ")); give more of the id"
        case let .unknownBand(id):
            return "no band with id '\(id)' in the store; pair with it first"
        case let .keyLength(count):
            return "a Curve25519 key is 32 bytes, this one has \(count)"
        case let .partialDownloadTooLong(bandID, bandSessionID, received, totalLength):
            return "session \(bandSessionID) of band \(bandID): \(received) bytes received for a length of \(totalLength); "
                + "the download is corrupt, discard it and download the session again"
        case let .unknownSessions(ids):
            return "no session \(ids.map(String.init).joined(separator: ", ")) in the store"
        case .needsUpgrade:
            return "the store was made by an earlier version of Amble and must be upgraded first (any command that writes, such as `amble sync`, does it)"
        }
    }
}

/// The characters of each id an error shows so that the ids differ: 8, or one past their
/// longest common prefix.
private func distinguishingLength(_ ids: [String]) -> Int {
    var longest = 0
    for (i, a) in ids.enumerated() {
        for b in ids[(i + 1)...] {
            longest = max(longest, zip(a, b).prefix { $0 == $1 }.count)
        }
    }
    return max(8, longest + 1)
}

/// A row of `band`: a band the laptop has paired with or synced from. `publicKey` nil: not
/// paired (never, or unpaired); its sessions stay.
struct BandRow: Equatable, Sendable {
    var id: String
    var name: String
    var lastSyncUnix: Double?
    var publicKey: Data?
    var address: String?
    var pairedUnix: Double?
    /// Every band session id at or below it is stored here or was refused by the band.
    var syncCursor: Int64 = 0

    init(id: String, name: String, lastSyncUnix: Double? = nil) {
        self.id = id
        self.name = name
        self.lastSyncUnix = lastSyncUnix
    }

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        lastSyncUnix = row["last_sync_unix"]
        publicKey = row["public_key"]
        address = row["address"]
        pairedUnix = row["paired_unix"]
        syncCursor = row["sync_cursor"] ?? 0
    }

    static func fetchOne(_ db: Database, key id: String) throws -> BandRow? {
        try Row.fetchOne(db, sql: #"SELECT * FROM "band" WHERE "id" = ?"#, arguments: [id]).map(BandRow.init(row:))
    }

    /// Inserts the row, or writes every column of the one with its id (its sessions stay).
    func save(_ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO "band" ("id", "name", "last_sync_unix", "public_key", "address", "paired_unix", "sync_cursor") VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "last_sync_unix" = excluded."last_sync_unix",
              "public_key" = excluded."public_key", "address" = excluded."address", "paired_unix" = excluded."paired_unix",
              "sync_cursor" = excluded."sync_cursor"
            """, arguments: [id, name, lastSyncUnix, publicKey, address, pairedUnix, syncCursor])
    }
}

/// A row of `partial_download`: the start of a session's data, kept across a cut sync.
struct PartialDownloadRow: Equatable, Sendable {
    var bandID: String
    var bandSessionID: Int64
    var totalLength: Int
    var crc32: UInt32
    var bytes: Data

    static func fetchOne(_ db: Database, bandID: String, bandSessionID: Int64) throws -> PartialDownloadRow? {
        try Row.fetchOne(db, sql: #"SELECT * FROM "partial_download" WHERE "band_id" = ? AND "band_session_id" = ?"#,
                         arguments: [bandID, bandSessionID]).map {
            PartialDownloadRow(bandID: $0["band_id"], bandSessionID: $0["band_session_id"], totalLength: $0["total_length"],
                               crc32: $0["crc32"], bytes: $0["bytes"])
        }
    }

    static func delete(_ db: Database, bandID: String, bandSessionID: Int64) throws {
        try db.execute(sql: #"DELETE FROM "partial_download" WHERE "band_id" = ? AND "band_session_id" = ?"#, arguments: [bandID, bandSessionID])
    }

    func upsert(_ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO "partial_download" ("band_id", "band_session_id", "total_length", "crc32", "bytes") VALUES (?, ?, ?, ?, ?)
            ON CONFLICT ("band_id", "band_session_id") DO UPDATE SET
              "total_length" = excluded."total_length", "crc32" = excluded."crc32", "bytes" = excluded."bytes"
            """, arguments: [bandID, bandSessionID, totalLength, crc32, bytes])
    }
}

/// The laptop's store: its own key, the bands paired with it, and the sessions pulled from
/// them, each kept once (a session and its seconds are written in one transaction). One
/// SQLite file in WAL mode, 0600.
public final class CompanionStore: Sendable {
    /// Internal, not private: the store's parts in other files (CompanionStore+*.swift) use it.
    let writer: DatabaseQueue

    /// Opens (creating if needed) the store at `path`; nil gives an in-memory store (tests).
    public init(path: String?) throws {
        writer = try openDatabase(path: path)
        try Self.migrator.migrate(writer)
    }

    /// Opens the store at `path` for reading only: nothing, not even a migration, writes to
    /// it, and writes through it fail. Throws `CompanionStoreError.needsUpgrade` when the file
    /// was made by an earlier build (open it with `init(path:)` once to upgrade it).
    public init(readingOnly path: String) throws {
        let reader = try openDatabase(path: path, readOnly: true)
        guard try reader.read({ try Self.migrator.hasCompletedMigrations($0) }) else { throw CompanionStoreError.needsUpgrade }
        writer = reader
    }

    /// Opens a store at an earlier schema version, for the upgrade tests.
    init(path: String?, upTo version: String) throws {
        writer = try openDatabase(path: path)
        try Self.migrator.migrate(writer, upTo: version)
    }

    /// The schema's versions, in order. Each migration's SQL is written out inside it and never
    /// edited once shipped: a database made by any earlier build upgrades the same way.
    public static let versions = ["v1", "v2-energy", "v3-pairing", "v4-practice", "v5-raw", "v6-band-state", "goals", "study", "study-leave", "study-server"]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // v1 and v2-energy: the schema the builds that shipped them made with GRDB's table
        // builders (Tests/AmbleStoreTests/Fixtures holds databases those builds made).
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE "band" ("id" TEXT PRIMARY KEY NOT NULL, "name" TEXT NOT NULL, "last_sync_unix" DOUBLE);
                CREATE TABLE "session" (
                  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "kind" TEXT NOT NULL CHECK ("kind" IN ('calibration', 'mindful-walk')),
                  "start_unix" DOUBLE NOT NULL,
                  "end_unix" DOUBLE,
                  "steps" INTEGER NOT NULL DEFAULT 0,
                  "distance_m" DOUBLE NOT NULL DEFAULT 0,
                  "avg_hr_bpm" DOUBLE,
                  "alerts" INTEGER NOT NULL DEFAULT 0,
                  "time_over_limit_s" INTEGER NOT NULL DEFAULT 0,
                  "gap_s" INTEGER NOT NULL DEFAULT 0,
                  "rmssd_ms" DOUBLE,
                  "measured_cadence_spm" DOUBLE,
                  "calibrated_cadence_spm" DOUBLE,
                  "reduction_percent" INTEGER,
                  "limit_cadence_spm" DOUBLE,
                  "step_length_m" DOUBLE NOT NULL,
                  "band_id" TEXT NOT NULL REFERENCES "band"("id"),
                  "band_session_id" INTEGER NOT NULL,
                  UNIQUE ("band_id", "band_session_id"));
                CREATE TABLE "session_second" (
                  "session_id" INTEGER NOT NULL REFERENCES "session"("id") ON DELETE CASCADE,
                  "offset_s" INTEGER NOT NULL,
                  "steps" INTEGER NOT NULL,
                  "cadence_spm" DOUBLE NOT NULL,
                  "hr_bpm" DOUBLE,
                  "hr_confidence" DOUBLE,
                  "over_limit" BOOLEAN NOT NULL,
                  "alerts" INTEGER NOT NULL,
                  "accelerometer_gap" BOOLEAN NOT NULL,
                  "hr_gap" BOOLEAN NOT NULL,
                  PRIMARY KEY ("session_id", "offset_s"));
                """)
        }
        migrator.registerMigration("v2-energy") { db in
            try db.execute(sql: #"ALTER TABLE "session" ADD COLUMN "active_kcal" DOUBLE"#)
        }
        migrator.registerMigration("v3-pairing") { db in
            try db.execute(sql: """
                CREATE TABLE "laptop_key" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "private_key" BLOB NOT NULL CHECK (length("private_key") = 32));
                ALTER TABLE "band" ADD COLUMN "public_key" BLOB CHECK (length("public_key") = 32);
                ALTER TABLE "band" ADD COLUMN "address" TEXT;
                ALTER TABLE "band" ADD COLUMN "paired_unix" DOUBLE;
                ALTER TABLE "band" ADD COLUMN "sync_cursor" INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE "partial_download" (
                  "band_id" TEXT NOT NULL REFERENCES "band"("id") ON DELETE CASCADE,
                  "band_session_id" INTEGER NOT NULL,
                  "total_length" INTEGER NOT NULL CHECK ("total_length" >= 0),
                  "crc32" INTEGER NOT NULL,
                  "bytes" BLOB NOT NULL CHECK (length("bytes") <= "total_length"),
                  PRIMARY KEY ("band_id", "band_session_id"));
                """)
        }
        migrator.registerMigration("v4-practice") { db in
            // Pauses and the summary's new totals (sessions synced before have none).
            try db.execute(sql: """
                ALTER TABLE "session_second" ADD COLUMN "paused" BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE "session" ADD COLUMN "max_hr_bpm" DOUBLE;
                ALTER TABLE "session" ADD COLUMN "walking_s" INTEGER;
                ALTER TABLE "session" ADD COLUMN "pauses" INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE "session" ADD COLUMN "paused_s" INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v5-raw") { db in
            // Raw sensor samples synced with a session (`consent_raw_capture` on the band):
            // fixed-width values per block (RawBlockTable), for `amble sessions export`.
            try db.execute(sql: """
                CREATE TABLE "session_raw_block" (
                  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "session_id" INTEGER NOT NULL REFERENCES "session"("id") ON DELETE CASCADE,
                  "sensor" TEXT NOT NULL CHECK ("sensor" IN ('accelerometer', 'ppg')),
                  "start_ms" INTEGER NOT NULL CHECK ("start_ms" >= 0),
                  "rate_mhz" INTEGER NOT NULL CHECK ("rate_mhz" > 0),
                  "channels" INTEGER NOT NULL CHECK ("channels" BETWEEN 1 AND 3),
                  "samples" INTEGER NOT NULL CHECK ("samples" > 0),
                  "data" BLOB NOT NULL CHECK (length("data") = "samples" * "channels" * (CASE "sensor" WHEN 'accelerometer' THEN 2 ELSE 4 END)));
                CREATE INDEX "session_raw_block_session" ON "session_raw_block"("session_id");
                """)
        }
        migrator.registerMigration("v6-band-state") { db in
            // What each band was recording at its last sync, and the wipes `amble reset` left
            // for the next sync (CompanionStore+BandState.swift).
            try db.execute(sql: """
                CREATE TABLE "band_recording" (
                  "band_id" TEXT NOT NULL REFERENCES "band"("id") ON DELETE CASCADE,
                  "band_session_id" INTEGER NOT NULL,
                  "kind" TEXT NOT NULL,
                  "start_unix" DOUBLE NOT NULL,
                  "recorded_s" INTEGER NOT NULL CHECK ("recorded_s" >= 0),
                  "seen_unix" DOUBLE NOT NULL,
                  PRIMARY KEY ("band_id", "band_session_id"));
                CREATE TABLE "band_wipe_request" (
                  "band_id" TEXT PRIMARY KEY NOT NULL REFERENCES "band"("id") ON DELETE CASCADE,
                  "requested_unix" DOUBLE NOT NULL);
                """)
        }
        migrator.registerMigration("goals", migrate: migrateGoals)
        registerStudyMigration(&migrator)   // CompanionStore+Study.swift
        registerOutboxMigration(&migrator)  // CompanionStore+Outbox.swift
        return migrator
    }

    // MARK: The laptop's key and the paired bands

    /// The laptop's static private key (Curve25519, 32 bytes), made with `make` on first use
    /// and the same ever after.
    public func laptopPrivateKey(make: () -> [UInt8]) throws -> [UInt8] {
        try writer.write { db in
            if let key = try Data.fetchOne(db, sql: #"SELECT "private_key" FROM "laptop_key" WHERE "id" = 1"#) { return [UInt8](key) }
            let key = make()
            guard key.count == 32 else { throw CompanionStoreError.keyLength(key.count) }
            try db.execute(sql: #"INSERT INTO "laptop_key" ("id", "private_key") VALUES (1, ?)"#, arguments: [Data(key)])
            return key
        }
    }

    /// Pairs a band: adds it, or re-pairs one already known (its new key replaces the old; its
    /// sessions, sync cursor and partial downloads stay). `address` nil keeps the last one.
    public func pairBand(id: String, name: String, publicKey: [UInt8], address: String?, nowUnixSeconds: Double) throws {
        guard publicKey.count == 32 else { throw CompanionStoreError.keyLength(publicKey.count) }
        try writer.write { db in
            var band = try BandRow.fetchOne(db, key: id) ?? BandRow(id: id, name: name)
            band.name = name
            band.publicKey = Data(publicKey)
            band.pairedUnix = nowUnixSeconds
            if let address { band.address = address }
            try band.save(db)
        }
    }

    /// The bands paired with this laptop (those with a key), by name.
    public func pairedBands() throws -> [PairedBand] {
        try writer.read(Self.pairedBands)
    }

    /// The paired band `text` names: its exact id, the start of its id (any length, any case),
    /// or its name (any case). Nil when none does; throws
    /// `CompanionStoreError.ambiguous` when several do.
    public func band(matching text: String) throws -> PairedBand? {
        let bands = try pairedBands()
        if let exact = bands.first(where: { $0.id == text }) { return exact }
        let matches = bands.filter { PairedBand.isNamed(text, id: $0.id, name: $0.name) }
        guard matches.count <= 1 else { throw CompanionStoreError.ambiguous(text, matches) }
        return matches.first
    }

    /// Unpairs a band: drops its key and any partial downloads; its sessions stay. Returns false
    /// when no such band was paired.
    @discardableResult
    public func unpair(bandID: String) throws -> Bool {
        try writer.write { db in
            guard var band = try BandRow.fetchOne(db, key: bandID), band.publicKey != nil else { return false }
            band.publicKey = nil
            band.pairedUnix = nil
            try band.save(db)
            try db.execute(sql: #"DELETE FROM "partial_download" WHERE "band_id" = ?"#, arguments: [bandID])
            return true
        }
    }

    /// Remembers the address a band was last reached at (`host:port`, or a serial device path).
    public func setAddress(bandID: String, address: String) throws {
        try writer.write { db in
            var band = try Self.existingBand(db, id: bandID)
            band.address = address
            try band.save(db)
        }
    }

    // MARK: Sync

    /// The band's sync cursor: every band session id at or below it is stored here or was
    /// refused by the band. 0 for a band never synced (or not in the store).
    public func syncCursor(bandID: String) throws -> Int64 {
        try writer.read { db in try BandRow.fetchOne(db, key: bandID)?.syncCursor ?? 0 }
    }

    /// Moves the band's sync cursor forward to `cursor`; a lower value than the stored one is
    /// ignored (the cursor never moves backwards).
    public func setSyncCursor(bandID: String, _ cursor: Int64) throws {
        try writer.write { db in
            var band = try Self.existingBand(db, id: bandID)
            guard cursor > band.syncCursor else { return }
            band.syncCursor = cursor
            try band.save(db)
        }
    }

    /// The band session ids already stored for `bandID`.
    public func storedBandSessionIDs(bandID: String) throws -> Set<Int64> {
        try writer.read { db in
            try Int64.fetchSet(db, sql: #"SELECT "band_session_id" FROM "session" WHERE "band_id" = ?"#, arguments: [bandID])
        }
    }

    /// Stores a session pulled from a band, in one transaction: the band's row is added or
    /// updated (name, last sync), the session and its seconds are inserted unless already
    /// stored, and the partial download of it, if any, is removed. A new session is queued for
    /// the study server (`outbox`: the band's bytes, when given) in the same transaction, when a
    /// server study is joined here. Returns the session's new id, or nil if it was already stored.
    @discardableResult
    public func insert(bandID: String, bandName: String, bandSessionID: Int64, record: SessionRecord, syncedAtUnixSeconds: Double,
                       outbox: OutboxSessionItem? = nil) throws -> Int64? {
        try writer.write { db in
            try Self.recordSync(db, bandID: bandID, bandName: bandName, nowUnixSeconds: syncedAtUnixSeconds)
            try PartialDownloadRow.delete(db, bandID: bandID, bandSessionID: bandSessionID)
            let stored = try Int64.fetchOne(db, sql: #"SELECT "id" FROM "session" WHERE "band_id" = ? AND "band_session_id" = ?"#,
                                            arguments: [bandID, bandSessionID])
            guard stored == nil else { return nil }
            var session = SessionRow(summary: record.summary)
            session.bandID = bandID
            session.bandSessionID = bandSessionID
            try session.insert(db)
            guard let id = session.id else { return nil }
            try SecondRow.insertAll(db, sessionID: id, record.seconds)
            try RawBlockTable.insert(db, sessionID: id, record.raw)
            try Self.enqueueSession(db, bandID: bandID, bandSessionID: bandSessionID, startUnixSeconds: record.summary.startUnixSeconds,
                                    item: outbox, nowUnixSeconds: syncedAtUnixSeconds)
            return id
        }
    }

    /// Records a sync that pulled nothing: the band's row is added or updated (name, last sync).
    public func markSynced(bandID: String, bandName: String, nowUnixSeconds: Double) throws {
        try writer.write { db in try Self.recordSync(db, bandID: bandID, bandName: bandName, nowUnixSeconds: nowUnixSeconds) }
    }

    /// The part of a session's data kept from a cut sync, if any.
    public func partialDownload(bandID: String, bandSessionID: Int64) throws -> PartialDownload? {
        try writer.read { db in
            try PartialDownloadRow.fetchOne(db, bandID: bandID, bandSessionID: bandSessionID).map {
                PartialDownload(totalLength: $0.totalLength, crc32: $0.crc32, bytes: [UInt8]($0.bytes))
            }
        }
    }

    /// Keeps the part of a session's data received so far, replacing what was kept before.
    /// Throws when it holds more bytes than `totalLength`, or when the band is not in the store.
    public func savePartialDownload(bandID: String, bandSessionID: Int64, _ partial: PartialDownload) throws {
        guard partial.totalLength >= 0, partial.bytes.count <= partial.totalLength else {
            throw CompanionStoreError.partialDownloadTooLong(bandID: bandID, bandSessionID: bandSessionID,
                                                             received: partial.bytes.count, totalLength: partial.totalLength)
        }
        try writer.write { db in
            _ = try Self.existingBand(db, id: bandID)
            try PartialDownloadRow(bandID: bandID, bandSessionID: bandSessionID, totalLength: partial.totalLength,
                                   crc32: partial.crc32, bytes: Data(partial.bytes)).upsert(db)
        }
    }

    /// Forgets the part of a session's data kept from a cut sync (it was corrupt, or the band
    /// refused the session).
    public func discardPartialDownload(bandID: String, bandSessionID: Int64) throws {
        try writer.write { db in try PartialDownloadRow.delete(db, bandID: bandID, bandSessionID: bandSessionID) }
    }

    // MARK: Helpers

    static func sessions(_ db: Database, ids: [Int64]) throws -> [CompanionSession] {
        let found = try Row.fetchAll(db, sql: sessionsWithBandName + #" WHERE "session"."id" IN (SELECT value FROM json_each(?))"#,
                                     arguments: [jsonArray(ids)]).compactMap(companionSession)
        let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let missing = Set(ids.filter { byID[$0] == nil }).sorted()
        guard missing.isEmpty else { throw CompanionStoreError.unknownSessions(missing) }
        var seen = Set<Int64>()
        return ids.filter { seen.insert($0).inserted }.compactMap { byID[$0] }
    }

    /// Sessions with their band's name (sessions of a band not in the store are left out).
    static let sessionsWithBandName = #"SELECT "session".*, "band"."name" AS "band_name" FROM "session" JOIN "band" ON "band"."id" = "session"."band_id""#

    /// Ids as a JSON array, for `json_each(?)`.
    private static func jsonArray(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    static func companionSession(_ row: Row) throws -> CompanionSession? {
        let session = SessionRow(row: row)
        guard let id = session.id, let bandID = session.bandID, let bandSessionID = session.bandSessionID,
              let summary = session.summary else { return nil }
        return CompanionSession(id: id, bandID: bandID, bandName: try row.decode(forColumn: "band_name"), bandSessionID: bandSessionID, summary: summary)
    }

    private static func pairedBands(_ db: Database) throws -> [PairedBand] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT "band".*, (SELECT COUNT(*) FROM "session" WHERE "session"."band_id" = "band"."id") AS "session_count"
            FROM "band" WHERE "public_key" IS NOT NULL ORDER BY "name" COLLATE NOCASE, "id"
            """)
        return try rows.compactMap { row in
            let band = BandRow(row: row)
            guard let key = band.publicKey, let paired = band.pairedUnix else { return nil }
            return PairedBand(id: band.id, name: band.name, publicKey: [UInt8](key), address: band.address, pairedUnixSeconds: paired,
                              lastSyncUnixSeconds: band.lastSyncUnix, sessionCount: try row.decode(forColumn: "session_count"))
        }
    }

    private static func existingBand(_ db: Database, id: String) throws -> BandRow {
        guard let band = try BandRow.fetchOne(db, key: id) else { throw CompanionStoreError.unknownBand(id) }
        return band
    }

    /// Adds the band's row, or updates its name and last sync; its key and cursor stay.
    private static func recordSync(_ db: Database, bandID: String, bandName: String, nowUnixSeconds: Double) throws {
        guard var band = try BandRow.fetchOne(db, key: bandID) else {
            try BandRow(id: bandID, name: bandName, lastSyncUnix: nowUnixSeconds).save(db)
            return
        }
        band.name = bandName
        band.lastSyncUnix = nowUnixSeconds
        try band.save(db)
    }
}
