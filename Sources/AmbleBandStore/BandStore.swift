import AmbleModel
import AmbleStoreSupport
import AmbleSQLite
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Who a band is: a stable id made on first start, and the name the wearer gave it.
public struct BandIdentity: Equatable, Sendable, Codable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A laptop paired with the band: its static public key (Curve25519, 32 bytes) and name.
public struct PairedLaptop: Equatable, Sendable {
    public var publicKey: [UInt8]
    public var name: String
    public var pairedUnixSeconds: Double

    public init(publicKey: [UInt8], name: String, pairedUnixSeconds: Double) {
        self.publicKey = publicKey
        self.name = name
        self.pairedUnixSeconds = pairedUnixSeconds
    }
}

/// A finished session as the band offers it for sync.
public struct StoredSession: Equatable, Sendable {
    public var id: Int64
    public var summary: SessionSummary
    /// When a laptop acknowledged it (nil: not synced yet).
    public var syncedUnixSeconds: Double?
}

/// The band's store: every session as it is recorded (a row per second, written as it
/// happens), the calibration, the wearer's settings, the band's key and the laptops paired
/// with it. One SQLite file in WAL mode, 0600.
public final class BandStore: Sendable {
    /// The database (internal: `BandStore`'s reading and checks are in BandStoreReading.swift).
    let writer: DatabaseQueue
    /// The identity once read or made: it never changes afterwards (asked at every sync).
    let knownIdentity = Mutex<BandIdentity?>(nil)
    private let boardDefaultValues = Mutex<[BandSetting: String]>([:])

    /// Opens (creating if needed) the store at `path`; nil gives an in-memory store (tests).
    /// Sessions left open by a crash or power loss are closed from their recorded seconds.
    /// `maximumBytes`: the store never grows past about this size (the board's `[storage]
    /// max_store_mb`); at it, it is full as on a full disk. A store too full to close them
    /// opens all the same, with `recovery.pending` set (`recoverOpenSessions` closes them later).
    public init(path: String?, maximumBytes: Int? = nil) throws {
        writer = try openDatabase(path: path, maximumBytes: maximumBytes)
        try Self.migrator.migrate(writer)
        // The log is copied into the file every `logPages` pages (SQLite's default is 1000),
        // and then written from its start again: it never holds more than about 400 kB, which
        // is what a full card must spare to go on.
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.logPages)") }
        do {
            recovery = try Self.recover(writer)
        } catch where isStoreFullError(error) {
            recovery = Recovery(pending: true)
        }
    }

    /// Opens a store at an earlier schema version, for the upgrade tests.
    init(path: String?, upTo version: String) throws {
        writer = try openDatabase(path: path)
        try Self.migrator.migrate(writer, upTo: version)
        recovery = Recovery()
    }

    /// Pages the write-ahead log takes before it is copied into the file (4 KiB each).
    static let logPages = 100

    /// The schema's versions, in order. Each migration's SQL is written out inside it and never
    /// edited once shipped: a database made by any earlier build upgrades the same way.
    public static let versions = ["v1", "v2-energy", "v3-sync", "v4-practice", "v5-raw", "v6-laptop-setting", "v7-recovery"]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
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
                  "step_length_m" DOUBLE NOT NULL);
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
                CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
                """)
        }
        migrator.registerMigration("v2-energy") { db in
            try db.execute(sql: #"ALTER TABLE "session" ADD COLUMN "active_kcal" DOUBLE"#)
        }
        migrator.registerMigration("v3-sync") { db in
            try db.execute(sql: """
                ALTER TABLE "session" ADD COLUMN "synced_unix" DOUBLE;
                CREATE TABLE "band_key" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "private_key" BLOB NOT NULL CHECK (length("private_key") = 32));
                CREATE TABLE "paired_laptop" (
                  "public_key" BLOB PRIMARY KEY CHECK (length("public_key") = 32),
                  "name" TEXT NOT NULL,
                  "paired_unix" DOUBLE NOT NULL);
                CREATE TABLE "session_data" (
                  "session_id" INTEGER PRIMARY KEY REFERENCES "session"("id") ON DELETE CASCADE,
                  "bytes" BLOB NOT NULL,
                  "crc32" INTEGER NOT NULL);
                """)
        }
        migrator.registerMigration("v4-practice") { db in
            // Pauses, the summary's new totals, every calibration kept (the one saved as a
            // setting until now becomes the first; the old row is left, unread). Session data
            // of the older encoding is encoded again by the band at its next start.
            try db.execute(sql: """
                ALTER TABLE "session_second" ADD COLUMN "paused" BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE "session" ADD COLUMN "max_hr_bpm" DOUBLE;
                ALTER TABLE "session" ADD COLUMN "walking_s" INTEGER;
                ALTER TABLE "session" ADD COLUMN "pauses" INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE "session" ADD COLUMN "paused_s" INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE "calibration" (
                  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "unix" DOUBLE NOT NULL,
                  "cadence_spm" DOUBLE NOT NULL,
                  "step_length_m" DOUBLE);
                INSERT INTO "calibration" ("unix", "cadence_spm", "step_length_m")
                  SELECT json_extract("value", '$.unixSeconds'), json_extract("value", '$.cadenceStepsPerMinute'),
                         json_extract("value", '$.stepLengthMeters')
                  FROM "setting" WHERE "key" = 'calibration' AND json_valid("value")
                  AND json_extract("value", '$.cadenceStepsPerMinute') IS NOT NULL;
                """)
        }
        migrator.registerMigration("v5-raw") { db in
            // Raw sensor samples of a session, kept when the wearer consents
            // (`consent_raw_capture`): fixed-width values per block (RawBlockTable).
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
        migrator.registerMigration("v6-laptop-setting") { db in
            // Each paired laptop's own settings (`LaptopSetting`: a joined study's reminder),
            // apart from the wearer's, gone with the laptop.
            try db.execute(sql: """
                CREATE TABLE "laptop_setting" (
                  "public_key" BLOB NOT NULL REFERENCES "paired_laptop"("public_key") ON DELETE CASCADE,
                  "key" TEXT NOT NULL,
                  "value" TEXT NOT NULL,
                  PRIMARY KEY ("public_key", "key"));
                """)
        }
        migrator.registerMigration("v7-recovery") { db in
            // A session under way keeps, with each second stored, the steps its counter holds
            // but has not released yet (about the last 10 s of walking), by the seconds they
            // were taken in (JSON: [[offset_s, steps], ...]), and, in "active_kcal", its energy
            // so far: a power cut then loses at most the second under way.
            try db.execute(sql: #"ALTER TABLE "session" ADD COLUMN "pending_steps" TEXT NOT NULL DEFAULT '[]'"#)
        }
        return migrator
    }

    // MARK: Identity, key and pairing

    /// The band's identity, made on first use.
    public func identity(defaultName: String) throws -> BandIdentity {
        if let known = knownIdentity.withLock({ $0 }) { return known }
        let identity = try writer.write { db in
            if let id = try Self.setting(db, "band_id") {
                let name = try Self.setting(db, BandSetting.bandName.rawValue) ?? Self.setting(db, "band_name") ?? defaultName
                return BandIdentity(id: id, name: name)
            }
            let identity = BandIdentity(id: UUID().uuidString.lowercased(), name: defaultName)
            try Self.setSetting(db, "band_id", identity.id)
            try Self.setSetting(db, BandSetting.bandName.rawValue, identity.name)
            return identity
        }
        knownIdentity.withLock { $0 = identity }
        return identity
    }

    /// The band's static private key (Curve25519), made with `make` on first use.
    public func staticPrivateKey(make: () -> [UInt8]) throws -> [UInt8] {
        try writer.write { db in
            if let key = try Data.fetchOne(db, sql: #"SELECT "private_key" FROM "band_key" WHERE "id" = 1"#) { return [UInt8](key) }
            let key = make()
            try db.execute(sql: #"INSERT INTO "band_key" ("id", "private_key") VALUES (1, ?)"#, arguments: [Data(key)])
            return key
        }
    }

    public func pairedLaptops() throws -> [PairedLaptop] {
        try writer.read { db in
            try Row.fetchAll(db, sql: #"SELECT * FROM "paired_laptop" ORDER BY "paired_unix""#).map {
                PairedLaptop(publicKey: [UInt8]($0["public_key"] as Data), name: $0["name"], pairedUnixSeconds: $0["paired_unix"])
            }
        }
    }

    public func addPairedLaptop(_ laptop: PairedLaptop) throws {
        try writer.write { db in
            try db.execute(sql: """
                INSERT INTO "paired_laptop" ("public_key", "name", "paired_unix") VALUES (?, ?, ?)
                ON CONFLICT("public_key") DO UPDATE SET "name" = excluded."name", "paired_unix" = excluded."paired_unix"
                """, arguments: [Data(laptop.publicKey), laptop.name, laptop.pairedUnixSeconds])
        }
    }

    /// Forgets every paired laptop (the menu's "forget laptops").
    public func forgetLaptops() throws {
        try writer.write { db in try db.execute(sql: #"DELETE FROM "paired_laptop""#) }
    }

    // MARK: Settings

    /// Defaults the board file gives (its `[wearer]` and `[practice]`), in place of the
    /// settings' own until the wearer or a laptop sets them. Values must be valid (`validate`).
    public var boardDefaults: [BandSetting: String] {
        get { boardDefaultValues.withLock { $0 } }
        set { boardDefaultValues.withLock { $0 = newValue } }
    }

    private func defaultValue(_ setting: BandSetting) -> String {
        boardDefaults[setting] ?? setting.defaultValue
    }

    /// Every setting a companion may read, with its value (the default where never set).
    public func settings() throws -> [(BandSetting, String)] {
        try writer.read { db in
            try BandSetting.allCases.map { ($0, try Self.setting(db, $0.rawValue) ?? defaultValue($0)) }
        }
    }

    public func setting(_ setting: BandSetting) throws -> String {
        try writer.read { db in try Self.setting(db, setting.rawValue) ?? defaultValue(setting) }
    }

    /// Sets a setting; returns the value stored (canonical form).
    @discardableResult
    public func set(_ setting: BandSetting, to raw: String) throws -> String {
        let value = try setting.validate(raw)
        try writer.write { db in try Self.setSetting(db, setting.rawValue, value) }
        if setting == .bandName { knownIdentity.withLock { $0?.name = value } }
        return value
    }

    /// A paired laptop's own settings (`LaptopSetting`), each with its value ("off" where never set).
    public func laptopSettings(laptopKey: [UInt8]) throws -> [(LaptopSetting, String)] {
        try writer.read { db in
            let stored = try Row.fetchAll(db, sql: #"SELECT "key", "value" FROM "laptop_setting" WHERE "public_key" = ?"#,
                                          arguments: [Data(laptopKey)])
            let values = Dictionary(stored.map { (row: Row) -> (String, String) in (row["key"], row["value"]) }, uniquingKeysWith: { a, _ in a })
            return LaptopSetting.allCases.map { ($0, values[$0.rawValue] ?? $0.defaultValue) }
        }
    }

    /// Sets one of a paired laptop's own settings; returns the value stored (canonical form).
    /// A laptop that is not paired (forgotten meanwhile) keeps nothing.
    @discardableResult
    public func setLaptopSetting(_ setting: LaptopSetting, to raw: String, laptopKey: [UInt8]) throws -> String {
        let value = try setting.validate(raw)
        try writer.write { db in
            try db.execute(sql: """
                INSERT INTO "laptop_setting" ("public_key", "key", "value")
                SELECT "public_key", ?, ? FROM "paired_laptop" WHERE "public_key" = ?
                ON CONFLICT ("public_key", "key") DO UPDATE SET "value" = excluded."value"
                """, arguments: [setting.rawValue, value, Data(laptopKey)])
        }
        return value
    }

    /// The study reminders the paired laptops ask for, each once (two laptops of one study ask
    /// for the same), earliest first.
    public func studyReminders() throws -> [StudyReminder] {
        try writer.read { db in
            let values = try String.fetchAll(db, sql: #"SELECT "value" FROM "laptop_setting" WHERE "key" = ?"#,
                                             arguments: [LaptopSetting.studyReminder.rawValue])
            return Set(values.compactMap(StudyReminder.init(settingValue:))).sorted()
        }
    }

    /// How far the laptop moved the band's date from the system clock (`amble band time`),
    /// seconds; 0 until set. The system clock itself is left alone (setting it needs root).
    public func clockOffsetSeconds() throws -> Double {
        try writer.read { db in try Self.setting(db, "clock_offset_s").flatMap(Double.init) ?? 0 }
    }

    public func setClockOffsetSeconds(_ offset: Double) throws {
        try writer.write { db in try Self.setSetting(db, "clock_offset_s", String(offset)) }
    }

    /// The calibration in use: the latest.
    public func loadCalibration() throws -> Calibration? {
        try calibrations().last
    }

    /// Every calibration kept, oldest first.
    public func calibrations() throws -> [Calibration] {
        try writer.read { db in
            try Row.fetchAll(db, sql: #"SELECT * FROM "calibration" ORDER BY "unix", "id""#).map {
                Calibration(cadenceStepsPerMinute: $0["cadence_spm"], stepLengthMeters: $0["step_length_m"], unixSeconds: $0["unix"])
            }
        }
    }

    /// Keeps a new calibration; it is the one in use from now on.
    public func saveCalibration(_ calibration: Calibration) throws {
        try writer.write { db in
            try db.execute(sql: #"INSERT INTO "calibration" ("unix", "cadence_spm", "step_length_m") VALUES (?, ?, ?)"#,
                           arguments: [calibration.unixSeconds, calibration.cadenceStepsPerMinute, calibration.stepLengthMeters])
        }
    }

    /// Every setting, typed (stored values, defaults where never set).
    public func settingValues() throws -> BandSettingValues {
        BandSettingValues(Dictionary(uniqueKeysWithValues: try settings()))
    }

    /// A value the band keeps for itself (not a wearer's setting): the reminder's state, say.
    public func internalValue(_ key: String) throws -> String? {
        try writer.read { db in try Self.setting(db, "internal." + key) }
    }

    public func setInternalValue(_ key: String, _ value: String?) throws {
        try writer.write { db in
            if let value {
                try Self.setSetting(db, "internal." + key, value)
            } else {
                try db.execute(sql: #"DELETE FROM "setting" WHERE "key" = ?"#, arguments: ["internal." + key])
            }
        }
    }

    private static func setting(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: #"SELECT "value" FROM "setting" WHERE "key" = ?"#, arguments: [key])
    }

    private static func setSetting(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(sql: #"INSERT INTO "setting" ("key", "value") VALUES (?, ?) ON CONFLICT("key") DO UPDATE SET "value" = excluded."value""#,
                       arguments: [key, value])
    }

    // MARK: Recording

    /// Starts a session row; returns its id.
    public func beginSession(kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters) throws -> Int64 {
        try writer.write { db in
            var row = SessionRow(kind: kind, startUnixSeconds: startUnixSeconds, parameters: parameters)
            try row.insert(db)
            return row.id!
        }
    }

    /// Stores seconds of a session under way (the second just closed, or those that waited for
    /// room in a full store), adds `earlier` (steps released with them that were taken in
    /// seconds already stored) to theirs and, when given, keeps the session's `progress` at their
    /// end: what closing it after a power cut adds to its seconds. In one transaction, so that a
    /// cut finds either all of it or none.
    public func appendSeconds(sessionID: Int64, _ seconds: [SessionSecond], earlier: [StepsAdded] = [], progress: SessionProgress? = nil) throws {
        try writer.write { db in
            try SecondRow.insertAll(db, sessionID: sessionID, seconds)
            try Self.addSteps(db, sessionID: sessionID, earlier)
            guard let progress else { return }
            let pending = String(decoding: try JSONEncoder().encode(progress.pendingSteps.map { [$0.offsetSeconds, $0.steps] }), as: UTF8.self)
            try db.execute(sql: #"UPDATE "session" SET "pending_steps" = ?, "active_kcal" = ? WHERE "id" = ? AND "end_unix" IS NULL"#,
                           arguments: [pending, progress.activeKilocalories, sessionID])
        }
    }

    /// Stores one second of a session under way (`appendSeconds` of one).
    public func appendSecond(sessionID: Int64, _ second: SessionSecond, earlier: [StepsAdded] = [], progress: SessionProgress? = nil) throws {
        try appendSeconds(sessionID: sessionID, [second], earlier: earlier, progress: progress)
    }

    /// Adds steps to seconds of a session already stored (the step counter releases steps
    /// about 10 s after they were taken), in one transaction. A second not stored is skipped.
    public func addSteps(sessionID: Int64, _ added: [StepsAdded]) throws {
        try writer.write { db in try Self.addSteps(db, sessionID: sessionID, added) }
    }

    private static func addSteps(_ db: Database, sessionID: Int64, _ added: [StepsAdded]) throws {
        for addition in added {
            try db.execute(sql: #"UPDATE "session_second" SET "steps" = "steps" + ? WHERE "session_id" = ? AND "offset_s" = ?"#,
                           arguments: [addition.steps, sessionID, addition.offsetSeconds])
        }
    }

    /// Appends raw sensor samples to a session under way (in one transaction).
    public func appendRawBlocks(sessionID: Int64, _ blocks: [RawBlock]) throws {
        try writer.write { db in try RawBlockTable.insert(db, sessionID: sessionID, blocks) }
    }

    /// The raw samples a session holds: samples per sensor, and the bytes they take here.
    public func rawCounts(sessionID: Int64) throws -> (samples: [RawSensor: Int], bytes: Int) {
        try writer.read { db in try RawBlockTable.counts(db, sessionID: sessionID) }
    }

    /// Closes a session with its summary.
    public func endSession(sessionID: Int64, summary: SessionSummary) throws {
        try writer.write { db in
            guard var row = try SessionRow.fetchOne(db, key: sessionID) else { return }
            row.apply(summary)
            try row.update(db)
        }
    }

    /// Deletes a session under way or finished (the wearer discarded it), with its seconds.
    public func discardSession(sessionID: Int64) throws {
        try writer.write { db in _ = try SessionRow.deleteOne(db, key: sessionID) }
    }

    /// What a start after a crash or power cut found.
    public struct Recovery: Equatable, Sendable {
        /// Walks closed from the seconds they recorded.
        public var walksClosed = 0
        /// Calibrations under way, discarded (a calibration is only good whole).
        public var calibrationsDiscarded = 0
        /// The store was too full to close them: they stay open (not listed) until
        /// `recoverOpenSessions` can.
        public var pending = false

        public init(walksClosed: Int = 0, calibrationsDiscarded: Int = 0, pending: Bool = false) {
            self.walksClosed = walksClosed
            self.calibrationsDiscarded = calibrationsDiscarded
            self.pending = pending
        }
    }

    /// What opening the store recovered from a crash or power cut.
    public let recovery: Recovery

    /// Closes walks a crash left open, with totals made from the seconds they recorded plus the
    /// progress kept with the last of them (the steps the counter had not released yet, the
    /// energy so far), and discards calibrations left open.
    @discardableResult
    public func recoverOpenSessions() throws -> Recovery {
        try Self.recover(writer)
    }

    private static func recover(_ writer: DatabaseQueue) throws -> Recovery {
        try writer.write { db in
            var recovery = Recovery()
            let open = try SessionRow.fetchAll(db, sql: #"SELECT * FROM "session" WHERE "end_unix" IS NULL ORDER BY "id""#)
            for var row in open {
                if row.sessionKind == .calibration {
                    _ = try SessionRow.deleteOne(db, key: row.id!)
                    recovery.calibrationsDiscarded += 1
                    continue
                }
                recovery.walksClosed += 1
                // The steps the counter held at the last second stored go to the seconds they
                // were taken in (none from a build before v7-recovery), as at a clean end.
                let pending = try String.fetchOne(db, sql: #"SELECT "pending_steps" FROM "session" WHERE "id" = ?"#, arguments: [row.id!])
                let pairs = (try? JSONDecoder().decode([[Int]].self, from: Data((pending ?? "[]").utf8))) ?? []
                try addSteps(db, sessionID: row.id!, pairs.compactMap { $0.count == 2 ? StepsAdded(offsetSeconds: $0[0], steps: $0[1]) : nil })
                let seconds = try SecondRow.seconds(db, sessionID: row.id!)
                let end = row.startUnix + Double((seconds.last?.offsetSeconds ?? -1) + 1)
                var summary = SessionTally(seconds).summary(kind: row.sessionKind, startUnixSeconds: row.startUnix, endUnixSeconds: end,
                                                            parameters: row.parameters)
                summary.activeKilocalories = row.activeKcal   // the energy so far, kept with each second
                row.apply(summary)
                try row.update(db)
            }
            return recovery
        }
    }
}
