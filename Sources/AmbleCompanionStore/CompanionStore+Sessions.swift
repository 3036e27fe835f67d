import AmbleModel
import AmbleStoreSupport
import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and deleting the laptop's sessions.
extension CompanionStore {
    // MARK: Reading

    /// Every session, oldest first.
    public func sessions() throws -> [CompanionSession] {
        try writer.read { db in
            try Row.fetchAll(db, sql: Self.sessionsWithBandName + #" ORDER BY "session"."start_unix", "session"."id""#)
                .compactMap(Self.companionSession)
        }
    }

    /// A session with its seconds.
    public func session(id: Int64) throws -> (CompanionSession, [SessionSecond])? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: Self.sessionsWithBandName + #" WHERE "session"."id" = ?"#, arguments: [id]),
                  let session = try Self.companionSession(row) else { return nil }
            return (session, try SecondRow.seconds(db, sessionID: id))
        }
    }

    /// A session's raw sensor samples, blocks in time order per sensor (empty when the band
    /// captured none: `consent_raw_capture` was off).
    public func rawBlocks(sessionID: Int64) throws -> [RawBlock] {
        try writer.read { db in try RawBlockTable.blocks(db, sessionID: sessionID) }
    }

    /// Raw samples per sensor a session holds (none when it has none).
    public func rawSampleCounts(sessionID: Int64) throws -> [RawSensor: Int] {
        try writer.read { db in try RawBlockTable.counts(db, sessionID: sessionID).samples }
    }

    /// The session that started last.
    public func latestSessionID() throws -> Int64? {
        try writer.read { db in
            try Int64.fetchOne(db, sql: #"SELECT "id" FROM "session" ORDER BY "start_unix" DESC, "id" DESC LIMIT 1"#)
        }
    }

    /// The sessions with these ids, in the order given; throws
    /// `CompanionStoreError.unknownSessions` naming every id not in the store.
    public func sessions(ids: [Int64]) throws -> [CompanionSession] {
        try writer.read { db in try Self.sessions(db, ids: ids) }
    }

    // MARK: Deleting

    /// Deletes these sessions (their seconds and raw samples with them), all or none: when an
    /// id is not in the store nothing is deleted and `CompanionStoreError.unknownSessions`
    /// names the missing ones. Returns what was deleted. The bands' sync cursors stay, so a
    /// later sync does not pull a deleted session again.
    @discardableResult
    public func deleteSessions(ids: [Int64]) throws -> [CompanionSession] {
        try writer.write { db in
            let sessions = try Self.sessions(db, ids: ids)
            for session in sessions { try SessionRow.deleteOne(db, key: session.id) }
            return sessions
        }
    }

    /// Deletes every session (with their seconds and raw samples) and every partial download.
    /// The laptop's key, the paired bands and their sync cursors stay: syncing goes on with the
    /// sessions recorded after. Returns how many sessions were deleted.
    @discardableResult
    public func deleteAllSessions() throws -> Int {
        try writer.write { db in
            try db.execute(sql: #"DELETE FROM "session""#)
            let count = db.changesCount
            try db.execute(sql: #"DELETE FROM "partial_download""#)
            return count
        }
    }
}
