#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import Crypto
import Hummingbird
import HummingbirdCore
import Logging
import PostgresNIO

/// One server process: the database client, the signing key, the clock and the limits. Every
/// state that matters lives in PostgreSQL, so any number of these can serve one study behind a
/// load balancer; the one exception is the rate limiter's buckets (in memory, per process).
public struct StudyServer: Sendable {
    public struct Configuration: Sendable {
        /// Seconds since 1970, now. Tests give a manual clock.
        public var now: @Sendable () -> Double
        /// Requests a participant may make in a burst, and how many more each second.
        public var rateLimitBurst: Double
        public var rateLimitPerSecond: Double
        public var maxItemBytes: Int
        /// Whether the researcher's login cookie is marked Secure (sent over HTTPS only): true
        /// but for plain HTTP on loopback (`serve --insecure-loopback`), where it could not be sent back.
        public var secureCookies: Bool
        /// Whether this process runs a worker for the `jobs` table (docs/server-operations.md,
        /// "Background jobs"); every process of a deployment may.
        public var runsJobs: Bool
        /// How the server finds out that the database cannot be reached (503 rather than a
        /// request waiting on the pool); nil: connection errors still answer 503, but a request
        /// waits for the pool as long as the pool waits (`DatabaseHealth`).
        public var databaseHealth: DatabaseHealth?

        public init(now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                    rateLimitBurst: Double = 120, rateLimitPerSecond: Double = 4,
                    maxItemBytes: Int = StudyAPILimits.maxItemBytes, secureCookies: Bool = true, runsJobs: Bool = true,
                    databaseHealth: DatabaseHealth? = nil) {
            self.now = now
            self.rateLimitBurst = rateLimitBurst
            self.rateLimitPerSecond = rateLimitPerSecond
            self.maxItemBytes = maxItemBytes
            self.secureCookies = secureCookies
            self.runsJobs = runsJobs
            self.databaseHealth = databaseHealth
        }
    }

    public let client: PostgresClient
    public let tokens: AccessTokens
    public let configuration: Configuration
    public let logger: Logger
    let rateLimiter: RateLimiter

    public init(client: PostgresClient, signingKey: Curve25519.Signing.PrivateKey, configuration: Configuration = .init(), logger: Logger) {
        self.client = client
        self.tokens = AccessTokens(key: signingKey)
        self.configuration = configuration
        self.logger = logger
        self.rateLimiter = RateLimiter(burst: configuration.rateLimitBurst, perSecond: configuration.rateLimitPerSecond)
    }

    var now: Double { configuration.now() }

    /// Runs `body` in one transaction on one connection.
    func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await Transaction.run(on: connection, logger: logger, body)
        }
    }

    /// The HTTP application: the participant API (docs/server.md), the database client as a
    /// service, and the migrations applied before the server listens.
    public func application(server: HTTPServerBuilder = .http1(), configuration: ApplicationConfiguration = .init(),
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: DatabaseAvailability(health: self.configuration.databaseHealth ?? DatabaseHealth { true }))
        ParticipantRoutes(server: self).register(on: router)
        ResearcherRoutes(server: self).register(on: router)
        router.add(middleware: MethodNotAllowed())
        var app = Application(router: router, server: server, configuration: configuration,
                              onServerRunning: onServerRunning, logger: logger)
        app.addServices(client)
        let client = client
        let logger = logger
        app.beforeServerStarts(perform: { try await Migrator.migrate(client, logger: logger) })
        if self.configuration.runsJobs {
            app.addServices(JobWorker(queue: JobQueue(client: client, logger: logger), work: ServerJobs.work(logger: logger),
                                      now: self.configuration.now, prepare: { try await Migrator.migrate(client, logger: logger) }))
        }
        return app
    }
}

/// Seconds since 1970 as PostgreSQL's timestamptz takes them.
func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
