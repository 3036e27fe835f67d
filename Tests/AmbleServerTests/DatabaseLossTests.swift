import AmbleServer
import AmbleStudyAPI
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

/// The server when PostgreSQL goes away: a cluster of the test's own (scripts/pg-scratch), stopped
/// under a running server and started again on the same port.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct DatabaseLossTests {
    /// scripts/pg-scratch ARGUMENTS..., its standard output. Through system(3) and a file:
    /// Foundation's Process.waitUntilExit never returned here once the script had ended.
    static func pgScratch(_ arguments: String...) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-scratch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let command = ([root.appendingPathComponent("scripts/pg-scratch").path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let status = system(command + " >'\(output.path)'")
        guard status == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(command) failed (\(status))"]) }
        return try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aStoppedDatabaseAnswers503UntilItIsBackThenTheServerRecoversByItself() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("amble-db-loss-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { _ = try? Self.pgScratch("stop", folder + "/pg"); try? FileManager.default.removeItem(atPath: folder) }
        let url = try DatabaseURL(try Self.pgScratch("start", folder + "/pg", "--no-fsync"))
        let clock = ManualClock(ServerFixture.start)
        let database = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: TestDatabase.logger)
        let server = StudyServer(client: database, signingKey: Curve25519.Signing.PrivateKey(),
                                 configuration: .init(now: { clock.now }, databaseHealth: DatabaseHealth(url: url, logger: TestDatabase.logger)),
                                 logger: TestDatabase.logger)
        try await server.application().test(.router) { client in
            let admin = Admin(client: database, logger: TestDatabase.logger)
            try await admin.addResearcher(name: "ada", password: "correct horse battery", rounds: 1000)
            let definition = ServerFixture.studyDefinition()
            let study = try await admin.createStudy(definition, owner: "ada")
            let fixture = ServerFixture(client: client, admin: admin, clock: clock, study: study, consent: definition.consent, database: database)
            let token = try await fixture.joined().accessToken
            let walk = { sessionBytes(start: clock.now + 60) }
            #expect(try await fixture.put("session", itemID(), walk(), token: token).status == .created)

            _ = try Self.pgScratch("stop", folder + "/pg")
            for _ in 0 ..< 3 {
                let refused = try await fixture.put("session", itemID(), walk(), token: token)
                #expect(refused.status == .serviceUnavailable)
                #expect(fixture.errorCode(refused) == "database_unavailable")
                #expect(refused.headers[.retryAfter] == "5")
            }
            let page = try await fixture.get("/v1/study", token: token)
            #expect(page.status == .serviceUnavailable)

            #expect(try Self.pgScratch("start", folder + "/pg", "--no-fsync") == "postgres://amble@127.0.0.1:\(url.port)/amble")
            // Until the server finds the database again every answer is 503, then the upload is stored.
            var statuses: [HTTPResponse.Status] = []
            while statuses.last != .created, statuses.count < 600 {
                if !statuses.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
                statuses.append(try await fixture.put("session", itemID(), walk(), token: token).status)
            }
            #expect(statuses.last == .created)
            #expect(statuses.dropLast().allSatisfy { $0 == .serviceUnavailable }, "answers while it came back: \(Set(statuses))")
        }
    }
}
