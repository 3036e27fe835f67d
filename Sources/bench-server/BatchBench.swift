import AmbleServer
import AmbleStudyAPI
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO

/// `bench-server batch DATABASE_URL [BATCHES] [SIZE]`: a laptop catching up, as the server sees
/// it: a live server on loopback over a fresh database, one participant, then BATCHES (20) POST
/// /v1/items of SIZE (500) new 10-minute walks each, one after the other; prints the sessions
/// stored per second over the whole run and each batch's median and slowest time.
enum BatchBench {
    static func run(_ base: DatabaseURL, batches: Int, size: Int, logger: Logger) async throws {
        let name = "bench_" + String(UInt32.random(in: .min ... .max), radix: 16)
        try await withDatabase(base, logger: logger) { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)")) }
        let database = PostgresClient(configuration: base.with(database: name).clientConfiguration, backgroundLogger: logger)
        let server = StudyServer(client: database, signingKey: Curve25519.Signing.PrivateKey(),
                                 configuration: .init(rateLimitBurst: 1e9, runsJobs: false), logger: logger)
        let walk = BenchServer.sessionBytes(start: Date().timeIntervalSince1970 + 60, seconds: 600)
        let entry = { ItemBatch.Entry(kind: "session", id: Digest.hex((0 ..< 16).map { _ in UInt8.random(in: 0 ... 255) }),
                                      sha256: Digest.sha256Hex(walk), bytes: Data(walk).base64EncodedString()) }
        let bodies = try (0 ..< batches).map { _ in try JSONEncoder().encode(ItemBatch(items: (0 ..< size).map { _ in entry() })) }
        try await server.application().test(.live) { client in
            let token = try await BenchServer.joinedToken(client: client, database: database, logger: logger)
            var times: [Double] = []
            let started = ContinuousClock.now
            for body in bodies {
                let t = ContinuousClock.now
                let response = try await client.execute(uri: "/v1/items", method: .post,
                                                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                        body: ByteBuffer(bytes: body))
                times.append((ContinuousClock.now - t) / .milliseconds(1))
                let results = try JSONDecoder().decode(ItemBatchResults.self, from: Data(response.body.readableBytesView)).results
                guard results.allSatisfy({ $0.status == 201 }) else { fatalError("a batch answered \(results.map(\.status))") }
            }
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            times.sort()
            print("batch: \(batches) batches of \(size) walks (\(walk.count) bytes, \(bodies[0].count) bytes a body): "
                + "\(Int(Double(batches * size) / seconds)) sessions/s; a batch median \(String(format: "%.0f", times[times.count / 2])) ms, max \(String(format: "%.0f", times.last!)) ms")
        }
        try await withDatabase(base, logger: logger) { try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)")) }
    }
}
