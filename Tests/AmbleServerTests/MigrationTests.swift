import AmbleServer
import Logging
import PostgresNIO
import Synchronization
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct MigrationTests {
    let logger = TestDatabase.logger

    @Test func migrationsApplyOnceAndAgainChangeNothing() async throws {
        try await TestDatabase.withFresh { url in
            try await withDatabase(url, logger: logger) { client in
                let first = try await Migrator.migrate(client, logger: logger)
                #expect(first == Migrations.all.map(\.id))
                let second = try await Migrator.migrate(client, logger: logger)
                #expect(second.isEmpty)
                var tables: [String] = []
                for try await name in try await client.query(
                    "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' AND table_name !~ '_y[0-9]{4}m[0-9]{2}$' ORDER BY 1", logger: logger).decode(String.self) {
                    tables.append(name)
                }
                #expect(tables == ["arm_days", "arms", "audit_log", "item_keys", "items", "items_default", "jobs", "join_codes", "participant_days",
                                   "participant_status", "participants",
                                   "refresh_tokens", "researcher_sessions", "researchers", "rollup_dirty", "schema_migrations", "sessions",
                                   "sessions_default", "studies"])
            }
        }
    }

    @Test func anEditedShippedMigrationIsRefusedAtStart() async throws {
        try await TestDatabase.withFresh { url in
            try await withDatabase(url, logger: logger) { client in
                try await Migrator.migrate(client, logger: logger)
                var edited = Migrations.all
                edited[0].statements[0] += " -- edited"
                await #expect(throws: MigrationError.edited(id: edited[0].id, applied: Migrations.all[0].checksum, shipped: edited[0].checksum)) {
                    try await Migrator.migrate(client, migrations: edited, logger: logger)
                }
                let unknown = Migrations.all.dropLast()
                await #expect(throws: MigrationError.unknownApplied(id: Migrations.all.last!.id)) {
                    try await Migrator.migrate(client, migrations: Array(unknown), logger: logger)
                }
            }
        }
    }

    /// Two servers starting at once: the second waits on the advisory lock while the first holds
    /// it, then finds every migration applied.
    @Test func twoStartersApplyEachMigrationOnceUnderTheLock() async throws {
        try await TestDatabase.withFresh { url in
            try await withDatabase(url, logger: logger) { client in
                let (held, holding) = AsyncStream.makeStream(of: Void.self)
                let (release, releasing) = AsyncStream.makeStream(of: Void.self)
                let first = Task {
                    try await Migrator.migrate(client, logger: logger, afterLock: {
                        holding.yield()
                        for await _ in release { break }
                    })
                }
                for await _ in held { break }
                let secondDone = Mutex(false)
                let second = Task {
                    defer { secondDone.withLock { $0 = true } }
                    return try await Migrator.migrate(client, logger: logger)
                }
                // Wait until the second starter is blocked on the advisory lock (PostgreSQL's own
                // view), or has finished while the first still held it, which is the failure.
                while try await waitingOnAdvisoryLock(client) == 0, !secondDone.withLock({ $0 }) { await Task.yield() }
                #expect(!secondDone.withLock { $0 }, "the second starter did not wait for the first")
                releasing.yield()
                let (a, b) = try await (first.value, second.value)
                #expect(a == Migrations.all.map(\.id))
                #expect(b.isEmpty)
            }
        }
    }

    func waitingOnAdvisoryLock(_ client: PostgresClient) async throws -> Int {
        var count = 0
        for try await n in try await client.query(
            "SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", logger: logger).decode(Int.self) {
            count = n
        }
        return count
    }
}
