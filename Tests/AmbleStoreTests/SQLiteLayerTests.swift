import AmbleSQLite
import Testing

/// The layer under both stores: what their guarantees rest on (a write is all or nothing, a
/// migration is recorded where GRDB recorded it and only when it committed, errors say what failed).
struct SQLiteLayerTests {
    private func queue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: #"CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "x" INTEGER NOT NULL)"#) }
        return queue
    }

    struct Refused: Error {}

    @Test func aWriteThatThrowsLeavesNothing() throws {
        let queue = try queue()
        #expect(throws: Refused.self) {
            try queue.write { db in
                try db.execute(sql: #"INSERT INTO "t" ("x") VALUES (?), (?)"#, arguments: [1, 2])
                throw Refused()
            }
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "t""#) } == 0)
        try queue.write { db in try db.execute(sql: #"INSERT INTO "t" ("x") VALUES (3)"#) }
        #expect(try queue.read { db in try Int.fetchAll(db, sql: #"SELECT "x" FROM "t""#) } == [3], "the queue writes again")
    }

    @Test func errorsCarrySQLitesCodeMessageAndStatement() throws {
        let queue = try queue()
        let error = try #require(throws: DatabaseError.self) {
            try queue.write { db in try db.execute(sql: #"INSERT INTO "t" ("x") VALUES (NULL)"#) }
        }
        #expect(error.code == DatabaseError.constraint)
        #expect(error.extendedCode == 1299, "SQLITE_CONSTRAINT_NOTNULL")
        #expect(error.message.contains("NOT NULL"))
        #expect(error.sql == #"INSERT INTO "t" ("x") VALUES (NULL)"#)
    }

    @Test func columnsReadAsTheirTypesAndNullAsNil() throws {
        let row = try #require(try DatabaseQueue().read { db in
            try Row.fetchOne(db, sql: "SELECT 7 AS i, 2.5 AS d, 'text' AS s, x'0102' AS b, NULL AS n, 1 AS flag, 3.0 AS whole")
        })
        #expect(row["i"] as Int64 == 7 && row["d"] as Double == 2.5 && row["s"] as String == "text")
        #expect(row["b"] as [UInt8] == [1, 2] && row["flag"] as Bool && row["whole"] as Int == 3)
        #expect((row["n"] as Int?) == nil && (row["d"] as Int?) == nil, "NULL, and 2.5 as an integer, read as nil")
        #expect((row["s"] as Double?) == nil, "text is never a number")
        #expect(row.hasColumn("I") && !row.hasColumn("missing"))
    }

    @Test func migrationsContinueGRDBsTableAndRecordOnlyWhatCommitted() throws {
        let queue = try DatabaseQueue()
        // A database as a GRDB build left it: its table, one migration recorded.
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('v1');
                CREATE TABLE "a" ("id" INTEGER PRIMARY KEY);
                """)
        }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { _ in Issue.record("v1 was applied by the earlier build") }
        migrator.registerMigration("v2") { db in try db.execute(sql: #"CREATE TABLE "b" ("a_id" INTEGER REFERENCES "a"("id"))"#) }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: #"INSERT INTO "b" VALUES (42)"#)   // no row 42 in "a": refused at its end
        }
        #expect(throws: DatabaseError.self) { try migrator.migrate(queue) }
        let recorded = try queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
        #expect(recorded == ["v1", "v2"])
        #expect(try queue.read { db in try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM "b""#) } == 0, "v3 rolled back whole")
        #expect(try queue.read { db in try migrator.hasCompletedMigrations(db) } == false)
        #expect(try queue.read { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") } == true, "foreign keys on again")
    }
}
