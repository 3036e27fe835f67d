import AmbleStudyAPI
import Histogram
import NIOCore
import NIOPosix
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A shared counter: hands out 0, 1, 2, ... below a limit.
final class Counter: Sendable {
    private let value = Mutex(0)
    func take(below limit: Int) -> Int? {
        value.withLock { value in
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }

    func peek() -> Int { value.withLock { $0 } }
}

/// One upload: an item as the laptop's outbox holds it.
struct Item: Sendable {
    var kind: ItemKind
    var id: String
    var bytes: [UInt8]
    var sha256: String
    /// The bytes in base64, for the batch endpoint (sessions: made once per walk of the pool).
    var base64: String
}

/// What the connections work on: one participant's items, sent one PUT each or as one batch.
struct Job: Sendable {
    var participant: Int
    var items: [Item]
    var batch: Bool
    /// When it was meant to be sent: latency counts from here, so a queue behind busy
    /// connections shows in it (no coordinated omission).
    var intended: ContinuousClock.Instant
}

/// Jobs waiting for a free connection, first come first served.
actor JobQueue {
    private var jobs: [Job] = []
    private var head = 0
    private var waiting: [CheckedContinuation<Job?, Never>] = []
    private var closed = false

    func put(_ job: Job) {
        if !waiting.isEmpty { waiting.removeFirst().resume(returning: job) } else { jobs.append(job) }
    }

    func take() async -> Job? {
        if head < jobs.count {
            defer {
                head += 1
                if head > 4096 { jobs.removeFirst(head); head = 0 }
            }
            return jobs[head]
        }
        if closed { return nil }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// No more jobs: the connections end once the queue is empty.
    func close() {
        closed = true
        for waiter in waiting { waiter.resume(returning: nil) }
        waiting = []
    }

    var backlog: Int { jobs.count - head }
}

/// How the connections behave.
struct Behaviour: Sendable {
    /// Send every request twice (the second must be answered 200, nothing stored).
    var duplicates = false
    /// Share of requests first sent cut at a random byte of the body (then sent whole).
    var cutShare = 0.0
    /// Keep every item until it is acknowledged, as the laptop's outbox does (retry after
    /// 503, 429, 5xx and lost connections); otherwise each failure is counted as an error.
    var outbox = false
    /// Study id sent in X-Amble-Study.
    var study: String
}

/// Everything measured in a trial, shared by the connections.
final class Tally: Sendable {
    struct State: Sendable {
        var latency = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        var dashboard = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        var statuses: [Int: Int] = [:]
        var failures: [String: Int] = [:]
        var errors: [String: Int] = [:]
        var acknowledged = 0
        var sessions = 0
        var answers = 0
        var requests = 0
        var cuts = 0
        var duplicates = 0
        var retries = 0
        var acknowledgedItems: [String] = []
    }

    let state = Mutex(State())
    let keepItems: Bool

    init(keepItems: Bool) { self.keepItems = keepItems }

    func status(_ code: Int) { state.withLock { $0.statuses[code, default: 0] += 1; $0.requests += 1 } }
    func failure(_ what: String) { state.withLock { $0.failures[what, default: 0] += 1; $0.requests += 1 } }
    func error(_ what: String) { state.withLock { $0.errors[what, default: 0] += 1 } }
    func count(_ path: WritableKeyPath<State, Int>) { state.withLock { $0[keyPath: path] += 1 } }

    func acknowledged(_ items: [Item], participant: String, since intended: ContinuousClock.Instant) {
        let micros = UInt64(max(0, intended.duration(to: .now) / .microseconds(1)))
        state.withLock { state in
            _ = state.latency.record(micros)
            state.acknowledged += items.count
            for item in items {
                if item.kind == .session { state.sessions += 1 } else { state.answers += 1 }
                if keepItems { state.acknowledgedItems.append("\(participant),\(item.kind.rawValue),\(item.id),\(item.sha256)") }
            }
        }
    }

    func dashboardAnswered(since intended: ContinuousClock.Instant) {
        let micros = UInt64(max(0, intended.duration(to: .now) / .microseconds(1)))
        state.withLock { _ = $0.dashboard.record(micros) }
    }
}

/// One connection's loop: takes jobs and sends them until the queue is closed and empty.
struct Worker: Sendable {
    let connection: Connection
    let participants: [Participant]
    let behaviour: Behaviour
    let tally: Tally

    func run(_ queue: JobQueue) async {
        defer { connection.close() }
        while let job = await queue.take() { await send(job) }
    }

    func send(_ job: Job) async {
        let participant = participants[job.participant]
        let requests = job.batch ? [batchRequest(job.items)] : job.items.map(putRequest)
        var generator = SystemRandomNumberGenerator()
        for (index, request) in requests.enumerated() {
            let items = job.batch ? job.items : [job.items[index]]
            var refused: String?
            var attempts = 0
            while true {
                attempts += 1
                if attempts > 1 { tally.count(\.retries) }
                let token: String
                do {
                    token = try await participant.accessToken(over: connection, refused: refused)
                } catch {
                    tally.failure("token: \(String(describing: error).prefix(80))")
                    if behaviour.outbox { try? await Task.sleep(for: .milliseconds(500 + Int.random(in: 0 ..< 1000))); continue }
                    tally.error("no access token")
                    break
                }
                var signed = request
                signed.headers += [("Authorization", "Bearer \(token)"), (StudyAPI.studyHeader, behaviour.study)]
                if behaviour.cutShare > 0, Double.random(in: 0 ..< 1, using: &generator) < behaviour.cutShare, !signed.body.isEmpty {
                    _ = try? await connection.send(signed, cutAfter: Int.random(in: 0 ..< signed.body.count, using: &generator))
                    tally.count(\.cuts)
                }
                let answer: Response
                do {
                    answer = try await connection.send(signed)
                } catch {
                    tally.failure(Self.words(error))
                    if behaviour.outbox { try? await Task.sleep(for: .milliseconds(200 + Int.random(in: 0 ..< 800))); continue }
                    tally.error(Self.words(error))
                    break
                }
                tally.status(answer.status)
                if answer.status == 401 && refused == nil { refused = token; continue }
                if answer.status == 200 || answer.status == 201 {
                    if job.batch, let problem = batchProblem(answer, items: items) { tally.error(problem); break }
                    tally.acknowledged(items, participant: await participant.id, since: job.intended)
                    if behaviour.duplicates { await duplicate(signed, items: items) }
                    break
                }
                let retryable = answer.status == 503 || answer.status == 429 || answer.status >= 500
                if behaviour.outbox && retryable {
                    let wait = answer.headers["retry-after"].first.flatMap(Double.init) ?? 1
                    try? await Task.sleep(for: .milliseconds(Int(min(wait, 5) * 1000 * Double.random(in: 0.5 ... 1))))
                    continue
                }
                tally.error("\(answer.status) \(Self.errorCode(answer.body))")
                break
            }
        }
    }

    /// The same request again: a laptop that never saw the first answer sends it again.
    private func duplicate(_ request: Request, items: [Item]) async {
        tally.count(\.duplicates)
        while true {
            guard let again = try? await connection.send(request) else {
                if behaviour.outbox { continue }
                tally.error("duplicate: no answer")
                return
            }
            tally.status(again.status)
            if behaviour.outbox, again.status == 503 || again.status == 401 { try? await Task.sleep(for: .milliseconds(500)); continue }
            let expected = request.path == "/v1/items" ? 200 : 200
            if again.status != expected { tally.error("duplicate answered \(again.status) \(Self.errorCode(again.body))") }
            if request.path == "/v1/items", let problem = batchProblem(again, items: items, duplicate: true) { tally.error(problem) }
            return
        }
    }

    func putRequest(_ item: Item) -> Request {
        Request(method: .PUT, path: "/v1/items/\(item.kind.rawValue)/\(item.id)",
                headers: [("Content-Type", item.kind == .session ? "application/octet-stream" : "application/json"), (StudyAPI.digestHeader, item.sha256)],
                body: item.bytes)
    }

    /// `POST /v1/items`: `{"items":[{"kind","id","sha256","bytes"}...]}` (bytes in base64).
    func batchRequest(_ items: [Item]) -> Request {
        var body = #"{"items":["#
        for (index, item) in items.enumerated() {
            if index > 0 { body += "," }
            body += #"{"kind":"\#(item.kind.rawValue)","id":"\#(item.id)","sha256":"\#(item.sha256)","bytes":"\#(item.base64)"}"#
        }
        body += "]}"
        return Request(method: .POST, path: "/v1/items", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
    }

    struct BatchAnswer: Decodable {
        struct Result: Decodable { var id: String; var status: Int; var error: String? }
        var results: [Result]
    }

    /// What is wrong with a batch's answer: every item answered, in order, 201 (or 200 when sent before).
    func batchProblem(_ answer: Response, items: [Item], duplicate: Bool = false) -> String? {
        guard let decoded = try? JSONDecoder().decode(BatchAnswer.self, from: Data(answer.body)) else { return "batch: answer not the contract's JSON" }
        guard decoded.results.map(\.id) == items.map(\.id) else { return "batch: results not the items in order" }
        let bad = decoded.results.filter { duplicate ? $0.status != 200 : !($0.status == 201 || $0.status == 200) }
        return bad.first.map { "batch item answered \($0.status) \($0.error ?? "")" }
    }

    static func errorCode(_ body: [UInt8]) -> String {
        (try? JSONDecoder().decode(APIError.self, from: Data(body)))?.error ?? ""
    }

    static func words(_ error: any Error) -> String {
        switch error {
        case ExchangeFailure.timedOut: "timed out"
        case ExchangeFailure.cutOnPurpose: "cut"
        case ExchangeFailure.connection(let why): "connection: " + String(why.prefix(60))
        default: String(describing: error).prefix(80).description
        }
    }
}
