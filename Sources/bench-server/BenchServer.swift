import AmbleModel
import AmbleServer
import AmbleStudyAPI
import AmbleSync
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO

/// The study server's upload latency (scripts/bench-server; not a test): a live server on
/// loopback (plain HTTP, real sockets) over a fresh database, one participant joined, then
/// N uploads of a 30-minute mindful walk in the band's encoding, each a new item, timed one
/// by one from request to response; then the same N again (the retries: 200, nothing stored).
///
///   bench-server DATABASE_URL [UPLOADS]
@main
struct BenchServer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count >= 3, arguments[1] == "seed", let url = try? DatabaseURL(arguments[2]) {
            let logger = { var logger = Logger(label: "bench-server"); logger.logLevel = .error; return logger }()
            try await SeedStudy.run(url, participants: arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000,
                                    days: arguments.count > 4 ? Int(arguments[4]) ?? 90 : 90, logger: logger)
            return
        }
        if arguments.count >= 3, arguments[1] == "batch", let url = try? DatabaseURL(arguments[2]) {
            let logger = { var logger = Logger(label: "bench-server"); logger.logLevel = .error; return logger }()
            try await BatchBench.run(url, batches: arguments.count > 3 ? Int(arguments[3]) ?? 20 : 20,
                                     size: arguments.count > 4 ? Int(arguments[4]) ?? 500 : 500, logger: logger)
            return
        }
        guard arguments.count >= 2, let base = try? DatabaseURL(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: bench-server postgres://USER@HOST:PORT/DATABASE [UPLOADS]\n".utf8))
            exit(2)
        }
        let uploads = arguments.count > 2 ? Int(arguments[2]) ?? 500 : 500
        let logger = { var logger = Logger(label: "bench-server"); logger.logLevel = .error; return logger }()
        let name = "bench_" + String(UInt32.random(in: .min ... .max), radix: 16)
        try await withDatabase(base, logger: logger) { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)")) }
        let database = PostgresClient(configuration: base.with(database: name).clientConfiguration, backgroundLogger: logger)
        let server = StudyServer(client: database, signingKey: Curve25519.Signing.PrivateKey(),
                                 configuration: .init(rateLimitBurst: 1e9), logger: logger)
        let walk = sessionBytes(start: Date().timeIntervalSince1970 + 60, seconds: 1800)
        try await server.application().test(.live) { client in
            let token = try await joinedToken(client: client, database: database, logger: logger)
            let headers: HTTPFields = [.authorization: "Bearer \(token)", HTTPField.Name(StudyAPI.digestHeader)!: Digest.sha256Hex(walk)]
            let ids = (0 ..< uploads).map { _ in Digest.hex((0 ..< 16).map { _ in UInt8.random(in: 0 ... 255) }) }
            for (label, expected) in [("new", HTTPResponse.Status.created), ("retried", .ok)] {
                var times: [Double] = []
                for item in ids {
                    let started = ContinuousClock.now
                    let response = try await client.execute(uri: "/v1/items/session/\(item)", method: .put, headers: headers, body: ByteBuffer(bytes: walk))
                    times.append((ContinuousClock.now - started) / .milliseconds(1))
                    guard response.status == expected else { fatalError("upload answered \(response.status), not \(expected)") }
                }
                times.sort()
                let median = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)]
                print("\(label): \(uploads) uploads of a 30-min walk (\(walk.count) bytes): median \(String(format: "%.2f", median)) ms, p99 \(String(format: "%.2f", p99)) ms, max \(String(format: "%.2f", times.last!)) ms")
            }
        }
        try await withDatabase(base, logger: logger) { try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)")) }
    }

    /// A researcher, the bench's study and one participant joined through the API: their access token.
    static func joinedToken(client: some TestClientProtocol, database: PostgresClient, logger: Logger) async throws -> String {
        let study = try study()
        let admin = Admin(client: database, logger: logger)
        try await admin.addResearcher(name: "bench", password: "a long enough password", rounds: 1000)
        let id = try await admin.createStudy(study, owner: "bench")
        let code = try await admin.generateCodes(study: id, count: 1, expiresDays: 1, now: Date().timeIntervalSince1970)[0]
        let consent = study.consent
        let join = JoinRequest(code: code, consentVersion: consent.version, consentSHA256: consent.sha256, acceptedAt: Date().timeIntervalSince1970)
        let joined = try await client.execute(uri: "/v1/join", method: .post, headers: [.contentType: "application/json"],
                                              body: ByteBuffer(bytes: try JSONEncoder().encode(join)))
        return try JSONDecoder().decode(JoinResponse.self, from: Data(joined.body.readableBytesView)).accessToken
    }

    /// The bench's study: one daily questionnaire, everyone in one arm.
    static func study() throws -> StudyDefinition {
        try StudyDefinition.read(text: """
            name = "bench"
            start = 2026-01-01
            end = 2026-12-31
            [[questionnaire]]
            name = "q"
            title = "Q"
            due = "daily"
              [[questionnaire.item]]
              id = "a"
              type = "text"
              text = "A?"
            [consent]
            version = "1"
            text = "yes"
            on_withdrawal = "keep"
            """, file: "bench.toml")
    }

    /// A mindful walk of `seconds` in the band's encoding: cadence and heart rate wander at random
    /// (seeded) as a walk's do, so that it compresses like a real one.
    static func sessionBytes(start: Double, seconds: Int) -> [UInt8] {
        var random = SplitMix64(seed: 33)
        var cadence = 100.0, heartRate = 85.0
        let rows = (0 ..< seconds).map { i in
            cadence = min(125, max(80, cadence + Double(random.next(below: 61)) / 10 - 3))
            heartRate = min(130, max(60, heartRate + Double(random.next(below: 41)) / 10 - 2))
            return SessionSecond(offsetSeconds: i, steps: 1 + random.next(below: 2), cadenceStepsPerMinute: cadence,
                                 heartRateBPM: heartRate, heartRateConfidence: 0.5 + Double(random.next(below: 50)) / 100,
                                 overLimit: cadence > 92)
        }
        let summary = SessionSummary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(seconds),
                                     parameters: SessionParameters(calibratedCadenceStepsPerMinute: 115, reductionPercent: 20,
                                                                   limitCadenceStepsPerMinute: 92, stepLengthMeters: 0.7),
                                     steps: rows.reduce(0) { $0 + $1.steps }, distanceMeters: 1500, averageHeartRateBPM: 85,
                                     alerts: 10, timeOverLimitSeconds: seconds / 13, gapSeconds: 0, walkingSeconds: seconds)
        return SessionCoding.encode(SessionRecord(summary: summary, seconds: rows))
    }
}
