@testable import AmbleCLI
import AmbleCompanionStore
import AmbleModel
import AmbleServer
import AmbleStudyAPI
import AmbleSync
import AmbleTestSupport
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdTLS
import Logging
import PostgresNIO
import Testing

/// The scratch cluster scripts/test starts (scripts/pg-scratch); these tests skip without it.
enum LiveDatabase {
    static let url: DatabaseURL? = ProcessInfo.processInfo.environment["AMBLE_TEST_DATABASE_URL"].flatMap { try? DatabaseURL($0) }
    static let skipReason: Comment = "AMBLE_TEST_DATABASE_URL is unset: no PostgreSQL to run the study server against (scripts/test starts one with scripts/pg-scratch)"
    static var available: Bool { url != nil }
    static let logger = Logger(label: "amble-study-client-tests")
}

/// A real amble-server listening on 127.0.0.1 over TLS (a certificate made as `amble-server
/// init` makes it) on a fresh database, with one study of two arms and codes ready. The laptop
/// side talks to it through `NIOHTTPTransport`, directly or through a `CutProxy`.
struct LiveServer: Sendable {
    let port: Int
    /// The server's clock: the wall clock's time when the test starts, or earlier (`run(daysAgo:)`);
    /// the test moves it.
    let clock: WallClock
    let fingerprint: String
    let admin: Admin
    let database: PostgresClient
    let study: UUID

    static let arms: [StudyDefinition.Arm] = [.init(name: "walk", bandSettings: ["metronome": "off", "alert_style": "firm"]),
                                              .init(name: "control", bandSettings: ["metronome": "on", "alert_style": "silent"])]
    static let studyFile: String = {
        var study = StudyFileText()
        (study.start, study.end) = ("2026-01-01", "2026-12-31")
        study.question = "How calm?"
        study.arms = [.init("walk", band: ["metronome = \"off\"", "alert_style = \"firm\""]),
                      .init("control", band: ["metronome = \"on\"", "alert_style = \"silent\""])]
        study.blockSizes = "[2]"
        (study.consentVersion, study.consentText) = ("3", "I agree to take part. My walks go to the study team.")
        return study.text
    }()

    /// Runs `body` against a server on a fresh database, its clock `daysAgo` days behind the wall clock.
    static func run(daysAgo: Double = 0, _ body: @Sendable (LiveServer) async throws -> Void) async throws {
        let clock = WallClock(Date().timeIntervalSince1970 - daysAgo * 86_400)
        let base = try #require(LiveDatabase.url)
        let name = "client_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await withDatabase(base) { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE template0"), logger: LiveDatabase.logger) }
        let folder = NSTemporaryDirectory() + "amble-live-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let identity = ServerIdentity(directory: folder)
        let fingerprint = try await identity.create(hosts: ["127.0.0.1"])
        let database = PostgresClient(configuration: base.with(database: name).clientConfiguration, backgroundLogger: LiveDatabase.logger)
        let server = StudyServer(client: database, signingKey: try identity.signingKey(),
                                 configuration: .init(now: { clock.now }, rateLimitBurst: 100_000, rateLimitPerSecond: 100_000),
                                 logger: LiveDatabase.logger)
        let app = server.application(server: try .tls(.http1(), tlsConfiguration: identity.tlsConfiguration()),
                                     configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let result: Result<Void, any Error>
        do { result = .success(try await serve(app, clock: clock, fingerprint: fingerprint, database: database, body)) } catch { result = .failure(error) }
        try? await withDatabase(base) { try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: LiveDatabase.logger) }
        try result.get()
    }

    private static func serve(_ app: some ApplicationProtocol, clock: WallClock, fingerprint: String, database: PostgresClient,
                              _ body: @Sendable (LiveServer) async throws -> Void) async throws {
        try await app.test(.live) { client in
            let admin = Admin(client: database, logger: LiveDatabase.logger)
            try await admin.addResearcher(name: "ada", password: "correct horse battery", rounds: 1000)
            let study = try await admin.createStudy(try StudyDefinition.read(text: studyFile, file: "live.toml"), owner: "ada")
            try await body(LiveServer(port: try #require(client.port), clock: clock, fingerprint: fingerprint, admin: admin, database: database,
                                      study: study))
        }
    }

    private static func withDatabase(_ url: DatabaseURL, _ body: (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: LiveDatabase.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await body(client)
            group.cancelAll()
        }
    }

    var endpoint: ServerEndpoint { ServerEndpoint(secure: true, host: "127.0.0.1", port: port, fingerprint: fingerprint) }

    /// The transport to this server, or to the proxy at `via` in front of it.
    func transport(via proxy: CutProxy? = nil) throws -> NIOHTTPTransport {
        var endpoint = endpoint
        if let proxy { endpoint.port = proxy.port }
        let transport = try NIOHTTPTransport(endpoint: endpoint)
        transport.readTimeoutSeconds = 10
        return transport
    }

    func code() async throws -> String {
        try await admin.generateCodes(study: study, count: 1, expiresDays: 7, now: clock.now)[0]
    }

    /// A laptop's store joined to this server with a fresh code, its consent accepted at the server's time.
    func joinedStore() async throws -> CompanionStore {
        let store = try CompanionStore(path: nil)
        let acceptedAt = clock.now
        let code = try await code()
        let transport = try transport()
        _ = try await onThread {
            try StudyServerJoin.join(endpoint: endpoint, code: code, accept: true, store: store, transport: transport,
                                     console: .quiet, now: acceptedAt)
        }
        return store
    }

    /// Rows of `items` on the server, of one kind or all.
    func itemCount(_ kind: String? = nil) async throws -> Int {
        let rows = try await database.query("SELECT count(*)::bigint FROM items WHERE \(kind == nil) OR kind = \(kind ?? "")", logger: LiveDatabase.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// The bytes stored under an item id.
    func storedBytes(_ itemID: String) async throws -> [UInt8]? {
        let rows = try await database.query("SELECT bytes FROM items WHERE item_id = \(itemID)", logger: LiveDatabase.logger)
        for try await bytes in rows.decode(ByteBuffer.self) { return Array(bytes.readableBytesView) }
        return nil
    }
}

/// Runs blocking client code (NIO's `wait`) on a thread of its own, never on the cooperative
/// pool the server's handlers need.
func onThread<T: Sendable>(_ body: @Sendable @escaping () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

extension Console {
    /// A console that says nothing and answers nothing (tests).
    static var quiet: Console { Console(isInteractive: false, ask: { _ in nil }, say: { _ in }) }
}

/// A mindful walk in the band's own encoding, started at `start`.
func walkBytes(start: Double, seconds: Int = 300, seed: Int = 1) -> [UInt8] {
    let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
    let rows = (0 ..< seconds).map { (t: Int) -> SessionSecond in
        let cadence: Double = 84 + Double((t * seed) % 9)
        return SessionSecond(offsetSeconds: t, steps: (t + seed) % 3 == 0 ? 1 : 2, cadenceStepsPerMinute: cadence,
                             heartRateBPM: 90 + Double(t % 7), heartRateConfidence: 0.9)
    }
    let summary = SessionTally(rows).summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(seconds), parameters: parameters)
    return SessionCoding.encode(SessionRecord(summary: summary, seconds: rows))
}

/// Queues `count` walks of a band into `store` as a sync would (the band's bytes, one item each).
func queueWalks(_ store: CompanionStore, count: Int, from start: Double, band: String = "band-1", firstID: Int64 = 1) throws {
    for n in 0 ..< count {
        let bytes = walkBytes(start: start + Double(n) * 3_600, seed: n + 1)
        let record = try SessionCoding.decode(bytes)
        try store.insert(bandID: band, bandName: "Band", bandSessionID: firstID + Int64(n), record: record, syncedAtUnixSeconds: start,
                         outbox: OutboxSessionItem(itemID: newItemID(), body: bytes, sha256: Digest.sha256Hex(bytes)))
    }
}
