import AmbleModel
import GRDB

/// The `session` and `session_second` tables, shared by the band's and the laptop's stores.
///
/// A session row holds its summary in columns (so lists and studies can query them); its
/// seconds live in `session_second`, deleted with it. `end_unix` is NULL while a session is
/// being recorded on the band.
public enum SessionTables {
    /// Creates both tables. `extraColumns` adds store-specific columns to `session`
    /// (the laptop records which band a session came from).
    public static func create(in db: Database, extraColumns: (TableDefinition) -> Void = { _ in }) throws {
        try db.create(table: "session") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("kind", .text).notNull().check { ["calibration", "mindful-walk"].contains($0) }
            t.column("start_unix", .double).notNull()
            t.column("end_unix", .double)
            t.column("steps", .integer).notNull().defaults(to: 0)
            t.column("distance_m", .double).notNull().defaults(to: 0)
            t.column("avg_hr_bpm", .double)
            t.column("alerts", .integer).notNull().defaults(to: 0)
            t.column("time_over_limit_s", .integer).notNull().defaults(to: 0)
            t.column("gap_s", .integer).notNull().defaults(to: 0)
            t.column("rmssd_ms", .double)
            t.column("measured_cadence_spm", .double)
            t.column("calibrated_cadence_spm", .double)
            t.column("reduction_percent", .integer)
            t.column("limit_cadence_spm", .double)
            t.column("step_length_m", .double).notNull()
            extraColumns(t)
        }
        try db.create(table: "session_second") { t in
            t.column("session_id", .integer).notNull().references("session", onDelete: .cascade)
            t.column("offset_s", .integer).notNull()
            t.column("steps", .integer).notNull()
            t.column("cadence_spm", .double).notNull()
            t.column("hr_bpm", .double)
            t.column("hr_confidence", .double)
            t.column("over_limit", .boolean).notNull()
            t.column("alerts", .integer).notNull()
            t.column("accelerometer_gap", .boolean).notNull()
            t.column("hr_gap", .boolean).notNull()
            t.primaryKey(["session_id", "offset_s"])
        }
    }

    /// The second version of the session table: active energy (kcal).
    public static func addEnergy(in db: Database) throws {
        try db.alter(table: "session") { t in t.add(column: "active_kcal", .double) }
    }

    /// Inserts a session's parameters and start; returns its id.
    public static func insertSession(_ db: Database, kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters, extra: [String: (any DatabaseValueConvertible)?] = [:]) throws -> Int64 {
        var columns: [String: (any DatabaseValueConvertible)?] = [
            "kind": kind.rawValue, "start_unix": startUnixSeconds,
            "calibrated_cadence_spm": parameters.calibratedCadenceStepsPerMinute,
            "reduction_percent": parameters.reductionPercent,
            "limit_cadence_spm": parameters.limitCadenceStepsPerMinute,
            "step_length_m": parameters.stepLengthMeters,
        ]
        columns.merge(extra) { a, _ in a }
        let names = columns.keys.sorted()
        let sql = "INSERT INTO session (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        try db.execute(sql: sql, arguments: StatementArguments(names.map { columns[$0]! }))
        return db.lastInsertedRowID
    }

    /// Writes a summary's totals and end into an existing session row.
    public static func writeSummary(_ db: Database, sessionID: Int64, summary: SessionSummary) throws {
        try db.execute(sql: """
            UPDATE session SET end_unix = ?, steps = ?, distance_m = ?, avg_hr_bpm = ?, alerts = ?,
              time_over_limit_s = ?, gap_s = ?, rmssd_ms = ?, measured_cadence_spm = ?, step_length_m = ?, active_kcal = ?
            WHERE id = ?
            """, arguments: [summary.endUnixSeconds, summary.steps, summary.distanceMeters, summary.averageHeartRateBPM,
                             summary.alerts, summary.timeOverLimitSeconds, summary.gapSeconds, summary.rmssdMilliseconds,
                             summary.measuredCadenceStepsPerMinute, summary.parameters.stepLengthMeters, summary.activeKilocalories, sessionID])
    }

    public static func insertSecond(_ db: Database, sessionID: Int64, _ row: SessionSecond) throws {
        try db.execute(sql: """
            INSERT INTO session_second (session_id, offset_s, steps, cadence_spm, hr_bpm, hr_confidence,
              over_limit, alerts, accelerometer_gap, hr_gap) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [sessionID, row.offsetSeconds, row.steps, row.cadenceStepsPerMinute, row.heartRateBPM,
                             row.heartRateConfidence, row.overLimit, row.alerts, row.accelerometerGap, row.heartRateGap])
    }

    public static func seconds(_ db: Database, sessionID: Int64) throws -> [SessionSecond] {
        try Row.fetchAll(db, sql: "SELECT * FROM session_second WHERE session_id = ? ORDER BY offset_s", arguments: [sessionID]).map { row in
            SessionSecond(offsetSeconds: row["offset_s"], steps: row["steps"], cadenceStepsPerMinute: row["cadence_spm"],
                          heartRateBPM: row["hr_bpm"], heartRateConfidence: row["hr_confidence"], overLimit: row["over_limit"],
                          alerts: row["alerts"], accelerometerGap: row["accelerometer_gap"], heartRateGap: row["hr_gap"])
        }
    }

    /// The summary of a finished session row (nil while it is still being recorded).
    public static func summary(from row: Row) -> SessionSummary? {
        guard let end: Double = row["end_unix"], let kind = SessionKind(rawValue: row["kind"]) else { return nil }
        let parameters = SessionParameters(
            calibratedCadenceStepsPerMinute: row["calibrated_cadence_spm"], reductionPercent: row["reduction_percent"],
            limitCadenceStepsPerMinute: row["limit_cadence_spm"], stepLengthMeters: row["step_length_m"])
        return SessionSummary(
            kind: kind, startUnixSeconds: row["start_unix"], endUnixSeconds: end, parameters: parameters,
            steps: row["steps"], distanceMeters: row["distance_m"], averageHeartRateBPM: row["avg_hr_bpm"],
            alerts: row["alerts"], timeOverLimitSeconds: row["time_over_limit_s"], gapSeconds: row["gap_s"],
            rmssdMilliseconds: row["rmssd_ms"], measuredCadenceStepsPerMinute: row["measured_cadence_spm"],
            activeKilocalories: row["active_kcal"])
    }

    /// The parameters stored with a session row.
    public static func parameters(from row: Row) -> SessionParameters {
        SessionParameters(calibratedCadenceStepsPerMinute: row["calibrated_cadence_spm"], reductionPercent: row["reduction_percent"],
                          limitCadenceStepsPerMinute: row["limit_cadence_spm"], stepLengthMeters: row["step_length_m"])
    }
}

/// Opens a database file with the settings both stores want: WAL (a crash loses at most the
/// transaction under way) and foreign keys on.
public func openDatabase(path: String?) throws -> any DatabaseWriter {
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    configuration.busyMode = .timeout(5)
    guard let path else { return try DatabaseQueue(configuration: configuration) }
    let pool = try DatabasePool(path: path, configuration: configuration)
    return pool
}
