import AmbleCompanion
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

/// The study server's client measured against a running amble-server (scripts/bench-study-upload
/// starts one on a scratch PostgreSQL): the latency of one session's upload (each PUT on its own
/// TLS connection, as `amble` makes them), and the time to catch up a month of one offline
/// laptop. A developer's measurement, not a test.
public enum StudyUploadBench {
    /// Runs the bench with `bench-study-upload`'s arguments; returns the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        do {
            try run(arguments)
            return 0
        } catch let error as Failure {
            _ = writeStandardError("bench-study-upload: " + error.message + "\n")
        } catch {
            _ = writeStandardError("bench-study-upload: \(error)\n")
        }
        return 2
    }

    struct Failure: Error { var message: String }

    /// A walk in the band's encoding: `minutes` long, started at `start`.
    static func walk(start: Double, minutes: Int, seed: Int) -> [UInt8] {
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        // A steady walk with a walker's jitter (an LCG's): cadence within ±1.5 steps/min, heart rate
        // wandering by tenths, which the band's coding keeps, so that it compresses as a real walk does
        // (docs/protocol.md: 1.71 bytes per recorded second).
        var state = UInt64(seed) &* 6_364_136_223_846_793_005 &+ 1
        func noise(_ range: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(range))
        }
        var heartRate = 95.0
        let rows = (0 ..< minutes * 60).map { (t: Int) -> SessionSecond in
            heartRate = min(140, max(70, heartRate + Double(noise(5) - 2) / 10))
            return SessionSecond(offsetSeconds: t, steps: 1 + noise(2), cadenceStepsPerMinute: 84 + Double(noise(31) - 15) / 10,
                                 heartRateBPM: heartRate, heartRateConfidence: 0.8 + Double(noise(20)) / 100)
        }
        let summary = SessionTally(rows).summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(rows.count), parameters: parameters)
        return SessionCoding.encode(SessionRecord(summary: summary, seconds: rows))
    }

    static func run(_ arguments: [String]) throws {
        func fail(_ message: String) -> Failure { Failure(message: message) }

        let usage = "usage: bench-study-upload join https://HOST:PORT#sha256=HEX CODE STORE DAYS-AGO\n"
            + "       bench-study-upload run https://HOST:PORT#sha256=HEX CODE MONTH-STORE UPLOADS MONTH-SESSIONS"
        guard arguments.count >= 5, let endpoint = try? ServerEndpoint(parsing: arguments[1]) else { throw fail(usage) }
        let clock = SystemClock()
        let day = 86_400.0

        func queueWalk(_ store: CompanionStore, id: Int64, start: Double) throws -> Int {
            let bytes = walk(start: start, minutes: 30, seed: Int(id))
            try store.insert(bandID: "bench-band", bandName: "Bench", bandSessionID: id, record: try SessionCoding.decode(bytes), syncedAtUnixSeconds: Date().timeIntervalSince1970,
                             outbox: OutboxSessionItem(itemID: newItemID(), body: bytes, sha256: Digest.sha256Hex(bytes)))
            return bytes.count
        }

        func joined(code: String, acceptedAt: Double, path: String? = nil) throws -> (CompanionStore, OutboxUploader) {
            let store = try CompanionStore(path: path)
            let transport = try NIOHTTPTransport(endpoint: endpoint)
            _ = try StudyServerJoin.join(endpoint: endpoint, code: code, accept: true, store: store, transport: transport,
                                         console: Console(isInteractive: false, ask: { _ in nil }, say: { _ in }), now: acceptedAt)
            return (store, try makeUploader(store))
        }

        func makeUploader(_ store: CompanionStore) throws -> OutboxUploader {
            OutboxUploader(store: store, client: StudyServerClient(transport: try NIOHTTPTransport(endpoint: endpoint), store: store))
        }

        do {
            let now = Date().timeIntervalSince1970
            if arguments[0] == "join", arguments.count == 5, let daysAgo = Double(arguments[4]) {
                // The month's laptop joins (under a server whose clock is DAYS-AGO behind), then goes offline.
                _ = try joined(code: arguments[2], acceptedAt: now - daysAgo * day, path: arguments[3])
                return
            }
            guard arguments[0] == "run", arguments.count == 6, let uploads = Int(arguments[4]), let monthSessions = Int(arguments[5]) else { throw fail(usage) }
            // One session at a time: queued, then one pass (a PUT on a new TLS connection, the answer, the store's acknowledgement).
            let (store, uploader) = try joined(code: arguments[2], acceptedAt: now - day / 2)
            _ = uploader.pass()   // the consent event
            var latencies: [Double] = [], bytes = 0
            for n in 1 ... uploads {
                // Paced under the server's rate limit (4 requests a second per token after a burst of 120).
                sleepSeconds(0.3)
                bytes += try queueWalk(store, id: Int64(n), start: now - day / 2 + Double(n) * 60)
                let started = clock.nowSeconds
                let report = uploader.pass()
                latencies.append(clock.nowSeconds - started)
                guard report.acknowledged == 1 else { throw fail("upload \(n) not acknowledged: \(report)") }
            }
            latencies.sort()
            func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
            print("upload of one session (30-minute walk, \(bytes / uploads) bytes), \(uploads) uploads: median \(ms(latencies[uploads / 2])), "
                  + "p99 \(ms(latencies[min(uploads - 1, Int((Double(uploads) * 0.99).rounded(.up)) - 1)])), max \(ms(latencies.last!))")

            // A month offline: the walks and answer sheets since joining queued, then one drain (its
            // access token long expired: the first item gets a new one through /v1/token).
            let month = try CompanionStore(path: arguments[3])
            let since = try month.studyServer()?.acceptedUnixSeconds ?? now
            let span = now - since - 3_600
            for n in 0 ..< monthSessions { _ = try queueWalk(month, id: Int64(n + 1), start: since + 600 + Double(n) * span / Double(monthSessions)) }
            let sheets = monthSessions / 2
            for n in 0 ..< sheets {
                let at = since + 3_600 + Double(n) * span / Double(sheets)
                let sheet = AnswerItem(questionnaire: "evening", answeredAt: at, answers: ["calm": String(1 + n % 7), "walked": n % 2 == 0 ? "yes" : "no"])
                try month.enqueue(outboxItem(.answer, body: StudyServerClient.json(sheet), now: at))
            }
            let waiting = try month.outboxSummary().waiting.values.reduce(0, +)
            let started = clock.nowSeconds
            let report = try makeUploader(month).drain { _, _ in false }
            let seconds = clock.nowSeconds - started
            guard report.acknowledged == waiting else { throw fail("catch-up acknowledged \(report.acknowledged) of \(waiting): \(report)") }
            print("catch-up of a month offline (\(monthSessions) sessions, \(sheets) answer sheets, 1 consent event, an expired access token): \(waiting) items in "
                  + String(format: "%.2f s", seconds) + String(format: " (%.1f ms an item)", seconds * 1000 / Double(waiting)))
        }

    }
}
