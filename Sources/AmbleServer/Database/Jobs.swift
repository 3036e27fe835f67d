#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PostgresNIO
import ServiceLifecycle

/// Background work from the `jobs` table (docs/server-operations.md, "Background jobs"), run by
/// a worker in every server process. A job is taken in a short transaction with `FOR UPDATE
/// SKIP LOCKED` (workers never wait on each other) and leased for `leaseSeconds`. Its work
/// then runs in a transaction of its own that ends by marking the job done only while the lease
/// is still this worker's: the work and its completion commit together or not at all. So a
/// worker killed mid-job commits nothing, and the job is taken again once its lease has run out;
/// a worker whose lease ran out while it worked rolls its work back.
public struct JobQueue: Sendable {
    public let client: PostgresClient
    public let logger: Logger
    /// How long a taken job is another worker's to leave alone, seconds.
    public var leaseSeconds: Double

    public init(client: PostgresClient, logger: Logger, leaseSeconds: Double = 600) {
        self.client = client
        self.logger = logger
        self.leaseSeconds = leaseSeconds
    }

    /// A job taken by this worker until `leasedUntil`.
    public struct Claim: Sendable, Equatable {
        public var id: Int64
        public var kind: String
        public var argument: String
        public var lease: UUID
        public var attempts: Int
    }

    /// What a job's work returns: `again` runs it again at once (there is more to do).
    public enum Result: Sendable { case done, again }

    public typealias Work = @Sendable (_ connection: PostgresConnection, _ argument: String, _ now: Double) async throws -> Result

    /// Adds a one-off job (or, with `everySeconds`, a recurring one); a job of the same kind and
    /// argument that is not done yet is left as it is.
    public func enqueue(kind: String, argument: String = "", runAt: Double, everySeconds: Int? = nil) async throws {
        try await client.query("""
            INSERT INTO jobs (kind, argument, run_at, every_seconds) VALUES (\(kind), \(argument), \(date(runAt)), \(everySeconds))
            ON CONFLICT (kind, argument) DO UPDATE SET run_at = least(jobs.run_at, excluded.run_at), done_at = NULL
            WHERE jobs.done_at IS NOT NULL
            """, logger: logger)
    }

    /// Takes the job due longest, when one is due and not leased; nil when none is.
    public func claim(now: Double) async throws -> Claim? {
        let lease = UUID()
        let rows = try await client.query("""
            UPDATE jobs SET lease = \(lease), leased_until = \(date(now + leaseSeconds)), attempts = attempts + 1
            WHERE id = (SELECT id FROM jobs
                        WHERE done_at IS NULL AND run_at <= \(date(now)) AND (leased_until IS NULL OR leased_until <= \(date(now)))
                        ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, kind, argument, attempts
            """, logger: logger)
        for try await (id, kind, argument, attempts) in rows.decode((Int64, String, String, Int).self) {
            return Claim(id: id, kind: kind, argument: argument, lease: lease, attempts: attempts)
        }
        return nil
    }

    /// Runs the claimed job's work and marks it done (a recurring job: due again after its
    /// period) in one transaction, which commits only if the lease is still this claim's.
    /// Returns false when the lease was lost and the work rolled back. A failure is recorded
    /// and the job retried after a pause that doubles with each attempt (at most an hour).
    @discardableResult
    public func run(_ claim: Claim, now: Double, work: Work) async throws -> Bool {
        do {
            return try await client.withConnection { connection in
                try await Transaction.run(on: connection, logger: logger) { connection in
                    let result = try await work(connection, claim.argument, now)
                    let rows = try await connection.query("""
                        UPDATE jobs SET lease = NULL, leased_until = NULL, attempts = 0, last_error = NULL,
                            run_at = CASE WHEN every_seconds IS NULL OR \(result == .again) THEN run_at
                                          ELSE \(date(now)) + every_seconds * interval '1 second' END,
                            done_at = CASE WHEN every_seconds IS NULL AND NOT \(result == .again) THEN \(date(now)) END
                        WHERE id = \(claim.id) AND lease = \(claim.lease) RETURNING 1
                        """, logger: logger)
                    for try await _ in rows.decode(Int.self) { return true }
                    throw LeaseLost()
                }
            }
        } catch is LeaseLost {
            logger.warning("job \(claim.kind) \(claim.id): its lease ran out while it ran; its work was rolled back")
            return false
        } catch {
            let pause = min(3600, 10 * pow(2, Double(min(claim.attempts, 12))))
            try await client.query("""
                UPDATE jobs SET lease = NULL, leased_until = NULL, last_error = \(String(describing: error)),
                                run_at = \(date(now + pause))
                WHERE id = \(claim.id) AND lease = \(claim.lease)
                """, logger: logger)
            logger.error("job \(claim.kind) \(claim.id) failed (attempt \(claim.attempts)), retried in \(Int(pause)) s: \(error)")
            return false
        }
    }

    private struct LeaseLost: Error {}
}

/// The worker every server process runs: takes due jobs one at a time and runs them with the
/// work its kind names; sleeps `pollSeconds` (with jitter) when none is due.
public struct JobWorker: Service {
    public var queue: JobQueue
    public var work: [String: JobQueue.Work]
    public var now: @Sendable () -> Double
    public var pollSeconds: Double
    /// Run once before the first job (the server's migrations: the tables must exist).
    public var prepare: @Sendable () async throws -> Void

    public init(queue: JobQueue, work: [String: JobQueue.Work], now: @escaping @Sendable () -> Double, pollSeconds: Double = 5,
                prepare: @escaping @Sendable () async throws -> Void = {}) {
        self.queue = queue
        self.prepare = prepare
        self.work = work
        self.now = now
        self.pollSeconds = pollSeconds
    }

    /// Takes and runs one due job; false when none was due.
    public func runOnce() async throws -> Bool {
        guard let claim = try await queue.claim(now: now()) else { return false }
        guard let work = work[claim.kind] else {
            try await queue.run(claim, now: now()) { _, _, _ in throw UnknownJob(kind: claim.kind) }
            return true
        }
        try await queue.run(claim, now: now(), work: work)
        return true
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await prepare()
            try await loop()
        }
    }

    private func loop() async throws {
        while !Task.isCancelled {
            let busy: Bool
            do {
                busy = try await runOnce()
            } catch {
                queue.logger.error("job worker: \(String(reflecting: error))")
                busy = false
            }
            if !busy {
                try? await Task.sleep(for: .milliseconds(Int(pollSeconds * 1000 * Double.random(in: 0.5 ... 1.5))))
            }
        }
    }

    struct UnknownJob: Error, CustomStringConvertible {
        var kind: String
        var description: String { "no worker of this build runs jobs of kind \(kind)" }
    }
}
