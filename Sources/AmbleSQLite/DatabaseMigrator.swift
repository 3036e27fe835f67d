/// Migrations by identifier, applied in the order registered, each once. What has been applied
/// is recorded where GRDB's `DatabaseMigrator` (which the stores used up to 0.x) recorded it,
/// in `grdb_migrations (identifier)`, and the same way: each migration runs in its own
/// transaction with its identifier inserted, foreign keys off while it runs and checked
/// (`PRAGMA foreign_key_check`) before it commits. A store made by a build on GRDB goes on
/// upgrading from where it stands.
public struct DatabaseMigrator {
    private var migrations: [(identifier: String, migrate: (Database) throws -> Void)] = []

    public init() {}

    public mutating func registerMigration(_ identifier: String, migrate: @escaping (Database) throws -> Void) {
        precondition(!migrations.contains { $0.identifier == identifier }, "migration \(identifier) registered twice")
        migrations.append((identifier, migrate))
    }

    public var identifiers: [String] { migrations.map(\.identifier) }

    /// Applies every migration not applied yet.
    public func migrate(_ queue: DatabaseQueue) throws {
        guard let last = migrations.last else { return }
        try migrate(queue, upTo: last.identifier)
    }

    /// Applies the migrations not applied yet, up to `target` included.
    public func migrate(_ queue: DatabaseQueue, upTo target: String) throws {
        guard let end = migrations.firstIndex(where: { $0.identifier == target }) else {
            preconditionFailure("no migration \(target)")
        }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            let applied = try appliedIdentifiers(db)
            for migration in migrations[...end] where !applied.contains(migration.identifier) {
                try run(migration, in: db)
            }
        }
    }

    private func run(_ migration: (identifier: String, migrate: (Database) throws -> Void), in db: Database) throws {
        let foreignKeys = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        if foreignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        defer { if foreignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
        try db.inTransaction(immediate: true) {
            try migration.migrate(db)
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
            if foreignKeys, let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                throw DatabaseError(extendedCode: 787,   // SQLITE_CONSTRAINT_FOREIGNKEY
                                    message: "migration \(migration.identifier) leaves a row of \(violation.values[0]) without its parent",
                                    sql: "PRAGMA foreign_key_check")
            }
        }
    }

    /// The identifiers recorded as applied (those of other migrators included); none when the
    /// table is not there.
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        let exists = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") ?? 0
        guard exists > 0 else { return [] }
        return try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
    }

    /// Whether every registered migration has been applied.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        return migrations.allSatisfy { applied.contains($0.identifier) }
    }
}
