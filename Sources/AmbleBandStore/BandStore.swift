import AmbleModel
import AmbleStoreSupport
import AmbleSync
import GRDB
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

/// The band's store: every session as it is recorded (a row per second, written as it
/// happens), the calibration and the wearer's last choices. One SQLite file in WAL mode.
public final class BandStore: Sendable {
    private let writer: any DatabaseWriter
    /// The identity once read or made: it never changes afterwards (asked at every sync).
    private let knownIdentity = Mutex<BandIdentity?>(nil)

    /// Opens (creating if needed) the store at `path`; nil gives an in-memory store (tests).
    /// Sessions left open by a crash or power loss are closed from their recorded seconds.
    public init(path: String?) throws {
        writer = try openDatabase(path: path)
        try Self.migrator.migrate(writer)
        try recoverOpenSessions()
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try SessionTables.create(in: db)
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2-energy") { db in
            try SessionTables.addEnergy(in: db)
        }
        return migrator
    }

    // MARK: Identity and settings

    /// The band's identity, made on first use.
    public func identity(defaultName: String) throws -> BandIdentity {
        if let known = knownIdentity.withLock({ $0 }) { return known }
        let identity = try writer.write { db in
            if let id = try Self.setting(db, "band_id"), let name = try Self.setting(db, "band_name") {
                return BandIdentity(id: id, name: name)
            }
            let identity = BandIdentity(id: UUID().uuidString.lowercased(), name: defaultName)
            try Self.setSetting(db, "band_id", identity.id)
            try Self.setSetting(db, "band_name", identity.name)
            return identity
        }
        knownIdentity.withLock { $0 = identity }
        return identity
    }

    public func loadCalibration() throws -> Calibration? {
        try writer.read { db in
            guard let text = try Self.setting(db, "calibration") else { return nil }
            return try? JSONDecoder().decode(Calibration.self, from: Data(text.utf8))
        }
    }

    public func saveCalibration(_ calibration: Calibration) throws {
        let text = String(decoding: try JSONEncoder().encode(calibration), as: UTF8.self)
        try writer.write { db in try Self.setSetting(db, "calibration", text) }
    }

    public func loadReductionPercent() throws -> Int? {
        try writer.read { db in try Self.setting(db, "reduction_percent").flatMap { Int($0) } }
    }

    public func saveReductionPercent(_ percent: Int) throws {
        try writer.write { db in try Self.setSetting(db, "reduction_percent", String(percent)) }
    }

    private static func setting(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
    }

    private static func setSetting(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", arguments: [key, value])
    }

    // MARK: Recording

    /// Starts a session row; returns its id.
    public func beginSession(kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters) throws -> Int64 {
        try writer.write { db in
            try SessionTables.insertSession(db, kind: kind, startUnixSeconds: startUnixSeconds, parameters: parameters)
        }
    }

    /// Stores one second of a session under way.
    public func appendSecond(sessionID: Int64, _ row: SessionSecond) throws {
        try writer.write { db in try SessionTables.insertSecond(db, sessionID: sessionID, row) }
    }

    /// Closes a session with its summary.
    public func endSession(sessionID: Int64, summary: SessionSummary) throws {
        try writer.write { db in try SessionTables.writeSummary(db, sessionID: sessionID, summary: summary) }
    }

    /// Closes sessions a crash left open, with totals made from the seconds they recorded.
    /// Returns how many were closed.
    @discardableResult
    public func recoverOpenSessions() throws -> Int {
        try writer.write { db in
            let open = try Row.fetchAll(db, sql: "SELECT * FROM session WHERE end_unix IS NULL")
            for row in open {
                let id: Int64 = row["id"]
                let seconds = try SessionTables.seconds(db, sessionID: id)
                let start: Double = row["start_unix"]
                let kind = SessionKind(rawValue: row["kind"]) ?? .mindfulWalk
                let end = start + Double((seconds.last?.offsetSeconds ?? -1) + 1)
                let summary = SessionTally(seconds).summary(kind: kind, startUnixSeconds: start, endUnixSeconds: end, parameters: SessionTables.parameters(from: row))
                try SessionTables.writeSummary(db, sessionID: id, summary: summary)
            }
            return open.count
        }
    }

    // MARK: Reading

    /// Finished sessions with an id above `afterID` (all when nil), oldest first.
    public func finishedSessions(afterID: Int64? = nil) throws -> [SessionListing] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM session WHERE end_unix IS NOT NULL AND id > ? ORDER BY id", arguments: [afterID ?? 0])
                .compactMap { row in SessionTables.summary(from: row).map { SessionListing(id: row["id"], summary: $0) } }
        }
    }

    /// A finished session with its seconds.
    public func session(id: Int64) throws -> SessionRecord? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [id]),
                  let summary = SessionTables.summary(from: row) else { return nil }
            return SessionRecord(summary: summary, seconds: try SessionTables.seconds(db, sessionID: id))
        }
    }
}

extension BandStore: SessionProvider {
    /// The identity made at the band's first start (named then from its board file).
    public func bandIdentity() throws -> (id: String, name: String) {
        let identity = try identity(defaultName: "Amble band")
        return (identity.id, identity.name)
    }
}
