import AmbleModel
import AmbleSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A row of the `session` table, shared by the band's and the laptop's stores: a session's
/// parameters and, once it is finished, its summary. `endUnix` is nil while the band is
/// recording it. The laptop's rows also say which band a session came from; the band's say
/// when a laptop acknowledged it.
public struct SessionRow: Equatable, Sendable {
    public static let databaseTableName = "session"

    public var id: Int64?
    public var kind: String
    public var startUnix: Double
    public var endUnix: Double?
    public var steps: Int
    public var distanceM: Double
    public var avgHrBpm: Double?
    public var alerts: Int
    public var timeOverLimitS: Int
    public var gapS: Int
    public var rmssdMs: Double?
    public var measuredCadenceSpm: Double?
    public var calibratedCadenceSpm: Double?
    public var reductionPercent: Int?
    public var limitCadenceSpm: Double?
    public var stepLengthM: Double
    public var activeKcal: Double?
    /// Since schema v4: the highest heart rate, the seconds walked, the pauses (count, seconds).
    public var maxHrBpm: Double?
    public var walkingS: Int?
    public var pauses: Int
    public var pausedS: Int
    /// Laptop only: the band the session came from and the band's id for it.
    public var bandID: String?
    public var bandSessionID: Int64?
    /// Band only: when a laptop acknowledged it (nil: not synced yet, never pruned).
    public var syncedUnix: Double?

    enum CodingKeys: String, CodingKey {
        case id, kind, steps, alerts
        case startUnix = "start_unix", endUnix = "end_unix", distanceM = "distance_m", avgHrBpm = "avg_hr_bpm"
        case timeOverLimitS = "time_over_limit_s", gapS = "gap_s", rmssdMs = "rmssd_ms"
        case measuredCadenceSpm = "measured_cadence_spm", calibratedCadenceSpm = "calibrated_cadence_spm"
        case reductionPercent = "reduction_percent", limitCadenceSpm = "limit_cadence_spm", stepLengthM = "step_length_m"
        case activeKcal = "active_kcal", bandID = "band_id", bandSessionID = "band_session_id", syncedUnix = "synced_unix"
        case maxHrBpm = "max_hr_bpm", walkingS = "walking_s", pauses, pausedS = "paused_s"
    }

    /// A session just begun: its parameters, no summary yet.
    public init(kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters) {
        self.kind = kind.rawValue
        startUnix = startUnixSeconds
        steps = 0
        distanceM = 0
        alerts = 0
        timeOverLimitS = 0
        gapS = 0
        pauses = 0
        pausedS = 0
        calibratedCadenceSpm = parameters.calibratedCadenceStepsPerMinute
        reductionPercent = parameters.reductionPercent
        limitCadenceSpm = parameters.limitCadenceStepsPerMinute
        stepLengthM = parameters.stepLengthMeters
    }

    /// A finished session from its summary.
    public init(summary: SessionSummary) {
        self.init(kind: summary.kind, startUnixSeconds: summary.startUnixSeconds, parameters: summary.parameters)
        apply(summary)
    }

    /// Writes a summary's totals and end into the row.
    public mutating func apply(_ summary: SessionSummary) {
        endUnix = summary.endUnixSeconds
        steps = summary.steps
        distanceM = summary.distanceMeters
        avgHrBpm = summary.averageHeartRateBPM
        alerts = summary.alerts
        timeOverLimitS = summary.timeOverLimitSeconds
        gapS = summary.gapSeconds
        rmssdMs = summary.rmssdMilliseconds
        measuredCadenceSpm = summary.measuredCadenceStepsPerMinute
        stepLengthM = summary.parameters.stepLengthMeters
        activeKcal = summary.activeKilocalories
        maxHrBpm = summary.maximumHeartRateBPM
        walkingS = summary.walkingSeconds
        pauses = summary.pauses
        pausedS = summary.pausedSeconds
    }

    public var sessionKind: SessionKind { SessionKind(rawValue: kind) ?? .mindfulWalk }

    public var parameters: SessionParameters {
        SessionParameters(calibratedCadenceStepsPerMinute: calibratedCadenceSpm, reductionPercent: reductionPercent,
                          limitCadenceStepsPerMinute: limitCadenceSpm, stepLengthMeters: stepLengthM)
    }

    /// The summary of a finished session (nil while it is still being recorded).
    public var summary: SessionSummary? {
        guard let endUnix else { return nil }
        return SessionSummary(kind: sessionKind, startUnixSeconds: startUnix, endUnixSeconds: endUnix, parameters: parameters,
                              steps: steps, distanceMeters: distanceM, averageHeartRateBPM: avgHrBpm, alerts: alerts,
                              timeOverLimitSeconds: timeOverLimitS, gapSeconds: gapS, rmssdMilliseconds: rmssdMs,
                              measuredCadenceStepsPerMinute: measuredCadenceSpm, activeKilocalories: activeKcal,
                              maximumHeartRateBPM: maxHrBpm, walkingSeconds: walkingS, pauses: pauses, pausedSeconds: pausedS)
    }

    /// The columns the table has and their values: the band's table has no band columns,
    /// the laptop's no `synced_unix`.
    var columnValues: [(String, DatabaseValue)] {
        var values: [(CodingKeys, (any DatabaseValueConvertible)?)] = [
            (.id, id), (.kind, kind), (.startUnix, startUnix), (.endUnix, endUnix), (.steps, steps), (.distanceM, distanceM),
            (.avgHrBpm, avgHrBpm), (.alerts, alerts), (.timeOverLimitS, timeOverLimitS), (.gapS, gapS), (.rmssdMs, rmssdMs),
            (.measuredCadenceSpm, measuredCadenceSpm), (.calibratedCadenceSpm, calibratedCadenceSpm),
            (.reductionPercent, reductionPercent), (.limitCadenceSpm, limitCadenceSpm), (.stepLengthM, stepLengthM),
            (.activeKcal, activeKcal), (.maxHrBpm, maxHrBpm), (.walkingS, walkingS), (.pauses, pauses), (.pausedS, pausedS),
        ]
        if let bandID { values.append((.bandID, bandID)) }
        if let bandSessionID { values.append((.bandSessionID, bandSessionID)) }
        if let syncedUnix { values.append((.syncedUnix, syncedUnix)) }
        return values.map { ($0.0.rawValue, $0.1?.databaseValue ?? .null) }
    }

    /// Inserts the row and sets `id` to the one SQLite gave it.
    public mutating func insert(_ db: Database) throws {
        let columns = columnValues.filter { $0.0 != CodingKeys.id.rawValue || id != nil }
        try db.execute(sql: """
            INSERT INTO "session" (\(columns.map { "\"\($0.0)\"" }.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            """, arguments: StatementArguments(columns.map(\.1)))
        id = db.lastInsertedRowID
    }

    /// Writes every column of the row with this `id`.
    public func update(_ db: Database) throws {
        guard let id else { return }
        let columns = columnValues.filter { $0.0 != CodingKeys.id.rawValue }
        try db.execute(sql: """
            UPDATE "session" SET \(columns.map { "\"\($0.0)\" = ?" }.joined(separator: ", ")) WHERE "id" = ?
            """, arguments: StatementArguments(columns.map(\.1) + [.integer(id)]))
    }

    /// The row with this id.
    public static func fetchOne(_ db: Database, key id: Int64) throws -> SessionRow? {
        try Row.fetchOne(db, sql: #"SELECT * FROM "session" WHERE "id" = ?"#, arguments: [id]).map(SessionRow.init(row:))
    }

    /// The rows `sql` selects (`SELECT * FROM "session" ...`).
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [SessionRow] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map(SessionRow.init(row:))
    }

    /// Deletes the row with this id (its seconds, raw blocks and data with it); false when there was none.
    @discardableResult
    public static func deleteOne(_ db: Database, key id: Int64) throws -> Bool {
        try db.execute(sql: #"DELETE FROM "session" WHERE "id" = ?"#, arguments: [id])
        return db.changesCount > 0
    }

    /// Reads any store's row (columns the table lacks read as nil).
    public init(row: Row) {
        id = row[CodingKeys.id.rawValue]
        kind = row[CodingKeys.kind.rawValue]
        startUnix = row[CodingKeys.startUnix.rawValue]
        endUnix = row[CodingKeys.endUnix.rawValue]
        steps = row[CodingKeys.steps.rawValue]
        distanceM = row[CodingKeys.distanceM.rawValue]
        avgHrBpm = row[CodingKeys.avgHrBpm.rawValue]
        alerts = row[CodingKeys.alerts.rawValue]
        timeOverLimitS = row[CodingKeys.timeOverLimitS.rawValue]
        gapS = row[CodingKeys.gapS.rawValue]
        rmssdMs = row[CodingKeys.rmssdMs.rawValue]
        measuredCadenceSpm = row[CodingKeys.measuredCadenceSpm.rawValue]
        calibratedCadenceSpm = row[CodingKeys.calibratedCadenceSpm.rawValue]
        reductionPercent = row[CodingKeys.reductionPercent.rawValue]
        limitCadenceSpm = row[CodingKeys.limitCadenceSpm.rawValue]
        stepLengthM = row[CodingKeys.stepLengthM.rawValue]
        activeKcal = row.hasColumn(CodingKeys.activeKcal.rawValue) ? row[CodingKeys.activeKcal.rawValue] : nil
        maxHrBpm = row.hasColumn(CodingKeys.maxHrBpm.rawValue) ? row[CodingKeys.maxHrBpm.rawValue] : nil
        walkingS = row.hasColumn(CodingKeys.walkingS.rawValue) ? row[CodingKeys.walkingS.rawValue] : nil
        pauses = row.hasColumn(CodingKeys.pauses.rawValue) ? row[CodingKeys.pauses.rawValue] : 0
        pausedS = row.hasColumn(CodingKeys.pausedS.rawValue) ? row[CodingKeys.pausedS.rawValue] : 0
        bandID = row.hasColumn(CodingKeys.bandID.rawValue) ? row[CodingKeys.bandID.rawValue] : nil
        bandSessionID = row.hasColumn(CodingKeys.bandSessionID.rawValue) ? row[CodingKeys.bandSessionID.rawValue] : nil
        syncedUnix = row.hasColumn(CodingKeys.syncedUnix.rawValue) ? row[CodingKeys.syncedUnix.rawValue] : nil
    }
}

/// A row of `session_second`: one second of a session.
public struct SecondRow: Codable, Equatable, Sendable {
    public static let databaseTableName = "session_second"

    public var sessionID: Int64
    public var offset: Int
    public var steps: Int
    public var cadenceSpm: Double
    public var hrBpm: Double?
    public var hrConfidence: Double?
    public var overLimit: Bool
    public var alerts: Int
    public var accelerometerGap: Bool
    public var hrGap: Bool
    /// Since schema v4.
    public var paused: Bool

    enum CodingKeys: String, CodingKey {
        case steps, alerts
        case sessionID = "session_id", offset = "offset_s", cadenceSpm = "cadence_spm", hrBpm = "hr_bpm"
        case hrConfidence = "hr_confidence", overLimit = "over_limit", accelerometerGap = "accelerometer_gap", hrGap = "hr_gap"
        case paused
    }

    public init(sessionID: Int64, _ second: SessionSecond) {
        self.sessionID = sessionID
        offset = second.offsetSeconds
        steps = second.steps
        cadenceSpm = second.cadenceStepsPerMinute
        hrBpm = second.heartRateBPM
        hrConfidence = second.heartRateConfidence
        overLimit = second.overLimit
        alerts = second.alerts
        accelerometerGap = second.accelerometerGap
        hrGap = second.heartRateGap
        paused = second.paused
    }

    public var second: SessionSecond {
        SessionSecond(offsetSeconds: offset, steps: steps, cadenceStepsPerMinute: cadenceSpm, heartRateBPM: hrBpm,
                      heartRateConfidence: hrConfidence, overLimit: overLimit, alerts: alerts,
                      accelerometerGap: accelerometerGap, heartRateGap: hrGap, paused: paused)
    }

    /// Inserts a whole session's seconds with one prepared statement: a synced hour is 3600
    /// rows, and a record insert each (it builds its SQL and values per row) took 9 us a row,
    /// a third of a sync over TCP.
    public static func insertAll(_ db: Database, sessionID: Int64, _ seconds: [SessionSecond]) throws {
        let columns: [CodingKeys] = [.sessionID, .offset, .steps, .cadenceSpm, .hrBpm, .hrConfidence, .overLimit, .alerts, .accelerometerGap, .hrGap, .paused]
        let statement = try db.cachedStatement(sql: """
            INSERT INTO "\(databaseTableName)" (\(columns.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")))
            VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            """)
        for s in seconds {
            try statement.execute(arguments: [sessionID, s.offsetSeconds, s.steps, s.cadenceStepsPerMinute, s.heartRateBPM, s.heartRateConfidence,
                                              s.overLimit, s.alerts, s.accelerometerGap, s.heartRateGap, s.paused])
        }
    }

    /// A session's seconds, in order.
    public static func seconds(_ db: Database, sessionID: Int64) throws -> [SessionSecond] {
        let rows = try Row.fetchCursor(db, sql: #"SELECT * FROM "session_second" WHERE "session_id" = ? ORDER BY "offset_s""#, arguments: [sessionID])
        var seconds: [SessionSecond] = []
        while let row = try rows.next() {
            seconds.append(SessionSecond(
                offsetSeconds: row["offset_s"], steps: row["steps"], cadenceStepsPerMinute: row["cadence_spm"], heartRateBPM: row["hr_bpm"],
                heartRateConfidence: row["hr_confidence"], overLimit: row["over_limit"], alerts: row["alerts"],
                accelerometerGap: row["accelerometer_gap"], heartRateGap: row["hr_gap"], paused: row.hasColumn("paused") ? row["paused"] : false))
        }
        return seconds
    }
}

/// Opens a database file with the settings both stores want: WAL (a crash loses at most the
/// transaction under way) and foreign keys on. The file and its folder are the wearer's alone
/// (0600 in 0700): sessions and keys are private.
///
/// `readOnly`: one connection that cannot write (SQLite refuses every write through it), for
/// commands that only read; the file must exist. `maximumBytes`: the database never grows
/// past about this size (SQLite's `max_page_count`, not below its size now); a write that
/// would fails as on a full disk (`isStoreFullError`).
///
/// On a full disk SQLite cannot make the shared-memory index of the write-ahead log: the store is then opened as one connection
/// that keeps the index in its own memory (exclusive locking: no other program opens the store
/// meanwhile), which reads everything stored and writes what fits.
public func openDatabase(path: String?, readOnly: Bool = false, maximumBytes: Int? = nil) throws -> DatabaseQueue {
    func configuration(exclusive: Bool = false) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyTimeoutMilliseconds = 5000
        configuration.readonly = readOnly
        configuration.writeAheadLog = true
        if exclusive {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        }
        if let maximumBytes {
            configuration.prepareDatabase { db in
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA max_page_count = \(max(1, maximumBytes / pageSize))")
            }
        }
        return configuration
    }
    /// Opens with `open`, and once more with exclusive locking when the disk is full.
    func opening<Writer>(_ open: (_ configuration: Configuration, _ exclusive: Bool) throws -> Writer) throws -> Writer {
        do {
            return try open(configuration(), false)
        } catch let error as DatabaseError where [DatabaseError.full, DatabaseError.ioError].contains(error.code) {
            return try open(configuration(exclusive: true), true)
        }
    }
    guard let path else { return try DatabaseQueue(configuration: configuration()) }
    try checkStoreFile(path: path)
    do {
        if !readOnly && (storeFileHasData(path: path) || storeFileHasData(path: path + "-wal")) {
            // Another program's database is refused before a writing connection (which sets
            // WAL mode in the file's header) touches it. A new file has nothing to look at.
            // (Read-only, unless the disk is full: such a connection cannot keep the log's
            // index in its memory. This one writes nothing either way.)
            try opening { looking, exclusive in
                var looking = looking
                looking.readonly = !exclusive
                return try DatabaseQueue(path: path, configuration: looking)
            }.read { try refuseForeignDatabase($0, path: path) }
        }
        let writer: DatabaseQueue
        if readOnly {
            writer = try openForReading(path: path, configuration: configuration())
            try writer.read { try refuseForeignDatabase($0, path: path) }
        } else {
            #if canImport(Glibc)
            // New files (the database, its WAL and shared-memory files) are created 0600. The
            // folder is the caller's to make (0700 when it makes it; an existing one is left as it is).
            let previous = umask(0o077)
            defer { umask(previous) }
            #endif
            writer = try opening { configuration, _ in try DatabaseQueue(path: path, configuration: configuration) }
            #if canImport(Glibc)
            for suffix in ["", "-wal", "-shm"] { chmod(path + suffix, 0o600) }
            #endif
        }
        return writer
    } catch let error as DatabaseError {
        throw StoreFileError(path: path, error)
    }
}

/// A read-only connection that writes nothing beside the store, so that a reviewer can read a
/// store they may not write (someone else's, a read-only disk) and a review leaves no `-wal`
/// or `-shm` file behind. SQLite reads a WAL database through its index in the `-shm` file,
/// which a read-only connection creates when it is missing and leaves behind; where it may not
/// create it, the open fails (`SQLITE_READONLY_DIRECTORY`). So (docs/robustness.md):
///
/// - When no other connection has the store open and no `-wal` beside it holds data, the file
///   alone is the store: it is opened `immutable` (no index, no locks, nothing made), while
///   this holds a read lock on SQLite's shared-lock bytes (`StoreReadLock`). That lock keeps a
///   writer that opens meanwhile from folding its log into the file when it closes, which is
///   the one change to the file that a reader without the index would not see coming.
/// - Otherwise (a writer is at work, or a log holds data) the newest data is in the log, and
///   only the index finds it: an ordinary read-only connection, sharing the writer's `-shm`.
///   Where that cannot be made either, the store's log is named with what to do.
private func openForReading(path: String, configuration: Configuration) throws -> DatabaseQueue {
    let logHoldsData = storeFileHasData(path: path + "-wal")
    if !logHoldsData, let lock = StoreReadLock(path: path), !lock.otherConnectionsAreOpen {
        var configuration = configuration
        // The lock lives as long as the connection: its preparation closure holds it.
        configuration.prepareDatabase { _ in withExtendedLifetime(lock) {} }
        return try DatabaseQueue(path: immutableURI(path), configuration: configuration)
    }
    do {
        return try DatabaseQueue(path: path, configuration: configuration)
    } catch let error as DatabaseError where logHoldsData && [DatabaseError.readOnly, DatabaseError.cantOpen].contains(error.code) {
        throw StoreFileError(path: path, problem: .logNeedsIndex)
    }
}

/// The URI that opens `path` immutable (`?`, `#` and `%` in it escaped).
private func immutableURI(_ path: String) -> String {
    var uri = "file:"
    for scalar in path.unicodeScalars {
        switch scalar {
        case "?", "#", "%": uri += "%" + String(UInt8(scalar.value), radix: 16, uppercase: true)
        default: uri.unicodeScalars.append(scalar)
        }
    }
    return uri + "?immutable=1"
}
