import AmbleServer
import AmbleVersion
import ArgumentParser
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import PostgresNIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

@main
struct AmbleServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "amble-server",
        abstract: "The study server: participants join with a code, upload their walks and answers; researchers see the study (docs/server.md).",
        version: AmbleVersion.string,
        subcommands: [Init.self, Serve.self, AdminCommand.self])
}

struct DatabaseOption: ParsableArguments {
    @Option(help: "The PostgreSQL database: postgres://USER@HOST:PORT/DATABASE (scripts/pg-scratch prints one).")
    var database: String

    func url() throws -> DatabaseURL { try DatabaseURL(database) }
}

func makeLogger() -> Logger {
    var logger = Logger(label: "amble-server")
    logger.logLevel = .notice
    return logger
}

/// Runs `body` on the database after applying the migrations (so that a new database works).
func withMigratedDatabase<T: Sendable>(_ option: DatabaseOption, _ body: @Sendable (PostgresClientHandle) async throws -> T) async throws -> T {
    let logger = makeLogger()
    return try await withDatabase(try option.url(), logger: logger) { client in
        try await Migrator.migrate(client, logger: logger)
        return try await body(PostgresClientHandle(admin: Admin(client: client, logger: logger)))
    }
}

struct PostgresClientHandle: Sendable { var admin: Admin }

struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a folder with a self-signed TLS certificate and the key that signs access tokens; prints the certificate's SHA-256 fingerprint.")

    @Argument(help: "The folder to make (it must not hold the files already).")
    var directory: String

    @Option(name: .customLong("host"), help: "A name or IPv4 address the certificate is for (repeat it); default localhost and 127.0.0.1.")
    var hosts: [String] = []

    func run() async throws {
        mkdir(directory, 0o700)
        let identity = ServerIdentity(directory: directory)
        let fingerprint = try await identity.create(hosts: hosts.isEmpty ? ["localhost", "127.0.0.1"] : hosts)
        print("made \(identity.certificatePath), \(identity.certificateKeyPath) and \(identity.signingKeyPath)")
        print("certificate SHA-256 fingerprint: \(fingerprint)")
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the study API over HTTPS (plain HTTP only on loopback, when asked).")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Where to listen, HOST:PORT.")
    var listen: String = "127.0.0.1:8443"

    @Option(help: "The folder `amble-server init` made (its signing key, and its certificate unless --tls-cert is given).")
    var identity: String

    @Option(help: "A PEM certificate (chain) to serve instead of the folder's.")
    var tlsCert: String?

    @Option(help: "The PEM key of --tls-cert.")
    var tlsKey: String?

    @Flag(help: "Serve plain HTTP; allowed only when --listen is a loopback address (for tests and demos).")
    var insecureLoopback = false

    func validate() throws {
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("give --tls-cert and --tls-key together") }
        if insecureLoopback {
            guard tlsCert == nil else { throw ValidationError("--insecure-loopback serves plain HTTP: leave out --tls-cert") }
            guard let host = try? hostPort().host, ["127.0.0.1", "localhost", "::1"].contains(host) else {
                throw ValidationError("--insecure-loopback: \(listen) is not a loopback address; plain HTTP is served only on 127.0.0.1, ::1 or localhost")
            }
        }
        _ = try hostPort()
    }

    func hostPort() throws -> (host: String, port: Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0 ... 65535).contains(port) else {
            throw ValidationError("--listen \(listen): write HOST:PORT, such as 0.0.0.0:8443")
        }
        return (String(listen[..<colon].filter { $0 != "[" && $0 != "]" }), port)
    }

    func run() async throws {
        let logger = makeLogger()
        let files = ServerIdentity(directory: identity)
        let key = try files.signingKey()
        let (host, port) = try hostPort()
        let builder: HTTPServerBuilder = insecureLoopback
            ? .http1()
            : try .tls(.http1(), tlsConfiguration: files.tlsConfiguration(certificatePath: tlsCert, keyPath: tlsKey))
        let url = try database.url()
        let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: logger)
        let server = StudyServer(client: client, signingKey: key,
                                 configuration: .init(secureCookies: !insecureLoopback, databaseHealth: DatabaseHealth(url: url, logger: logger)),
                                 logger: logger)
        let app = server.application(server: builder, configuration: .init(address: .hostname(host, port: port), serverName: "amble-server")) { _ in
            print("amble-server: serving \(insecureLoopback ? "http" : "https")://\(listen)/v1")
            fflush(nil)
        }
        try await app.runService()
    }
}

struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Researchers, studies and join codes.",
        subcommands: [ResearcherCommand.self, StudyCommand.self, CodesCommand.self])
}

struct ResearcherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "researcher", abstract: "Researcher accounts.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a researcher; the password is read from standard input (one line).")
        @Argument(help: "The researcher's login name.") var name: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ValidationError("no password on standard input; pipe it in, such as: amble-server admin researcher add \(name) --database URL < password-file")
            }
            let name = self.name
            try await withMigratedDatabase(database) { try await $0.admin.addResearcher(name: name, password: password) }
            print("researcher \(name) added (password hashed with PBKDF2-SHA256, \(PasswordHash.defaultRounds) rounds)")
        }
    }
}

struct StudyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "study", abstract: "Studies.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a study from a study file (docs/study.md); prints its id.")
        @Argument(help: "The study file (TOML).") var file: String
        @Option(help: "The researcher who owns it.") var owner: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let definition = try StudyDefinition.load(path: file)
            let owner = self.owner
            let id = try await withMigratedDatabase(database) { try await $0.admin.createStudy(definition, owner: owner) }
            print(id.uuidString.lowercased())
        }
    }
}

struct CodesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "codes", abstract: "Join codes.", subcommands: [Generate.self])

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make single-use join codes, printed once, one a line (the server keeps only their hashes).")
        @Argument(help: "The study's id.") var study: String
        @Option(help: "How many codes.") var count: Int
        @Option(help: "Days until they expire (default: the study file's [enrolment] code_expiry_days, else 14).") var expiresDays: Double?
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            guard let id = UUID(uuidString: study) else { throw ValidationError("\(study) is not a study id (printed by `admin study create`)") }
            let (count, days) = (self.count, expiresDays)
            let codes = try await withMigratedDatabase(database) {
                try await $0.admin.generateCodes(study: id, count: count, expiresDays: days, now: Date().timeIntervalSince1970)
            }
            for code in codes { print(code) }
        }
    }
}
