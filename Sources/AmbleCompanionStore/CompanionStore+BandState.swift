import AmbleModel
import AmbleSQLite

/// A session a band was still recording when it was last synced: it is not on the laptop yet
/// and comes with the first sync after it ends.
public struct BandRecording: Equatable, Sendable {
    public var bandID: String
    public var bandName: String
    /// The band's id for the session.
    public var bandSessionID: Int64
    /// Its kind as the band spelt it (`SessionKind.rawValue` for the kinds this build knows).
    public var kind: String
    public var startUnixSeconds: Double
    /// Seconds the band had recorded when the sync saw it.
    public var recordedSeconds: Int
    /// When that sync saw it.
    public var seenUnixSeconds: Double

    public init(bandID: String, bandName: String, bandSessionID: Int64, kind: String, startUnixSeconds: Double,
                recordedSeconds: Int, seenUnixSeconds: Double) {
        self.bandID = bandID
        self.bandName = bandName
        self.bandSessionID = bandSessionID
        self.kind = kind
        self.startUnixSeconds = startUnixSeconds
        self.recordedSeconds = recordedSeconds
        self.seenUnixSeconds = seenUnixSeconds
    }
}

/// What the laptop knows of its bands beyond their sessions: what each was recording at its
/// last sync, and the wipes `amble reset` asked for at their next sync.
extension CompanionStore {
    /// Replaces what the store knows of the sessions `bandID` records (nil: the band could
    /// not say, so nothing is known).
    public func setBandRecording(bandID: String, _ recording: [(bandSessionID: Int64, kind: String, startUnixSeconds: Double, recordedSeconds: Int)]?,
                                 seenUnixSeconds: Double) throws {
        try writer.write { db in
            try db.execute(sql: #"DELETE FROM "band_recording" WHERE "band_id" = ?"#, arguments: [bandID])
            for entry in recording ?? [] {
                try db.execute(sql: """
                    INSERT OR REPLACE INTO "band_recording" ("band_id", "band_session_id", "kind", "start_unix", "recorded_s", "seen_unix")
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [bandID, entry.bandSessionID, entry.kind, entry.startUnixSeconds, max(0, entry.recordedSeconds), seenUnixSeconds])
            }
        }
    }

    /// Sessions the bands were recording at their last syncs and that are not in the store
    /// since, oldest first.
    public func bandRecordings() throws -> [BandRecording] {
        try writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT r."band_id", "band"."name", r."band_session_id", r."kind", r."start_unix", r."recorded_s", r."seen_unix"
                FROM "band_recording" r JOIN "band" ON "band"."id" = r."band_id"
                WHERE NOT EXISTS (SELECT 1 FROM "session" s WHERE s."band_id" = r."band_id" AND s."band_session_id" = r."band_session_id")
                ORDER BY r."start_unix", r."band_id"
                """).map {
                BandRecording(bandID: $0[0], bandName: $0[1], bandSessionID: $0[2], kind: $0[3], startUnixSeconds: $0[4],
                              recordedSeconds: $0[5], seenUnixSeconds: $0[6])
            }
        }
    }

    /// Asks for each of these bands to be wiped at its next sync (`amble reset`); a request
    /// already there keeps its time. Unknown band ids are passed over.
    public func requestBandWipe(bandIDs: [String], nowUnixSeconds: Double) throws {
        try writer.write { db in
            for id in bandIDs where try BandRow.fetchOne(db, key: id) != nil {
                try db.execute(sql: #"INSERT OR IGNORE INTO "band_wipe_request" ("band_id", "requested_unix") VALUES (?, ?)"#,
                               arguments: [id, nowUnixSeconds])
            }
        }
    }

    /// When a wipe of this band was asked for, if one waits for its next sync.
    public func bandWipeRequested(bandID: String) throws -> Double? {
        try writer.read { db in
            try Double.fetchOne(db, sql: #"SELECT "requested_unix" FROM "band_wipe_request" WHERE "band_id" = ?"#, arguments: [bandID])
        }
    }

    /// The bands that wait for a wipe at their next sync, by id, with the time it was asked.
    public func bandWipeRequests() throws -> [String: Double] {
        try writer.read { db in
            Dictionary(try Row.fetchAll(db, sql: #"SELECT "band_id", "requested_unix" FROM "band_wipe_request""#).map { ($0[0], $0[1]) },
                       uniquingKeysWith: { a, _ in a })
        }
    }

    /// The wipe was done or the wearer declined it: the next sync does not ask again.
    public func clearBandWipeRequest(bandID: String) throws {
        try writer.write { db in try db.execute(sql: #"DELETE FROM "band_wipe_request" WHERE "band_id" = ?"#, arguments: [bandID]) }
    }
}
