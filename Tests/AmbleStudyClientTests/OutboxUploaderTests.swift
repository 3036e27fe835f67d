@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleStudyAPI
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// A server in a test's hands: each request is answered by `answer` (a status, or a transport
/// failure), and recorded.
final class ScriptedTransport: StudyTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [HTTPRequest] = []
    var answer: (HTTPRequest) -> Result<HTTPResponse, TransportError>

    init(answer: @escaping (HTTPRequest) -> Result<HTTPResponse, TransportError>) { self.answer = answer }

    var requests: [HTTPRequest] { lock.withLock { sent } }

    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        lock.withLock { sent.append(request) }
        return try answer(request).get()
    }

    static func status(_ code: Int, _ body: some Encodable = APIError(error: "e", message: "m")) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: code, headers: [], body: StudyServerClient.json(body)))
    }
}

/// The laptop's wall clock in a test: moves only when the test moves it.
final class WallClock: Sendable {
    private let seconds: Mutex<Double>
    init(_ start: Double) { seconds = Mutex(start) }
    var now: Double { seconds.withLock { $0 } }
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
}

/// The outbox's uploads with the server replaced by a script (the acceptance tests use the real
/// server: StudyServerClientTests).
struct OutboxUploaderTests {
    func joined(now: Double) throws -> CompanionStore {
        let store = try CompanionStore(path: nil)
        let server = StudyServerEnrollment(baseURL: "http://127.0.0.1:1", fingerprint: nil, participantID: "p", studyID: "s", consentVersion: "1",
                                           consentSHA256: String(repeating: "c", count: 64), acceptedUnixSeconds: now, bandSettings: [:],
                                           refreshToken: "r0", accessToken: "a0", accessExpiresUnixSeconds: now + 600)
        try store.joinStudyServer(server, studyName: "S", fileText: "", consentEvent: outboxItem(.consent, body: [1], now: now))
        for n in 2 ... 3 { try store.enqueue(outboxItem(.answer, body: [UInt8(n)], now: now)) }
        return store
    }

    @Test func offlineItemsWaitWithBackoffThenAllLeaveOnceAcknowledged() throws {
        let store = try joined(now: 1_000)
        var up = false
        let transport = ScriptedTransport { _ in up ? ScriptedTransport.status(201, APIError(error: "", message: "")) : .failure(.unreachable(server: "s", reason: "refused")) }
        let clock = WallClock(1_000)
        var client = StudyServerClient(transport: transport, store: store)
        client.now = { clock.now }
        let uploader = OutboxUploader(store: store, client: client, random: { 0 })
        let offline = uploader.pass()
        #expect(offline.acknowledged == 0 && offline.failed == 1 && offline.stopped != nil, "an unreachable server stops the pass at the first item")
        #expect(transport.requests.count == 1)
        #expect(try store.outboxItemsDue(nowUnixSeconds: clock.now).count == 2, "the failed item waits out its backoff")
        up = true
        clock.advance(10)
        var passes = 0
        let report = uploader.drain { _, _ in passes += 1; return passes < 5 }
        #expect(report.acknowledged == 3 && passes == 0)
        #expect(try store.outboxSummary().waiting.isEmpty)
        #expect(transport.requests.allSatisfy { $0.headers.contains { $0 == ("Authorization", "Bearer a0") } })
    }

    @Test func aRefusedTokenIsRefreshedOnceAndTheRotatedOneKept() throws {
        let store = try joined(now: 1_000)
        let transport = ScriptedTransport { request in
            if request.path == "/v1/token" { return ScriptedTransport.status(200, TokenResponse(accessToken: "a1", refreshToken: "r1", accessExpiresIn: 300)) }
            let bearer = request.headers.first { $0.0 == "Authorization" }?.1
            return bearer == "Bearer a1" ? ScriptedTransport.status(201) : ScriptedTransport.status(401)
        }
        var client = StudyServerClient(transport: transport, store: store)
        client.now = { 1_000 }
        #expect(OutboxUploader(store: store, client: client).pass().acknowledged == 3)
        #expect(transport.requests.filter { $0.path == "/v1/token" }.count == 1)
        let server = try #require(try store.studyServer())
        #expect(server.refreshToken == "r1" && server.accessToken == "a1" && server.accessExpiresUnixSeconds == 1_300)
    }

    @Test func aTokenRefreshThatFailsNeverAcknowledgesAnItem() throws {
        let store = try joined(now: 1_000)
        // The token endpoint answers 201 with a body that is not a token: no item may count as sent.
        let transport = ScriptedTransport { _ in ScriptedTransport.status(201) }
        var client = StudyServerClient(transport: transport, store: store)
        client.now = { 5_000 }   // the access token has expired
        let report = OutboxUploader(store: store, client: client).pass()
        #expect(report.acknowledged == 0 && report.failed == 3)
        #expect(try store.outboxSummary().waiting.values.reduce(0, +) == 3)
        #expect(transport.requests.allSatisfy { $0.path == "/v1/token" }, "no item is sent without a token")
    }

    @Test func conflictsAndRefusalsAreKeptLoudlyAndNotTriedAgainByThemselves() throws {
        let store = try joined(now: 1_000)
        let items = try store.outboxItems()
        let transport = ScriptedTransport { request in
            request.path.hasSuffix(items[1].itemID) ? ScriptedTransport.status(409, APIError(error: "conflict", message: "other bytes"))
                : request.path.hasSuffix(items[2].itemID) ? ScriptedTransport.status(422, APIError(error: "outside_consent", message: "before consent"))
                : ScriptedTransport.status(201)
        }
        var client = StudyServerClient(transport: transport, store: store)
        client.now = { 1_000 }
        let report = OutboxUploader(store: store, client: client).drain { _, _ in Issue.record("nothing is left to retry"); return false }
        #expect(report.acknowledged == 1 && report.held.count == 2)
        #expect(try store.outboxSummary().held == ["conflict": 1, "outside_consent": 1])
        let text = try #require(try StudyContext.serverText(store: store, time: .utc))
        #expect(text.contains("KEPT, NOT SENT AGAIN: 1 item refused by the server (conflict)"), "\(text)")
        #expect(transport.requests.count == 3)
    }
}
