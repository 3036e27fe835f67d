@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleStudyAPI
import Foundation
import Testing

/// The laptop's side against the real amble-server and PostgreSQL (LiveServer): joining, the
/// outbox offline and caught up, uploads cut at random bytes, a retry storm, a conflict,
/// withdrawal, a certificate that is not the pinned one. Each waits on state (the outbox, the
/// server's rows), never on the clock.
@Suite(.enabled(if: LiveDatabase.available, LiveDatabase.skipReason), .serialized)
struct StudyServerClientTests {
    func blocking<T: Sendable>(_ body: @Sendable @escaping () throws -> T) async throws -> T { try await onThread(body) }

    func uploader(_ server: LiveServer, _ store: CompanionStore, via proxy: CutProxy? = nil) throws -> OutboxUploader {
        OutboxUploader(store: store, client: StudyServerClient(transport: try server.transport(via: proxy), store: store),
                       backoff: .init(baseSeconds: 0, capSeconds: 0))
    }

    /// Drains `uploader` until nothing waits (at most `passes` passes): the state, not the clock, ends it.
    func drained(_ uploader: OutboxUploader, passes: Int = 2_000) async throws -> OutboxUploader.Report {
        try await blocking {
            var left = passes
            return uploader.drain { _, _ in
                left -= 1
                return left > 0
            }
        }
    }

    @Test func joiningRecordsTheConsentTheStudyAndAnArmsSettingsAndSendsTheConsentEvent() async throws {
        try await LiveServer.run { server in
            let store = try await server.joinedStore()
            let joined = try #require(try store.studyServer())
            #expect(joined.fingerprint == server.fingerprint && joined.consentVersion == "3" && joined.refreshToken != nil)
            #expect(LiveServer.arms.map(\.bandSettings).contains(joined.bandSettings), "one arm's settings, its name not sent")
            #expect(try store.studyEnrollment()?.studyName == "Mindful walking")
            // The laptop's zone as TZ or /etc/localtime names it (Etc/UTC here), UTC when it names none.
            let zone = try await server.database.query("SELECT time_zone FROM participants", logger: LiveDatabase.logger).decode(String.self)
            #expect(try await zone.first(where: { _ in true }) == localTimeZoneName().flatMap { LocalTime.zone(named: $0) != nil ? $0 : nil } ?? "UTC")
            #expect(try store.outboxItems().map(\.kind) == [.consent])
            let report = try await drained(try uploader(server, store))
            #expect(report.acknowledged == 1 && report.held.isEmpty)
            #expect(try await server.itemCount("consent") == 1)
        }
    }

    @Test func aLaptopOfflineQueuesEverythingAndCatchesUpWithNothingLostOrDoubled() async throws {
        try await LiveServer.run(daysAgo: 10) { server in
            let store = try await server.joinedStore()
            server.clock.advance(10 * 86_400)
            try queueWalks(store, count: 12, from: Date().timeIntervalSince1970 - 9 * 86_400)
            // Offline: the server's port has nothing behind it.
            let proxy = try CutProxy(upstreamPort: 1)
            defer { proxy.stop() }
            let offline = try await blocking { try uploader(server, store, via: proxy).pass(everything: true) }
            #expect(offline.acknowledged == 0 && offline.stopped != nil, "an unreachable server ends the pass at its first item")
            #expect(try store.outboxSummary().waiting == [.consent: 1, .session: 12])
            #expect(try await server.itemCount() == 0)
            let back = try await drained(try uploader(server, store))
            #expect(back.acknowledged == 13)
            #expect(try store.outboxSummary().waiting.isEmpty)
            #expect(try await server.itemCount("session") == 12)
            for item in try store.outboxItems() where item.kind == .session {
                #expect(try await server.storedBytes(item.itemID) == item.body, "the server keeps the band's bytes")
            }
        }
    }

    @Test func uploadsCutAtRandomBytesBothWaysAreRetriedWithNothingLostOrDoubled() async throws {
        try await LiveServer.run(daysAgo: 10) { server in
            let store = try await server.joinedStore()
            server.clock.advance(10 * 86_400)
            let proxy = try CutProxy(upstreamPort: server.port)
            defer { proxy.stop() }
            // One whole exchange through the proxy gives the sizes to cut within.
            #expect(try await drained(try uploader(server, store, via: proxy)).acknowledged == 1)
            let whole = proxy.lastWhole
            #expect(whole.request > 300 && whole.response > 100, "\(whole)")
            try queueWalks(store, count: 20, from: Date().timeIntervalSince1970 - 9 * 86_400)
            var random = SystemRandomNumberGenerator()
            let cuts = (0 ..< 120).map { n in
                n % 2 == 0 ? CutProxy.Cut(direction: .request, bytes: Int.random(in: 0 ..< whole.request, using: &random))
                    : CutProxy.Cut(direction: .response, bytes: Int.random(in: 0 ..< whole.response, using: &random))
            }
            proxy.plan(cuts)
            let report = try await drained(try uploader(server, store, via: proxy))
            #expect(proxy.cutsMade.count >= 100, "\(proxy.cutsMade.count) cuts made")
            #expect(proxy.cutsMade.contains { $0.direction == .response } && proxy.cutsMade.contains { $0.direction == .request })
            #expect(report.held.isEmpty)
            #expect(try store.outboxSummary().waiting.isEmpty)
            #expect(try await server.itemCount("session") == 20, "each walk stored once")
            for item in try store.outboxItems() {
                #expect(try await server.storedBytes(item.itemID) == item.body)
            }
        }
    }

    @Test func aRetryStormOfOneItemStoresItOnce() async throws {
        try await LiveServer.run { server in
            let store = try await server.joinedStore()
            try queueWalks(store, count: 1, from: Date().timeIntervalSince1970 + 60)
            let item = try #require(try store.outboxItems().first { $0.kind == .session })
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0 ..< 16 {
                    group.addTask {
                        try await onThread {
                            let client = StudyServerClient(transport: try server.transport(), store: store)
                            guard case .response(let status, _, _, _) = client.put(item) else { return -1 }
                            return status
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1 && statuses.filter { $0 == 200 }.count == 15, "\(statuses.sorted())")
            #expect(try await server.itemCount("session") == 1)
        }
    }

    @Test func otherBytesUnderAnIDAreAConflictKeptLoudly() async throws {
        try await LiveServer.run { server in
            let store = try await server.joinedStore()
            let first = outboxItem(.answer, body: StudyServerClient.json(AnswerItem(questionnaire: "evening", answeredAt: Date().timeIntervalSince1970 + 60,
                                                                                    answers: ["calm": "4"])), now: 0)
            let client = StudyServerClient(transport: try server.transport(), store: store)
            guard case .response(201, _, _, _) = try await blocking({ client.put(first) }) else { Issue.record("first upload refused"); return }
            var changed = first
            changed.body = StudyServerClient.json(AnswerItem(questionnaire: "evening", answeredAt: Date().timeIntervalSince1970 + 60, answers: ["calm": "5"]))
            changed.sha256 = Digest.sha256Hex(changed.body)
            changed.createdUnixSeconds = Date().timeIntervalSince1970
            try store.enqueue(changed)
            let report = try await drained(try uploader(server, store))
            #expect(report.held.count == 1 && report.held[0].contains("409"), "\(report)")
            #expect(try store.outboxSummary().held == ["conflict": 1])
            #expect(try StudyContext.serverText(store: store, time: .utc)?.contains("KEPT, NOT SENT AGAIN") == true)
            #expect(try await server.storedBytes(first.itemID) == first.body, "the server keeps the first bytes")
        }
    }

    @Test func withdrawalRevokesTheTokensAndDropsWhatWaits() async throws {
        try await LiveServer.run { server in
            let store = try await server.joinedStore()
            try queueWalks(store, count: 2, from: Date().timeIntervalSince1970 + 60)
            let access = try #require(try store.studyServer()?.accessToken)
            let client = StudyServerClient(transport: try server.transport(), store: store)
            let said = try await blocking {
                try StudyCommand.WithdrawCommand.withdraw(client: client, store: store, deleteData: false, yes: true, console: .quiet, now: Date().timeIntervalSince1970)
            }
            #expect(said.contains("Not sent, and dropped: 2 sessions, 1 consent"), "\(said)")
            let after = try #require(try store.studyServer())
            #expect(after.refreshToken == nil && after.accessToken == nil && after.withdrawnUnixSeconds != nil)
            #expect(try store.outboxSummary().waiting.isEmpty)
            let old = try await blocking {
                try server.transport().send(HTTPRequest(method: .GET, path: "/v1/study", headers: [("Authorization", "Bearer " + access)]))
            }
            #expect(old.status == 401, "the server revoked the token")
        }
    }

    @Test func aCertificateThatIsNotThePinnedOneIsRefusedAndNothingIsSent() async throws {
        try await LiveServer.run { server in
            var endpoint = server.endpoint
            endpoint.fingerprint = String(repeating: "0", count: 64)
            let transport = try NIOHTTPTransport(endpoint: endpoint)
            let code = try await server.code()
            let error = await #expect(throws: TransportError.self) {
                try await blocking { try StudyServerClient.preview(code: code, transport: transport) }
            }
            #expect(error == .certificateMismatch(server: endpoint.baseURL, expected: endpoint.fingerprint!, found: server.fingerprint))
        }
    }
}
