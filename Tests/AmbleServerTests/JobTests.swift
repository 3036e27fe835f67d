import AmbleServer
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct JobTests {
    let logger = TestDatabase.logger

    /// A job's work for the tests: records its run in `job_runs` (inside the job's transaction,
    /// so only runs that committed are counted) and lets other workers in while it runs.
    static let recordRun: JobQueue.Work = { connection, argument, _ in
        try await connection.query("INSERT INTO job_runs (argument) VALUES (\(argument))", logger: TestDatabase.logger)
        try await connection.query("SELECT pg_sleep(0.005)", logger: TestDatabase.logger)
        return .done
    }

    func withJobDatabase(_ body: @Sendable (PostgresClient, PostgresClient) async throws -> Void) async throws {
        try await TestDatabase.withFresh { url in
            try await withDatabase(url, logger: logger) { first in
                try await withDatabase(url, logger: logger) { second in
                    try await Migrator.migrate(first, logger: logger)
                    try await first.query("DELETE FROM jobs", logger: logger)
                    try await first.query("CREATE TABLE job_runs (argument text NOT NULL)", logger: logger)
                    try await body(first, second)
                }
            }
        }
    }

    func runs(_ client: PostgresClient) async throws -> [String] {
        var runs: [String] = []
        for try await argument in try await client.query("SELECT argument FROM job_runs ORDER BY 1", logger: logger).decode(String.self) {
            runs.append(argument)
        }
        return runs
    }

    /// Two workers, each with its own client as two server processes have, drain 40 jobs
    /// together: every job runs exactly once, and both workers took some.
    @Test func twoWorkersNeverRunOneJobTwice() async throws {
        try await withJobDatabase { first, second in
            let queue = JobQueue(client: first, logger: logger)
            for n in 0 ..< 40 { try await queue.enqueue(kind: "count", argument: String(format: "%02d", n), runAt: 0) }
            let taken = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in [first, second] {
                    group.addTask {
                        let worker = JobWorker(queue: JobQueue(client: client, logger: logger), work: ["count": Self.recordRun], now: { 1 })
                        var count = 0
                        while try await worker.runOnce() { count += 1 }
                        return count
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(taken.reduce(0, +) == 40)
            #expect(try await runs(first) == (0 ..< 40).map { String(format: "%02d", $0) })
            var open = -1
            for try await n in try await first.query("SELECT count(*)::int FROM jobs WHERE done_at IS NULL", logger: logger).decode(Int.self) { open = n }
            #expect(open == 0)
        }
    }

    /// A worker that took a job and died (it never finishes it) leaves it alone for the
    /// lease; then another worker takes and runs it, and the dead one's late finish commits nothing.
    @Test func aKilledWorkersJobIsTakenAgainAfterItsLease() async throws {
        try await withJobDatabase { first, second in
            let (dead, alive) = (JobQueue(client: first, logger: logger, leaseSeconds: 60), JobQueue(client: second, logger: logger, leaseSeconds: 60))
            try await dead.enqueue(kind: "count", argument: "once", runAt: 100)
            #expect(try await dead.claim(now: 99) == nil, "not due yet")
            let lost = try #require(try await dead.claim(now: 100))
            #expect(try await alive.claim(now: 159) == nil, "leased to the dead worker")
            let retaken = try #require(try await alive.claim(now: 161))
            #expect(retaken.id == lost.id && retaken.attempts == 2)
            #expect(try await alive.run(retaken, now: 162, work: Self.recordRun))
            #expect(try await dead.run(lost, now: 170, work: Self.recordRun) == false)
            #expect(try await runs(first) == ["once"])
            #expect(try await alive.claim(now: 10_000) == nil, "a one-off job is done")
        }
    }

    /// A recurring job is due again its period after it ran; a failing one is retried later
    /// with its error kept.
    @Test func recurringJobsComeBackAndFailuresAreRetried() async throws {
        try await withJobDatabase { first, _ in
            let queue = JobQueue(client: first, logger: logger)
            try await queue.enqueue(kind: "count", argument: "daily", runAt: 0, everySeconds: 86_400)
            try await queue.run(try #require(try await queue.claim(now: 10)), now: 10, work: Self.recordRun)
            #expect(try await queue.claim(now: 86_409) == nil)
            let again = try #require(try await queue.claim(now: 86_410))
            struct Broken: Error {}
            #expect(try await queue.run(again, now: 86_410) { _, _, _ in throw Broken() } == false)
            #expect(try await queue.claim(now: 86_415) == nil, "paused after the failure")
            var error: String?
            for try await text in try await first.query("SELECT last_error FROM jobs", logger: logger).decode(String?.self) { error = text }
            #expect(error?.contains("Broken") == true)
            #expect(try await queue.claim(now: 86_410 + 3600) != nil)
        }
    }
}
