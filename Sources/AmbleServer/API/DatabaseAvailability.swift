import AmbleStudyAPI
import Hummingbird
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

extension ServerError {
    /// Seconds a client is asked to wait while the database is unreachable: about what a
    /// PostgreSQL restart or a failover to a standby takes.
    static let databaseRetryAfterSeconds = 5

    /// 503: the database cannot be reached (stopped, restarting, failing over) or the
    /// connection died under the request. Nothing of the request was kept; send it again.
    static let databaseUnavailable = ServerError(
        .serviceUnavailable, "database_unavailable",
        "The study's database cannot be reached just now (it may be restarting); nothing of this request was kept. Send it again in a few seconds.",
        retryAfter: databaseRetryAfterSeconds)
}

/// Whether the database can be reached, as the server last found out, and the check that finds
/// out. PostgresClient's pool keeps a request waiting while it cannot connect (up to a minute,
/// until its circuit breaker trips) and answers a query on a connection that died with an
/// error: both are turned into 503 `database_unavailable` with `Retry-After`, never 500, and
/// the pool reconnects by itself when the database is back.
///
/// The check (`probe`) opens one connection of its own and closes it. It runs when a request
/// failed with a connection error, when a request has waited `grace` without an answer, and
/// before each request while the last check failed more than `recheckAfter` ago; checks
/// that overlap share one connection attempt.
public final class DatabaseHealth: Sendable {
    enum Status: Sendable, Equatable {
        case reachable
        /// A request's connection failed: check before trusting the pool again.
        case suspect
        case unreachable(since: ContinuousClock.Instant)
    }

    private struct State: Sendable {
        var status = Status.reachable
        var probe: Task<Bool, Never>?
    }

    private let state = Mutex(State())
    private let probe: @Sendable () async -> Bool
    /// How long a request waits for the database before the check runs.
    let grace: Duration
    /// How long a failed check is trusted before the next request checks again.
    let recheckAfter: Duration

    public init(grace: Duration = .seconds(2), recheckAfter: Duration = .seconds(1), probe: @escaping @Sendable () async -> Bool) {
        self.grace = grace
        self.recheckAfter = recheckAfter
        self.probe = probe
    }

    /// Checks by opening a connection to `url` (`timeout` to connect and log in) and closing it.
    public convenience init(url: DatabaseURL, logger: Logger, timeout: Duration = .seconds(2)) {
        self.init {
            var configuration = PostgresConnection.Configuration(host: url.host.trimmingBrackets, port: url.port, username: url.user,
                                                                 password: url.password, database: url.database, tls: .disable)
            configuration.options.connectTimeout = TimeAmount.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000)
            do {
                if url.sslMode != "disable" {
                    let context = try NIOSSLContext(configuration: .makeClientConfiguration())
                    configuration.tls = url.sslMode == "prefer" ? .prefer(context) : .require(context)
                }
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                try? await connection.close()
                return true
            } catch {
                return false
            }
        }
    }

    /// Whether a request may go to the database now (checking first when the last news was bad).
    func admits() async -> Bool {
        let status = state.withLock { $0.status }
        switch status {
        case .reachable: return true
        case .unreachable(let since) where since.duration(to: .now) < recheckAfter: return false
        case .unreachable, .suspect: return await check()
        }
    }

    /// A request failed with a connection error.
    func requestFailed() {
        state.withLock { if $0.status == .reachable { $0.status = .suspect } }
    }

    /// One check, shared by every caller while it runs; its result becomes the status.
    func check() async -> Bool {
        let task = state.withLock { state in
            if let running = state.probe { return running }
            let started = Task { await probe() }
            state.probe = started
            return started
        }
        let reachable = await task.value
        state.withLock { state in
            if state.probe == task {
                state.probe = nil
                state.status = reachable ? .reachable : .unreachable(since: .now)
            }
        }
        return reachable
    }

    /// Whether `error` says the database could not be reached or the connection died, rather
    /// than that a query was wrong.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
                return true
            case .server:
                // Class 08 (connection exception); 57P01-57P03: shut down by an administrator,
                // crashed, starting up (https://www.postgresql.org/docs/15/errcodes-appendix.html).
                let state = error.serverInfo?[.sqlState] ?? ""
                return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
            default:
                return false
            }
        }
        // The pool's own error once its circuit breaker has tripped (its module is underscored:
        // matched by name rather than imported).
        if String(describing: type(of: error)) == "ConnectionPoolError" { return true }
        return error is ChannelError || error is IOError
    }
}

/// Answers 503 `database_unavailable` (with `Retry-After`) instead of 500 when the database
/// cannot be reached or dies under a request, and instead of a request hanging while the pool
/// cannot connect (`DatabaseHealth`). Added to the router before every route, so it wraps all.
struct DatabaseAvailability<Context: RequestContext>: RouterMiddleware {
    let health: DatabaseHealth

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard await health.admits() else { throw ServerError.databaseUnavailable }
        do {
            return try await watched { try await next(request, context) }
        } catch let error where DatabaseHealth.isConnectionLoss(error) {
            health.requestFailed()
            throw ServerError.databaseUnavailable
        } catch let error where !(error is any HTTPResponseError) {
            // Answered 500 by Hummingbird, which says nothing of it at the default level: an
            // operator needs to see what it was (seen: 500s during a Patroni failover, cause
            // not yet known).
            context.logger.error("request answered 500", metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: error))"])
            throw error
        }
    }

    /// Runs `handler`; if it has not answered within the grace period and the check finds the
    /// database unreachable, the handler is cancelled (its wait for a connection with it) and
    /// the request answered 503. A slow request on a reachable database is left to finish.
    private func watched(_ handler: () async throws -> Response) async throws -> Response {
        let health = health
        return try await withoutActuallyEscaping(handler) { handler in
            let box = UncheckedHandler(run: handler)
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await box.run() }
                group.addTask {
                    try await Task.sleep(for: health.grace)
                    guard await health.check() else { throw ServerError.databaseUnavailable }
                    return nil
                }
                while let answer = try await group.next() {
                    if let answer {
                        group.cancelAll()
                        return answer
                    }
                }
                preconditionFailure("the handler's task answers or throws")
            }
        }
    }

    /// The handler, carried into the task group that awaits it before returning.
    private struct UncheckedHandler: @unchecked Sendable {
        let run: () async throws -> Response
    }
}
