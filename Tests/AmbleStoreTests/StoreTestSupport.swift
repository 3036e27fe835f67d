import AmbleModel
import Foundation
import AmbleSQLite

func walkParameters() -> SessionParameters {
    SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
}

func rows(_ count: Int, cadence: Double = 90, overFrom: Int = .max) -> [SessionSecond] {
    (0..<count).map { i in
        SessionSecond(offsetSeconds: i, steps: i % 2 == 0 ? 2 : 1, cadenceStepsPerMinute: cadence, heartRateBPM: i % 5 == 0 ? nil : 80 + Double(i % 3),
                      heartRateConfidence: i % 5 == 0 ? nil : 0.8, overLimit: i >= overFrom, alerts: overFrom < count && i == overFrom + 2 ? 1 : 0)
    }
}

/// A database file in the temporary folder, removed with its WAL and shared-memory files when
/// the test is done.
final class TemporaryDatabase {
    let path = NSTemporaryDirectory() + "amble-store-test-\(UUID().uuidString).sqlite"

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Runs `body` on a plain connection to the file (no store code in between).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try DatabaseQueue(path: path).read(body)
    }

    func write(_ body: (Database) throws -> Void) throws {
        try DatabaseQueue(path: path).write(body)
    }
}

// MARK: Databases made by earlier builds (Fixtures/README.md)

/// A fixture's SQL: a database as the build that shipped a schema version made and filled it.
func fixtureSQL(_ name: String) throws -> String {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    return try String(contentsOf: folder.appendingPathComponent(name + ".sql"), encoding: .utf8)
}

/// The fixture's rows only (its INSERT statements and the AUTOINCREMENT counter), without its
/// tables and its migration records: what that build wrote into its tables.
func fixtureRowsSQL(_ name: String) throws -> String {
    try fixtureSQL(name).split(separator: "\n")
        .filter { ($0.hasPrefix("INSERT INTO") || $0.hasPrefix("DELETE FROM")) && !$0.hasPrefix(#"INSERT INTO "grdb_migrations""#) }
        .joined(separator: "\n")
}

/// Writes the fixture's database into the file at `path`.
func loadFixture(_ name: String, into path: String) throws {
    let sql = try fixtureSQL(name)
    try DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: sql) }
}

/// The schema as SQLite keeps it: each table's and index's type, name, table and SQL (runs of
/// white space made one space, none inside parentheses), by name. GRDB's own
/// `grdb_migrations` is left out.
func schema(_ db: Database) throws -> [String] {
    try Row.fetchAll(db, sql: """
        SELECT "type", "name", "tbl_name", "sql" FROM "sqlite_master"
        WHERE "tbl_name" != 'grdb_migrations' ORDER BY "name"
        """).map { row in
        let sql: String? = row["sql"]
        return "\(row["type"] as String) \(row["name"] as String) on \(row["tbl_name"] as String): \(sql.map(normalisedSQL) ?? "-")"
    }
}

func normalisedSQL(_ sql: String) -> String {
    sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        .replacingOccurrences(of: "( ", with: "(")
        .replacingOccurrences(of: " )", with: ")")
}

/// The migrations a database records, in the order they ran.
func recordedMigrations(_ db: Database) throws -> [String] {
    try String.fetchAll(db, sql: #"SELECT "identifier" FROM "grdb_migrations" ORDER BY rowid"#)
}

/// Every row of each table the database had at `version`, with only the columns it had then:
/// compared before and after an upgrade, it shows that nothing was lost or changed.
func contents(_ db: Database, tables: [String: [String]]) throws -> [String: [Row]] {
    var contents: [String: [Row]] = [:]
    for (table, columns) in tables {
        let selected = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        contents[table] = try Row.fetchAll(db, sql: "SELECT \(selected) FROM \"\(table)\" ORDER BY rowid")
    }
    return contents
}

/// Each table's columns, by table (`sqlite_sequence` and `grdb_migrations` left out).
func columnsByTable(_ db: Database) throws -> [String: [String]] {
    var columns: [String: [String]] = [:]
    let tables = try String.fetchAll(db, sql: """
        SELECT "name" FROM "sqlite_master" WHERE "type" = 'table' AND "name" NOT IN ('sqlite_sequence', 'grdb_migrations')
        """)
    for table in tables { columns[table] = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table]) }
    return columns
}

/// The seconds the fixtures' scratch program recorded (Fixtures/README.md), made the same way.
func fixtureSeconds(_ count: Int, cadence: Double, overFrom: Int = 1000) -> [SessionSecond] {
    (0..<count).map { i in
        SessionSecond(offsetSeconds: i, steps: i % 3 == 0 ? 1 : 2, cadenceStepsPerMinute: cadence + Double(i % 4) * 0.25,
                      heartRateBPM: i % 4 == 0 ? nil : 92.5 + Double(i), heartRateConfidence: i % 4 == 0 ? nil : 0.875,
                      overLimit: i >= overFrom, alerts: i == overFrom + 1 ? 1 : 0,
                      accelerometerGap: i == 5, heartRateGap: i % 4 == 0)
    }
}

/// The sessions the fixtures' scratch program stored: a calibration and a mindful walk (with
/// active energy from v2-energy on), as their summaries and seconds.
struct FixtureSessions {
    static let start = 1_763_800_000.0
    static let calibrationParameters = SessionParameters(stepLengthMeters: 0.72)
    static let walkParameters = SessionParameters(calibratedCadenceStepsPerMinute: 112.5, reductionPercent: 20,
                                                  limitCadenceStepsPerMinute: 90, stepLengthMeters: 0.72)
    let calibration: SessionRecord
    let walk: SessionRecord

    init(withEnergy: Bool) {
        let calibrationSeconds = fixtureSeconds(6, cadence: 112)
        let walkSeconds = fixtureSeconds(8, cadence: 88, overFrom: 5)
        var calibrationSummary = SessionTally(calibrationSeconds).summary(
            kind: .calibration, startUnixSeconds: Self.start, endUnixSeconds: Self.start + 6,
            parameters: Self.calibrationParameters, measuredCadenceStepsPerMinute: 112.5)
        var walkSummary = SessionTally(walkSeconds).summary(
            kind: .mindfulWalk, startUnixSeconds: Self.start + 3600, endUnixSeconds: Self.start + 3608,
            parameters: Self.walkParameters, rmssdMilliseconds: 41.25)
        walkSummary.activeKilocalories = withEnergy ? 3.75 : nil
        // Builds before v4-practice kept no maximum heart rate or walking seconds.
        calibrationSummary.maximumHeartRateBPM = nil
        calibrationSummary.walkingSeconds = nil
        walkSummary.maximumHeartRateBPM = nil
        walkSummary.walkingSeconds = nil
        calibration = SessionRecord(summary: calibrationSummary, seconds: calibrationSeconds)
        walk = SessionRecord(summary: walkSummary, seconds: walkSeconds)
    }
}
