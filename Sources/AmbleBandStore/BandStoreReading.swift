import AmbleModel
import AmbleStoreSupport
import AmbleSQLite
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading the sessions (for review and sync) and checking the file: the half of `BandStore`
/// that only reads, apart so that each file stays under 600 lines.
extension BandStore {
    // MARK: Reading and sync

    /// Every session's id, finished or still open (being recorded), oldest first.
    public func sessionIDs() throws -> [Int64] {
        try writer.read { db in try Int64.fetchAll(db, sql: #"SELECT "id" FROM "session" ORDER BY "id""#) }
    }

    /// Sessions still being recorded (not ended), oldest first, at most `limit`: their id,
    /// kind, start and the seconds stored so far.
    public func openSessions(limit: Int = 8) throws -> [(id: Int64, kind: String, startUnixSeconds: Double, recordedSeconds: Int)] {
        try writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT "session"."id", "kind", "start_unix",
                       (SELECT COUNT(*) FROM "session_second" WHERE "session_id" = "session"."id") AS "recorded"
                FROM "session" WHERE "end_unix" IS NULL ORDER BY "id" LIMIT ?
                """, arguments: [limit])
                .map { (id: $0[0], kind: $0[1], startUnixSeconds: $0[2], recordedSeconds: $0[3]) }
        }
    }

    /// Finished sessions with an id above `afterID` (all when nil), oldest first, at most `limit`.
    public func finishedSessions(afterID: Int64? = nil, limit: Int = .max) throws -> [StoredSession] {
        try writer.read { db in
            try SessionRow.fetchAll(db, sql: #"SELECT * FROM "session" WHERE "end_unix" IS NOT NULL AND "id" > ? ORDER BY "id" LIMIT ?"#,
                                    arguments: [afterID ?? 0, limit])
                .compactMap { row in row.summary.map { StoredSession(id: row.id!, summary: $0, syncedUnixSeconds: row.syncedUnix) } }
        }
    }

    /// A finished session with its seconds and raw samples.
    public func session(id: Int64) throws -> SessionRecord? {
        try writer.read { db in
            guard let row = try SessionRow.fetchOne(db, key: id), let summary = row.summary else { return nil }
            return SessionRecord(summary: summary, seconds: try SecondRow.seconds(db, sessionID: id), raw: try RawBlockTable.blocks(db, sessionID: id))
        }
    }

    /// Marks a finished session synced (a laptop committed it). Returns false when there is no
    /// such finished session.
    @discardableResult
    public func markSynced(id: Int64, atUnixSeconds now: Double) throws -> Bool {
        try writer.write { db in
            guard var row = try SessionRow.fetchOne(db, key: id), row.endUnix != nil else { return false }
            if row.syncedUnix == nil {
                row.syncedUnix = now
                try row.update(db)
            }
            return true
        }
    }

    /// A finished session's data as the sync link sends it (compact and compressed; the band
    /// encodes it once, when the session ends), with its length and CRC-32.
    public func sessionData(id: Int64) throws -> (bytes: [UInt8], crc32: UInt32)? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: #"SELECT "bytes", "crc32" FROM "session_data" WHERE "session_id" = ?"#, arguments: [id])
            else { return nil }
            return ([UInt8](row["bytes"] as Data), UInt32(truncatingIfNeeded: row["crc32"] as Int64))
        }
    }

    /// Length and CRC-32 of the data of each of `ids` that has it.
    public func sessionDataSizes(ids: [Int64]) throws -> [Int64: (length: Int, crc32: UInt32)] {
        try writer.read { db in
            var sizes: [Int64: (Int, UInt32)] = [:]
            let rows = try Row.fetchCursor(db, sql: #"SELECT "session_id", length("bytes") AS "length", "crc32" FROM "session_data" WHERE "session_id" IN (SELECT value FROM json_each(?))"#,
                                           arguments: [String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)])
            while let row = try rows.next() {
                sizes[row["session_id"]] = (row["length"], UInt32(truncatingIfNeeded: row["crc32"] as Int64))
            }
            return sizes
        }
    }

    /// Keeps a finished session's encoded data.
    public func setSessionData(id: Int64, bytes: [UInt8], crc32: UInt32) throws {
        try writer.write { db in
            try db.execute(sql: #"INSERT OR REPLACE INTO "session_data" ("session_id", "bytes", "crc32") VALUES (?, ?, ?)"#,
                           arguments: [id, Data(bytes), Int64(crc32)])
        }
    }

    /// Finished sessions whose data is not encoded yet (made by an older build, or closed by
    /// crash recovery), or encoded in a version not among `versions` (the data's first byte;
    /// nil takes any), oldest first.
    public func sessionsWithoutData(versions: [UInt8]? = nil) throws -> [Int64] {
        try writer.read { db in
            try Int64.fetchAll(db, sql: """
                SELECT "id" FROM "session" WHERE "end_unix" IS NOT NULL
                AND "id" NOT IN (SELECT "session_id" FROM "session_data" WHERE ? IS NULL
                                 OR hex(substr("bytes", 1, 1)) IN (SELECT printf('%02X', value) FROM json_each(?)))
                ORDER BY "id"
                """, arguments: [versions == nil ? nil : 1, String(decoding: try JSONEncoder().encode((versions ?? []).map { Int($0) }), as: UTF8.self)])
        }
    }

    /// Seconds recorded in all sessions stored (what the board's `max_session_hours` limits).
    public func recordedSeconds() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "session_second""#) ?? 0 }
    }

    /// Copies the write-ahead log into the file and empties it (`wal_checkpoint(TRUNCATE)`):
    /// after room was made in a full store, the log gives its space back to the disk. Fails
    /// when the file would have to grow and the disk has no room.
    public func emptyLog() throws {
        try writer.writeWithoutTransaction { db in try db.checkpoint(truncate: true) }
    }

    // MARK: Checks

    /// SQLite's check of the whole file's structure (`PRAGMA quick_check`: every page of every
    /// table and index read once): the problems it finds, at most `limit`; none when the file
    /// is sound. It does not read inside values: a changed bit in session data is found by
    /// `sessionsWithDamagedData`.
    public func quickCheck(limit: Int = 10) throws -> [String] {
        try writer.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(\(max(1, limit)))").filter { $0 != "ok" } }
    }

    /// Sessions whose stored data no longer matches the CRC-32 kept with it (`checksum` makes
    /// one), or cannot be read: changed on the card since the band encoded it. Oldest first;
    /// one session's data in memory at a time.
    public func sessionsWithDamagedData(checksum: ([UInt8]) -> UInt32) throws -> [Int64] {
        let ids = try writer.read { db in try Int64.fetchAll(db, sql: #"SELECT "session_id" FROM "session_data" ORDER BY "session_id""#) }
        return ids.filter { id in
            do {
                guard let data = try sessionData(id: id) else { return false }
                return checksum(data.bytes) != data.crc32
            } catch {
                return true
            }
        }
    }

    /// Removes synced sessions older than `retentionDays` (by their end; none by age when nil),
    /// and then, while the seconds stored exceed `maximumSeconds`, the oldest synced ones. A
    /// session not synced is never removed. Returns the ids removed.
    @discardableResult
    public func prune(nowUnixSeconds now: Double, retentionDays: Int?, maximumSeconds: Int = .max) throws -> [Int64] {
        try writer.write { db in
            var removed: [Int64] = []
            if let retentionDays {
                let cutoff = now - Double(retentionDays) * 86_400
                let old = try Int64.fetchAll(db, sql: #"SELECT "id" FROM "session" WHERE "synced_unix" IS NOT NULL AND "end_unix" < ? ORDER BY "id""#,
                                             arguments: [cutoff])
                for id in old { _ = try SessionRow.deleteOne(db, key: id) }
                removed += old
            }
            var stored = try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "session_second""#) ?? 0
            while stored > maximumSeconds,
                  let id = try Int64.fetchOne(db, sql: #"SELECT "id" FROM "session" WHERE "synced_unix" IS NOT NULL ORDER BY "id" LIMIT 1"#) {
                let count = try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "session_second" WHERE "session_id" = ?"#, arguments: [id]) ?? 0
                _ = try SessionRow.deleteOne(db, key: id)
                removed.append(id)
                stored -= count
            }
            return removed
        }
    }

    /// Removes every session, the calibration, the settings and the paired laptops: the band
    /// as new (its identity and key stay, so that it can be paired again).
    public func deleteEverything() throws {
        try writer.write { db in
            try db.execute(sql: """
                DELETE FROM "session_data"; DELETE FROM "session_raw_block"; DELETE FROM "session_second"; DELETE FROM "session"; DELETE FROM "paired_laptop";
                DELETE FROM "calibration"; DELETE FROM "setting" WHERE "key" NOT IN ('band_id', 'clock_offset_s');
                """)
        }
        knownIdentity.withLock { $0 = nil }
    }
}
