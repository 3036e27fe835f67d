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
