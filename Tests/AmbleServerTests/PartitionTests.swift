import AmbleServer
import AmbleStudyAPI
import Foundation
import PostgresNIO
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct PartitionTests {
    /// Which partition holds each item (by its id), and how many keys and sessions there are.
    func placement(_ f: ServerFixture) async throws -> [String: String] {
        var rows: [String: String] = [:]
        for try await (id, table) in try await f.database.query(
            "SELECT item_id, tableoid::regclass::text FROM items").decode((String, String).self) { rows[id] = table }
        return rows
    }

    func count(_ f: ServerFixture, _ table: String) async throws -> Int {
        var n = -1
        for try await c in try await f.database.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(table)")).decode(Int.self) { n = c }
        return n
    }

    func counts(_ f: ServerFixture, _ tables: String...) async throws -> [Int] {
        var counts: [Int] = []
        for table in tables { counts.append(try await count(f, table)) }
        return counts
    }

    /// A fresh access token after the clock moved past the last one's life.
    func refreshed(_ f: ServerFixture, _ joined: inout JoinResponse) async throws -> String {
        let tokens = try f.decode(TokenResponse.self, try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken)))
        joined.refreshToken = tokens.refreshToken
        return tokens.accessToken
    }

    /// Items arriving at a server whose month has no partition yet (the fixture's clock is in
    /// February 2026, months before the migration ran) land in the default partition; the
    /// create-ahead job moves them into their month's partition. A band clock far in the past or
    /// future does not matter: items are placed by their arrival.
    @Test func itemsOfAnyTimeAreStoredAndMovedIntoTheirMonth() async throws {
        try await ServerFixture.run { f in
            var joined = try await f.joined()
            let (now, future) = (itemID(), itemID())
            let walk = sessionBytes(start: f.clock.now + 60)
            #expect(try await f.put("session", now, walk, token: joined.accessToken).status == .created)
            #expect(try await f.put("session", future, sessionBytes(start: 3_800_000_000), token: joined.accessToken).status == .created)
            #expect(try await placement(f) == [now: "items_default", future: "items_default"])
            try await f.runJob { try await ServerJobs.ensurePartitions(now: f.clock.now, on: $0, logger: TestDatabase.logger) }
            #expect(try await placement(f) == [now: "items_y2026m02", future: "items_y2026m02"])
            #expect(try await counts(f, "sessions_y2026m02", "sessions_default") == [2, 0])
            f.clock.advance(5 * 365 * 86_400)   // 2031-02
            let late = itemID()
            let token = try await refreshed(f, &joined)
            #expect(try await f.put("session", late, sessionBytes(start: f.clock.now + 60), token: token).status == .created)
            try await f.runJob { try await ServerJobs.ensurePartitions(now: f.clock.now, on: $0, logger: TestDatabase.logger) }
            #expect(try await placement(f)[late] == "items_y2031m02")
            #expect(try await f.put("session", now, walk, token: token).status == .ok,
                    "the key is one for all months")
        }
    }

    /// Retention: nothing goes while the study keeps data for ever; with 30 days, a month's
    /// partitions past it are dropped whole and its keys deleted, the newer month kept.
    @Test func retentionDropsTheMonthsPastTheStudysDays() async throws {
        try await ServerFixture.run { f in
            var joined = try await f.joined()
            for days in [0, 40] {
                f.clock.advance(Double(days) * 86_400)
                let token = try await refreshed(f, &joined)
                try await f.runJob { try await ServerJobs.ensurePartitions(now: f.clock.now, on: $0, logger: TestDatabase.logger) }
                #expect(try await f.put("session", itemID(), sessionBytes(start: f.clock.now + 60), token: token).status == .created)
            }
            f.clock.advance(45 * 86_400)   // 2026-05-20: February's arrivals are 84 days old, April's 45
            try await f.runJob { _ = try await ServerJobs.retention(now: f.clock.now, on: $0, logger: TestDatabase.logger) }
            #expect(try await count(f, "item_keys") == 2)
            try await f.database.query("UPDATE studies SET retention_days = 60")
            try await f.runJob { _ = try await ServerJobs.retention(now: f.clock.now, on: $0, logger: TestDatabase.logger) }
            #expect(try await counts(f, "item_keys", "items", "sessions") == [1, 1, 1])
            var tables: [String] = []
            for try await name in try await f.database.query(
                "SELECT relname::text FROM pg_class WHERE relname ~ '^(items|sessions)_y2026m0[24]$' ORDER BY 1").decode(String.self) { tables.append(name) }
            #expect(tables == ["items_y2026m04", "sessions_y2026m04"])
        }
    }

    /// The rollup job sums each marked participant-day from its sessions and answers.
    @Test func theRollupSumsEachParticipantsDay() async throws {
        try await ServerFixture.run { f in
            let token = try await f.joined().accessToken
            for offset in [600.0, 4000] {
                #expect(try await f.put("session", itemID(), sessionBytes(start: f.clock.now + offset, seconds: 300), token: token).status == .created)
            }
            let answer = try JSONEncoder().encode(AnswerItem(questionnaire: "evening", answeredAt: f.clock.now + 100, answers: ["calm": "4"]))
            #expect(try await f.put("answer", itemID(), Array(answer), token: token).status == .created)
            try await f.runJob { _ = try await ServerJobs.rollup(on: $0, logger: TestDatabase.logger) }
            var rows: [String] = []
            for try await (day, walks, mindful, over, answers) in try await f.database.query("""
                SELECT day::text, walks, mindful_seconds, over_limit_seconds, answers FROM participant_days
                """).decode((String, Int, Double, Double, Int).self) { rows.append("\(day) \(walks) \(mindful) \(over) \(answers)") }
            #expect(rows == ["2026-02-25 2 600.0 10.0 1"])
            #expect(try await count(f, "rollup_dirty") == 0)
        }
    }
}

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct PartitionMigrationTests {
    let logger = TestDatabase.logger

    /// A database at 0003 with a session and an answer sheet: 0004 carries both over with their
    /// seq into item_keys, the partitioned items and sessions, marks their days for the rollup,
    /// and the analyst's view still shows the session; a new item numbers after them.
    @Test func theMigrationCarriesExistingRowsOver() async throws {
        try await TestDatabase.withFresh { url in
            try await withDatabase(url, logger: logger) { client in
                try await Migrator.migrate(client, migrations: Array(Migrations.all.prefix(3)), logger: logger)
                let participant = UUID(), study = UUID()
                let walk = sessionBytes(start: 1_772_000_600)
                try await client.query("""
                    WITH r AS (INSERT INTO researchers (name, password_kdf, password_iterations, password_salt, password_hash)
                               VALUES ('ada', 'pbkdf2-sha256', 1, '\\x00', '\\x00') RETURNING id)
                    INSERT INTO studies (id, owner_id, name, study_file, participant_file, consent_version, consent_sha256, consent_text,
                                         code_expiry_days, delete_on_withdrawal)
                    SELECT \(study), r.id, 's', '', '', '1', repeat('0', 64), 'yes', 7, false FROM r
                    """, logger: logger)
                try await client.query("INSERT INTO arms (study_id, name, position) VALUES (\(study), 'all', 0)", logger: logger)
                try await client.query("""
                    INSERT INTO participants (id, study_id, arm_name, allocation_index, allocated_at, consent_version, consent_sha256, consent_accepted_at)
                    VALUES (\(participant), \(study), 'all', 0, now(), '1', repeat('0', 64), now())
                    """, logger: logger)
                try await client.query("""
                    INSERT INTO items (participant_id, kind, item_id, sha256, bytes, item_time, received_at)
                    VALUES (\(participant), 'session', repeat('a', 32), \(Digest.sha256Hex(walk)), \(ByteBuffer(bytes: walk)), to_timestamp(1772000600), '2026-02-25 10:00+00'),
                           (\(participant), 'answer', repeat('b', 32), repeat('1', 64), '\\x7b7d', to_timestamp(1772000700), '2026-03-02 10:00+00')
                    """, logger: logger)
                try await client.query("""
                    INSERT INTO sessions (participant_id, item_id, start_at, duration_seconds, steps, session_kind, walking_seconds, mindful_seconds, seconds_over_limit)
                    VALUES (\(participant), repeat('a', 32), to_timestamp(1772000600), 60, 60, 'mindful-walk', 60, 60, 5)
                    """, logger: logger)
                #expect(try await Migrator.migrate(client, logger: logger) == ["0004-partitions-jobs"])
                var rows: [String] = []
                for try await (kind, seq, table) in try await client.query("""
                    SELECT k.kind, i.seq, i.tableoid::regclass::text FROM item_keys k JOIN items i USING (participant_id, kind, item_id) ORDER BY i.seq
                    """, logger: logger).decode((String, Int64, String).self) { rows.append("\(kind) \(seq) \(table)") }
                #expect(rows == ["session 1 items_y2026m02", "answer 2 items_y2026m03"])
                var seen: [String] = []
                for try await (seq, steps) in try await client.query("SELECT session_seq, steps FROM analyst.sessions", logger: logger)
                    .decode((Int64, Int64).self) { seen.append("\(seq) \(steps)") }
                #expect(seen == ["1 60"])
                var marks = -1
                for try await n in try await client.query("SELECT count(*)::int FROM rollup_dirty", logger: logger).decode(Int.self) { marks = n }
                #expect(marks == 1, "the walk and the sheet are of one UTC day")
                var next: Int64 = -1
                for try await n in try await client.query("SELECT nextval('item_seq')", logger: logger).decode(Int64.self) { next = n }
                #expect(next == 3)
            }
        }
    }
}
