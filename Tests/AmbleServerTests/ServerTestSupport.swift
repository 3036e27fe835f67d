import AmbleModel
import AmbleServer
import AmbleStudyAPI
import AmbleSync
import Crypto
import AmbleTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import Synchronization
import Testing

/// The scratch cluster scripts/test starts (scripts/pg-scratch); the server tests skip without it.
enum TestDatabase {
    static let url: DatabaseURL? = ProcessInfo.processInfo.environment["AMBLE_TEST_DATABASE_URL"].flatMap { try? DatabaseURL($0) }
    static let skipReason: Comment = "AMBLE_TEST_DATABASE_URL is unset: no PostgreSQL to test the server against (scripts/test starts one with scripts/pg-scratch)"
    static var available: Bool { url != nil }
    static let logger = Logger(label: "amble-server-tests")

    /// A new, empty database for one test (CREATE DATABASE from template0), dropped afterwards.
    static func withFresh<T: Sendable>(_ body: @Sendable (DatabaseURL) async throws -> T) async throws -> T {
        let base = try #require(url)
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await withDatabase(base, logger: logger) { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE template0"), logger: logger)
        }
        let result: Result<T, any Error>
        do { result = .success(try await body(base.with(database: name))) } catch { result = .failure(error) }
        try? await withDatabase(base, logger: logger) { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        }
        return try result.get()
    }
}

/// The server's clock in a test: moves only when the test moves it.
final class ManualClock: Sendable {
    private let seconds: Mutex<Double>
    init(_ start: Double) { seconds = Mutex(start) }
    var now: Double { seconds.withLock { $0 } }
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
}

/// A running server (router-level) on a fresh database, with one study whose codes are ready.
struct ServerFixture: Sendable {
    let client: any TestClientProtocol
    let admin: Admin
    let clock: ManualClock
    let study: UUID
    let consent: ConsentDocument
    let database: PostgresClient

    static let start = 1_772_000_000.0   // 2026-02-25

    /// A study file with two arms (pace alerts firm or silent), blocks of 4 and a consent text.
    static func studyFile(onWithdrawal: String = "keep", strata: String = "[]") -> String {
        var study = StudyFileText()
        study.strata = strata
        study.onWithdrawal = onWithdrawal
        return study.text
    }

    static func studyDefinition(onWithdrawal: String = "keep", strata: String = "[]") -> StudyDefinition {
        try! StudyDefinition.read(text: studyFile(onWithdrawal: onWithdrawal, strata: strata), file: "fixture.toml")
    }

    /// Runs `body` against a server on a fresh database with one study.
    static func run(_ definition: StudyDefinition = studyDefinition(),
                    configuration: @escaping @Sendable (ManualClock) -> StudyServer.Configuration = { clock in .init(now: { clock.now }, runsJobs: false) },
                    _ body: @Sendable (ServerFixture) async throws -> Void) async throws {
        try await TestDatabase.withFresh { url in
            let clock = ManualClock(start)
            let database = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: TestDatabase.logger)
            let server = StudyServer(client: database, signingKey: Curve25519.Signing.PrivateKey(),
                                     configuration: configuration(clock), logger: TestDatabase.logger)
            try await server.application().test(.router) { client in
                let admin = Admin(client: database, logger: TestDatabase.logger)
                try await admin.addResearcher(name: "ada", password: "correct horse battery", rounds: 1000)
                let study = try await admin.createStudy(definition, owner: "ada")
                try await body(ServerFixture(client: client, admin: admin, clock: clock, study: study,
                                             consent: definition.consent, database: database))
            }
        }
    }

    func codes(_ count: Int, expiresDays: Double = 7) async throws -> [String] {
        try await admin.generateCodes(study: study, count: count, expiresDays: expiresDays, now: clock.now)
    }

    /// POST /v1/join with `code`, accepting the study's consent now.
    func join(_ code: String) async throws -> TestResponse {
        try await post("/v1/join", JoinRequest(code: code, consentVersion: consent.version, consentSHA256: consent.sha256, acceptedAt: clock.now))
    }

    /// A participant joined with a fresh code.
    func joined() async throws -> JoinResponse {
        let response = try await join(try await codes(1)[0])
        #expect(response.status == .created)
        return try decode(JoinResponse.self, response)
    }

    func post(_ uri: String, _ value: some Encodable, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(bytes: try JSONEncoder().encode(value)))
    }

    func get(_ uri: String, token: String? = nil, headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: .get, headers: headers)
    }

    /// PUT /v1/items/KIND/ID with the body's digest (or `digest` when given).
    func put(_ kind: String, _ id: String, _ bytes: [UInt8], token: String, digest: String? = nil) async throws -> TestResponse {
        let headers: HTTPFields = [.authorization: "Bearer \(token)", HTTPField.Name(StudyAPI.digestHeader)!: digest ?? Digest.sha256Hex(bytes),
                                   .contentType: "application/octet-stream"]
        return try await client.execute(uri: "/v1/items/\(kind)/\(id)", method: .put, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    /// Runs a background job's work as the worker does, in one transaction (ServerJobs).
    func runJob(_ work: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        try await database.withConnection { connection in
            try await connection.query("BEGIN", logger: TestDatabase.logger)
            try await work(connection)
            try await connection.query("COMMIT", logger: TestDatabase.logger)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(response.body.readableBytesView))
    }

    func errorCode(_ response: TestResponse) -> String? {
        (try? JSONDecoder().decode(APIError.self, from: Data(response.body.readableBytesView)))?.error
    }
}

/// A short mindful walk in the band's session encoding, starting at `start`.
func sessionBytes(start: Double, seconds: Int = 60, steps: Int = 1) -> [UInt8] {
    let summary = SessionSummary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(seconds),
                                 parameters: SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20,
                                                               limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7),
                                 steps: steps * seconds, distanceMeters: 0.7 * Double(steps * seconds), averageHeartRateBPM: nil,
                                 alerts: 0, timeOverLimitSeconds: 5, gapSeconds: 0, walkingSeconds: seconds)
    let secondsRows = (0 ..< seconds).map { SessionSecond(offsetSeconds: $0, steps: steps, cadenceStepsPerMinute: 80) }
    return SessionCoding.encode(SessionRecord(summary: summary, seconds: secondsRows))
}

/// A new item id as the laptop makes them.
func itemID() -> String { UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }
