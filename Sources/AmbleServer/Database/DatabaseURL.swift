import AmbleModel
import Logging
import PostgresNIO

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, as
/// `scripts/pg-scratch` prints. TLS to the database: off for loopback, else required unless
/// `sslmode` says otherwise.
public struct DatabaseURL: Sendable, Equatable {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var sslMode: String

    public init(_ text: String) throws {
        func bad(_ why: String) -> StoreError {
            StoreError.invalid("--database \(printableText(text)): \(why); write postgres://USER@HOST:PORT/DATABASE")
        }
        var rest = Substring(text)
        if rest.hasPrefix("postgres://") { rest = rest.dropFirst("postgres://".count) }
        else if rest.hasPrefix("postgresql://") { rest = rest.dropFirst("postgresql://".count) }
        else { throw bad("not a postgres:// URL") }
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") { query = rest[rest.index(after: mark)...]; rest = rest[..<mark] }
        guard let at = rest.lastIndex(of: "@") else { throw bad("no USER@") }
        let credentials = rest[..<at].split(separator: ":", maxSplits: 1).map(String.init)
        guard let user = credentials.first, !user.isEmpty else { throw bad("no user") }
        self.user = user
        self.password = credentials.count > 1 ? credentials[1] : nil
        let location = rest[rest.index(after: at)...]
        guard let slash = location.firstIndex(of: "/") else { throw bad("no /DATABASE") }
        database = String(location[location.index(after: slash)...])
        guard !database.isEmpty else { throw bad("no database name") }
        let hostPort = location[..<slash]
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
            host = String(hostPort[..<colon])
            guard let port = Int(hostPort[hostPort.index(after: colon)...]), (1 ... 65535).contains(port) else { throw bad("the port is not a number from 1 to 65535") }
            self.port = port
        } else {
            host = String(hostPort)
            port = 5432
        }
        guard !host.isEmpty else { throw bad("no host") }
        let loopback = host == "127.0.0.1" || host == "localhost" || host == "[::1]"
        sslMode = loopback ? "disable" : "require"
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2, kv[0] == "sslmode" {
                guard ["disable", "prefer", "require"].contains(kv[1]) else { throw bad("sslmode is disable, prefer or require") }
                sslMode = kv[1]
            }
        }
    }

    /// The URL with another database name (the tests make one database per test).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    public var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "prefer": .prefer(.makeClientConfiguration())
        default: .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host.trimmingBrackets, port: port, username: user, password: password,
                                            database: database, tls: tls)
    }

    /// The client's configuration with a pool of at most `connections` connections.
    public func clientConfiguration(connections: Int) -> PostgresClient.Configuration {
        var configuration = clientConfiguration
        configuration.options.maximumConnections = connections
        return configuration
    }
}

extension String {
    var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}

/// Runs `body` with a client connected to `url` (its pool running beside it), then shuts it down.
public func withDatabase<T: Sendable>(_ url: DatabaseURL, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
    let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        return try await body(client)
    }
}
