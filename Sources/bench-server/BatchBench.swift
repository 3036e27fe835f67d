import AmbleServer
import AmbleStudyAPI
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO

/// `bench-server batch DATABASE_URL [BATCHES] [SIZE] [LAPTOPS]`: laptops catching up, as the
/// server sees them: a live server on loopback over a fresh database, LAPTOPS (1) participants,
/// each sending BATCHES (20) POST /v1/items of SIZE (500) new 10-minute walks, one after the
/// other, the laptops at once; prints the sessions stored per second over the whole run, each
/// batch's median and slowest time, and the CPU time a stored session took: this process's (the
/// server, and the client's HTTP) and the PostgreSQL backends' (read from /proc, the database
/// being on this machine), which unlike the rate does not depend on what else the cores run.
enum BatchBench {
    static func run(_ base: DatabaseURL, batches: Int, size: Int, laptops: Int, logger: Logger) async throws {
        let name = "bench_" + String(UInt32.random(in: .min ... .max), radix: 16)
        try await withDatabase(base, logger: logger) { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)")) }
        let database = PostgresClient(configuration: base.with(database: name).clientConfiguration, backgroundLogger: logger)
        let server = StudyServer(client: database, signingKey: Curve25519.Signing.PrivateKey(),
                                 configuration: .init(rateLimitBurst: 1e9, runsJobs: false), logger: logger)
        let walk = BenchServer.sessionBytes(start: Date().timeIntervalSince1970 + 60, seconds: 600)
        let entry = { ItemBatch.Entry(kind: "session", id: Digest.hex((0 ..< 16).map { _ in UInt8.random(in: 0 ... 255) }),
                                      sha256: Digest.sha256Hex(walk), bytes: Data(walk).base64EncodedString()) }
        let bodies = try (0 ..< laptops).map { _ in try (0 ..< batches).map { _ in try JSONEncoder().encode(ItemBatch(items: (0 ..< size).map { _ in entry() })) } }
        try await server.application().test(.live) { client in
            let tokens = try await BenchServer.joinedTokens(count: laptops, client: client, database: database, logger: logger)
            let backendsBefore = try await backendTicks(database, name: name, logger: logger)
            let processBefore = processSeconds()
            let started = ContinuousClock.now
            var times: [Double] = try await withThrowingTaskGroup(of: [Double].self) { group in
                for (token, bodies) in zip(tokens, bodies) {
                    group.addTask {
                        var times: [Double] = []
                        for body in bodies {
                            let t = ContinuousClock.now
                            let response = try await client.execute(uri: "/v1/items", method: .post,
                                                                    headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                                    body: ByteBuffer(bytes: body))
                            times.append((ContinuousClock.now - t) / .milliseconds(1))
                            let results = try JSONDecoder().decode(ItemBatchResults.self, from: Data(response.body.readableBytesView)).results
                            guard results.allSatisfy({ $0.status == 201 }) else { fatalError("a batch answered \(results.map(\.status))") }
                        }
                        return times
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            let processCPU = processSeconds() - processBefore
            let backendsAfter = try await backendTicks(database, name: name, logger: logger)
            let backendCPU = Double(backendsAfter.map { pid, ticks in ticks - (backendsBefore[pid] ?? 0) }.reduce(0, +)) / Double(sysconf(Int32(_SC_CLK_TCK)))
            let sessions = Double(laptops * batches * size)
            times.sort()
            print("batch: \(laptops) laptop(s) x \(batches) batches of \(size) walks (\(walk.count) bytes, \(bodies[0][0].count) bytes a body): "
                + "\(Int(sessions / seconds)) sessions/s; a batch median \(String(format: "%.0f", times[times.count / 2])) ms, max \(String(format: "%.0f", times.last!)) ms; "
                + "CPU a session: \(String(format: "%.0f", processCPU / sessions * 1e6)) us server (and client), "
                + "\(String(format: "%.0f", backendCPU / sessions * 1e6)) us PostgreSQL")
        }
        try await withDatabase(base, logger: logger) { try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)")) }
    }

    /// This process's CPU time (user and system), seconds.
    static func processSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The CPU ticks (user and system) of each backend serving database `name`, from /proc
    /// (empty when PostgreSQL runs elsewhere).
    static func backendTicks(_ database: PostgresClient, name: String, logger: Logger) async throws -> [Int: Int] {
        var ticks: [Int: Int] = [:]
        for try await pid in try await database.query("SELECT pid FROM pg_stat_activity WHERE datname = \(name)", logger: logger).decode(Int32.self) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime 14 and stime 15 (proc(5)).
            if fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) { ticks[Int(pid)] = user + system }
        }
        return ticks
    }
}
