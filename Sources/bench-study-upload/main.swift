// The study server's client measured against a running amble-server (scripts/bench-study-upload
// starts one on a scratch PostgreSQL): the latency of one session's upload (each PUT on its own
// TLS connection, as `amble` makes them), and the time to catch up a month of one offline
// laptop. A developer's measurement, not a test.
@testable import AmbleCLI
import AmbleCompanionStore
import AmbleModel
import AmbleStudyAPI
import AmbleSync
import AmbleLinux
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    writeStandardError("bench-study-upload: " + message + "\n")
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 5, let uploads = Int(arguments[3]), let monthSessions = Int(arguments[4]) else {
    fail("usage: bench-study-upload https://HOST:PORT#sha256=HEX CODE1 CODE2 UPLOADS MONTH-SESSIONS")
}
guard let endpoint = try? ServerEndpoint(parsing: arguments[0]) else { fail("\(arguments[0]) is not a server link") }
let clock = SystemClock()
let day = 86_400.0

/// A walk in the band's encoding: `minutes` long, started at `start`.
func walk(start: Double, minutes: Int, seed: Int) -> [UInt8] {
    let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
    let rows = (0 ..< minutes * 60).map { (t: Int) -> SessionSecond in
        let cadence: Double = 84 + Double((t * seed) % 9)
        return SessionSecond(offsetSeconds: t, steps: (t + seed) % 3 == 0 ? 1 : 2, cadenceStepsPerMinute: cadence,
                             heartRateBPM: 90 + Double((t + seed) % 7), heartRateConfidence: 0.9)
    }
    let summary = SessionTally(rows).summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(rows.count), parameters: parameters)
    return SessionCoding.encode(SessionRecord(summary: summary, seconds: rows))
}

func queueWalk(_ store: CompanionStore, id: Int64, start: Double) throws -> Int {
    let bytes = walk(start: start, minutes: 30, seed: Int(id))
    try store.insert(bandID: "bench-band", bandName: "Bench", bandSessionID: id, record: try SessionCoding.decode(bytes), syncedAtUnixSeconds: start,
                     outbox: OutboxSessionItem(itemID: newItemID(), body: bytes, sha256: Digest.sha256Hex(bytes)))
    return bytes.count
}

func joined(code: String, acceptedAt: Double) throws -> (CompanionStore, OutboxUploader) {
    let store = try CompanionStore(path: nil)
    let transport = try NIOHTTPTransport(endpoint: endpoint)
    _ = try StudyServerJoin.join(endpoint: endpoint, code: code, accept: true, store: store, transport: transport,
                                 console: Console(isInteractive: false, ask: { _ in nil }, say: { _ in }), now: acceptedAt)
    let uploader = OutboxUploader(store: store, client: StudyServerClient(transport: transport, store: store))
    return (store, uploader)
}

do {
    let now = Date().timeIntervalSince1970
    // One session at a time: queued, then one pass (a PUT on a new TLS connection, the answer, the store's acknowledgement).
    let (store, uploader) = try joined(code: arguments[1], acceptedAt: now - 2 * day)
    _ = uploader.pass()   // the consent event, and the access token
    var latencies: [Double] = [], bytes = 0
    for n in 1 ... uploads {
        bytes += try queueWalk(store, id: Int64(n), start: now - day + Double(n) * 60)
        let started = clock.nowSeconds
        let report = uploader.pass()
        latencies.append(clock.nowSeconds - started)
        guard report.acknowledged == 1 else { fail("upload \(n) not acknowledged: \(report)") }
    }
    latencies.sort()
    func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
    print("upload of one session (30-minute walk, \(bytes / uploads) bytes), \(uploads) uploads: median \(ms(latencies[uploads / 2])), "
          + "p99 \(ms(latencies[min(uploads - 1, Int((Double(uploads) * 0.99).rounded(.up)) - 1)])), max \(ms(latencies.last!))")

    // A month offline: the walks and answer sheets queued, then one drain.
    let (month, catchUp) = try joined(code: arguments[2], acceptedAt: now - 31 * day)
    for n in 0 ..< monthSessions { _ = try queueWalk(month, id: Int64(n + 1), start: now - 30 * day + Double(n) * 30 * day / Double(monthSessions)) }
    let sheets = monthSessions / 2
    for n in 0 ..< sheets {
        let at = now - 30 * day + Double(n) * day + 3_600
        let sheet = AnswerItem(questionnaire: "evening", answeredAt: at, answers: ["calm": String(1 + n % 7), "walked": n % 2 == 0 ? "yes" : "no"])
        try month.enqueue(outboxItem(.answer, body: StudyServerClient.json(sheet), now: at))
    }
    let waiting = try month.outboxSummary().waiting.values.reduce(0, +)
    let started = clock.nowSeconds
    let report = catchUp.drain { _, _ in false }
    let seconds = clock.nowSeconds - started
    guard report.acknowledged == waiting else { fail("catch-up acknowledged \(report.acknowledged) of \(waiting): \(report)") }
    print("catch-up of a month offline (\(monthSessions) sessions, \(sheets) answer sheets, 1 consent event): \(waiting) items in "
          + String(format: "%.2f s", seconds) + String(format: " (%.1f ms an item)", seconds * 1000 / Double(waiting)))
} catch {
    fail("\(error)")
}
