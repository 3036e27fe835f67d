import AmbleModel
import AmbleStoreSupport
import AmbleSync
import GRDB
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
}

/// The laptop's store: sessions pulled from any number of bands, each kept once.
/// One SQLite file; a session and its seconds are written in one transaction.
public final class CompanionStore: Sendable {
    private let writer: any DatabaseWriter

    /// Opens (creating if needed) the store at `path`; nil gives an in-memory store (tests).
    public init(path: String?) throws {
        writer = try openDatabase(path: path)
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "band") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("last_sync_unix", .double)
            }
            try SessionTables.create(in: db) { t in
                t.column("band_id", .text).notNull().references("band")
                t.column("band_session_id", .integer).notNull()
                t.uniqueKey(["band_id", "band_session_id"])
            }
        }
        migrator.registerMigration("v2-energy") { db in
            try SessionTables.addEnergy(in: db)
        }
        return migrator
    }

    /// The band session ids already stored for `bandID`.
    public func storedBandSessionIDs(bandID: String) throws -> Set<Int64> {
        try writer.read { db in
            Set(try Int64.fetchAll(db, sql: "SELECT band_session_id FROM session WHERE band_id = ?", arguments: [bandID]))
        }
    }

    /// Stores a session pulled from a band. Returns its new id, or nil if it was already stored.
    @discardableResult
    public func insert(bandID: String, bandName: String, bandSessionID: Int64, record: SessionRecord, syncedAtUnixSeconds: Double) throws -> Int64? {
        try writer.write { db in
            try db.execute(sql: """
                INSERT INTO band (id, name, last_sync_unix) VALUES (?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, last_sync_unix = excluded.last_sync_unix
                """, arguments: [bandID, bandName, syncedAtUnixSeconds])
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM session WHERE band_id = ? AND band_session_id = ?", arguments: [bandID, bandSessionID]) == true {
                return nil
            }
            let summary = record.summary
            let id = try SessionTables.insertSession(db, kind: summary.kind, startUnixSeconds: summary.startUnixSeconds, parameters: summary.parameters,
                                                     extra: ["band_id": bandID, "band_session_id": bandSessionID])
            try SessionTables.writeSummary(db, sessionID: id, summary: summary)
            for second in record.seconds {
                try SessionTables.insertSecond(db, sessionID: id, second)
            }
            return id
        }
    }

    /// Every session, oldest first.
    public func sessions() throws -> [CompanionSession] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT session.*, band.name AS band_name FROM session JOIN band ON band.id = session.band_id ORDER BY start_unix, session.id")
                .compactMap(Self.companionSession)
        }
    }

    public func session(id: Int64) throws -> (CompanionSession, [SessionSecond])? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT session.*, band.name AS band_name FROM session JOIN band ON band.id = session.band_id WHERE session.id = ?", arguments: [id]),
                  let session = Self.companionSession(row) else { return nil }
            return (session, try SessionTables.seconds(db, sessionID: id))
        }
    }

    /// The session that started last.
    public func latestSessionID() throws -> Int64? {
        try writer.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM session ORDER BY start_unix DESC, id DESC LIMIT 1") }
    }

    private static func companionSession(_ row: Row) -> CompanionSession? {
        guard let summary = SessionTables.summary(from: row) else { return nil }
        return CompanionSession(id: row["id"], bandID: row["band_id"], bandName: row["band_name"], bandSessionID: row["band_session_id"], summary: summary)
    }
}

extension CompanionStore: SessionSink {
    /// Keeps a session pulled by `Synchronizer`, stamped with the time now.
    public func store(bandID: String, bandName: String, bandSessionID: Int64, record: SessionRecord) throws -> Int64? {
        try insert(bandID: bandID, bandName: bandName, bandSessionID: bandSessionID, record: record, syncedAtUnixSeconds: Date().timeIntervalSince1970)
    }
}
