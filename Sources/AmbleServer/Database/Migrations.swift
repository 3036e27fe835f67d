import AmbleStudyAPI
import Logging
import PostgresNIO

/// One step of the server's schema. Frozen once shipped: its statements are checksummed into
/// `schema_migrations` when applied, and a server whose shipped migration no longer matches
/// what the database applied refuses to start (`MigrationError.edited`). Change the schema by
/// appending a migration, never by editing one.
public struct Migration: Sendable {
    /// Applied in this order; never reused.
    public var id: String
    /// Each statement is sent alone (the extended protocol takes one statement a query). Only
    /// constant SQL: nothing from outside is ever spliced in.
    public var statements: [String]

    public init(id: String, statements: [String]) {
        self.id = id
        self.statements = statements
    }

    /// SHA-256 of the statements, each followed by a NUL.
    public var checksum: String {
        Digest.sha256Hex(statements.flatMap { Array($0.utf8) + [0] })
    }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    case edited(id: String, applied: String, shipped: String)
    case unknownApplied(id: String)

    public var description: String {
        switch self {
        case let .edited(id, applied, shipped):
            "migration \(id) was applied with checksum \(applied) but this build ships it as \(shipped): a shipped migration was edited. Run the build that applied it, or restore its statements and add the change as a new migration."
        case let .unknownApplied(id):
            "the database has migration \(id) applied, which this build does not know: it was made by a newer amble-server. Run that version (or newer) against it."
        }
    }
}

/// Applies the frozen migrations under a PostgreSQL advisory lock, so that any number of server
/// processes starting at once apply each migration exactly once (the others wait, then find it done).
public enum Migrator {
    /// The advisory lock's key: "amble-mg" as 8 bytes.
    public static let lockKey: Int64 = 0x616D_626C_652D_6D67

    /// Applies what is missing; returns the ids applied now (empty when the schema was current).
    @discardableResult
    public static func migrate(_ client: PostgresClient, migrations: [Migration] = Migrations.all, logger: Logger,
                               afterLock: @Sendable () async -> Void = {}) async throws -> [String] {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                await afterLock()
                let applied = try await apply(migrations, on: connection, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
        }
    }

    private static func apply(_ migrations: [Migration], on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                id text PRIMARY KEY,
                sha256 text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
        var stored: [String: String] = [:]
        for try await (id, sha) in try await connection.query("SELECT id, sha256 FROM schema_migrations", logger: logger)
            .decode((String, String).self) {
            stored[id] = sha
        }
        let shipped = Set(migrations.map(\.id))
        if let unknown = stored.keys.sorted().first(where: { !shipped.contains($0) }) {
            throw MigrationError.unknownApplied(id: unknown)
        }
        var appliedNow: [String] = []
        for migration in migrations {
            if let applied = stored[migration.id] {
                guard applied == migration.checksum else {
                    throw MigrationError.edited(id: migration.id, applied: applied, shipped: migration.checksum)
                }
                continue
            }
            try await Transaction.run(on: connection, logger: logger) { connection in
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (id, sha256) VALUES (\(migration.id), \(migration.checksum))",
                    logger: logger)
            }
            logger.info("applied migration \(migration.id)")
            appliedNow.append(migration.id)
        }
        return appliedNow
    }
}

/// BEGIN ... COMMIT on one connection, ROLLBACK on an error, which is rethrown as it was
/// (postgres-nio's own `withTransaction` wraps it).
enum Transaction {
    static func run<T>(on connection: PostgresConnection, logger: Logger,
                       _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await connection.query("BEGIN", logger: logger)
        let value: T
        do {
            value = try await body(connection)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
        try await connection.query("COMMIT", logger: logger)
        return value
    }
}
