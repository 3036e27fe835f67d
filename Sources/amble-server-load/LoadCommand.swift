import AmbleStudyAPI
import ArgumentParser
import Histogram
import NIOCore
import NIOPosix
import NIOSSL
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The study server under load (scripts/load-server; docs/server-operations.md, "Load
/// generator"). A measurement, not a test.
@main
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "amble-server-load",
        abstract: "Simulated participants against a running amble-server: join them, then run a trial (docs/server-operations.md).",
        subcommands: [Join.self, Run.self])
}

struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Join one participant per code (GET and POST /v1/join, as `amble study join`); writes their tokens.")

    @Option(help: "http://127.0.0.1:PORT (a server with --insecure-loopback) or https://HOST:PORT#sha256=HEX.") var server: String
    @Option(help: "A file of join codes, one a line (`amble-server admin codes generate`).") var codes: String
    @Option(help: "Where to write the participants (JSON).") var out: String
    @Option(help: "Joins at a time.") var parallel = 32
    @Option(help: "The consent's acceptance time, this many days before now (the server's clock must agree within a day).") var acceptedDaysAgo = 0.0

    func run() async throws {
        let target = try Target(parsing: server)
        let list = try String(contentsOfFile: codes, encoding: .utf8).split(separator: "\n").map { String($0) }.filter { !$0.isEmpty }
        let started = ContinuousClock.now
        let joined = try await Joining.join(codes: list, target: target, parallel: parallel,
                                            acceptedAt: Date().timeIntervalSince1970 - acceptedDaysAgo * 86_400)
        let seconds = started.duration(to: .now) / .seconds(1)
        try JSONEncoder().encode(joined).write(to: URL(fileURLWithPath: out))
        print(String(format: "joined %d participants in %.1f s (%.0f a second, %d at a time)", joined.count, seconds, Double(joined.count) / seconds, parallel))
    }
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run one trial against the joined participants; prints its table and writes its JSON.")

    enum Trial: String, ExpressibleByArgument, CaseIterable { case sustained, batched, backlog, crash }

    @Option(help: "http://127.0.0.1:PORT or https://HOST:PORT#sha256=HEX.") var server: String
    @Option(help: "The participants file `join` wrote (their refresh tokens are rotated in it).") var participants: String
    @Option(help: "sustained (open-loop PUTs), batched (POST /v1/items), backlog (days of items at once), crash (outbox through kills).") var trial: Trial
    @Option(help: "Arrivals a second (open loop, Poisson): PUTs, or batches with --batch.") var rate = 100.0
    @Option(help: "Seconds of arrivals.") var duration = 10.0
    @Option(help: "Concurrent connections.") var connections = 256
    @Option(help: "Distinct walks made before the trial.") var pool = 300
    @Option(help: "Share of items that are answer sheets rather than walks.") var answerShare = 0.2
    @Option(help: "Items per POST /v1/items (0: one PUT each).") var batch = 0
    @Flag(help: "Send every request twice.") var duplicates = false
    @Option(help: "Share of requests first sent cut at a random byte of the body.") var cutShare = 0.0
    @Option(help: "backlog: days of items per participant.") var backlogDays = 7
    @Option(help: "backlog: walks and answer sheets per participant and day.") var walksPerDay = 1
    @Option(help: "backlog: answer sheets per participant and day.") var answersPerDay = 2
    @Option(help: "A study whose dashboard a researcher loads during the trial (needs --researcher, --password-file).") var dashboardStudy: String?
    @Option var researcher: String?
    @Option var passwordFile: String?
    @Option(help: "Dashboard loads a second.") var dashboardRate = 2.0
    @Option(help: "A process to measure, NAME=PID (its descendants too): CPU seconds and peak memory.") var watch: [String] = []
    @Option(help: "Seconds to wait for the last items after the arrivals end.") var drainSeconds = 600.0
    @Option(help: "Write the results here (JSON).") var json: String?
    @Option(help: "Write every acknowledged item here (participant,kind,id,sha256), for the crash trial's check.") var acknowledged: String?
    @Option(help: "Seed of the walks and arrivals.") var seed: UInt64 = 34

    func run() async throws {
        let target = try Target(parsing: server)
        var records = try JSONDecoder().decode([ParticipantRecord].self, from: Data(contentsOf: URL(fileURLWithPath: participants)))
        guard let study = records.first?.studyID else { throw LoadError("\(participants) holds no participant") }
        let people = records.map(Participant.init)
        let now = Date().timeIntervalSince1970
        let joinedAt = records.map(\.acceptedAt).max() ?? now
        let made = ContinuousClock.now
        let walks = trial == .backlog
            ? SessionPool(count: pool, seed: seed, from: max(joinedAt + 60, now - Double(backlogDays) * 86_400), to: now - 60)
            : SessionPool(count: pool, seed: seed, from: joinedAt + 60, to: now - 60)
        let poolSeconds = made.duration(to: .now) / .seconds(1)
        let poolBytes = walks.walks.map(\.bytes.count).reduce(0, +) / max(1, walks.walks.count)
        print(String(format: "%d walks made in %.1f s (%d bytes on average, %.0f s long on average)", pool, poolSeconds, poolBytes,
                     Double(walks.walks.map(\.seconds).reduce(0, +)) / Double(max(1, pool))))

        // Laptops waking up: expired access tokens refreshed before the clock starts.
        let warm = ContinuousClock.now
        let refreshed = try await refreshExpired(people, target: target, parallel: min(connections, 64))
        if refreshed > 0 { print(String(format: "%d access tokens refreshed in %.1f s", refreshed, warm.duration(to: .now) / .seconds(1))) }
        fflush(nil)

        let tally = Tally(keepItems: acknowledged != nil)
        let behaviour = Behaviour(duplicates: duplicates || trial == .crash, cutShare: trial == .crash ? max(cutShare, 0.2) : cutShare,
                                  outbox: trial == .crash, study: study)
        let context = try Connection.sslContext(for: target)
        let group = MultiThreadedEventLoopGroup.singleton
        let queue = JobQueue()
        let usage = UsageWatch(try watch.map { spec in
            guard let equals = spec.firstIndex(of: "="), let pid = Int32(spec[spec.index(after: equals)...]) else { throw LoadError("--watch \(spec): write NAME=PID") }
            return ProcessUsage(name: String(spec[..<equals]), pid: pid)
        })
        let load = loadAverage()
        print("arrivals begin")   // scripts/load-server times its kills from here
        fflush(nil)
        let started = ContinuousClock.now
        var itemMaker = ItemMaker(walks: walks, answerShare: answerShare, seed: seed)

        let dashboardCookie: String? = dashboardStudy == nil ? nil : try await login(target: target, context: context)
        let stopDashboard = Counter()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for _ in 0 ..< connections {
                let worker = Worker(connection: Connection(target: target, group: group, sslContext: context), participants: people,
                                    behaviour: behaviour, tally: tally)
                tasks.addTask { await worker.run(queue) }
            }
            if let cookie = dashboardCookie, let studyID = dashboardStudy {
                let rate = dashboardRate
                tasks.addTask {
                    await dashboardLoads(study: studyID, cookie: cookie, rate: rate, target: target, context: context, tally: tally, until: stopDashboard)
                }
            }
            try await enqueueArrivals(on: queue, records: records, itemMaker: &itemMaker, started: started)
            await queue.close()
            let drainDeadline = Task {
                try await Task.sleep(for: .seconds(drainSeconds))
                print("amble-server-load: items still unacknowledged \(Int(drainSeconds)) s after the arrivals ended; giving up")
                Glibc.exit(3)
            }
            // The workers end when the queue is empty; then the dashboard loads stop.
            var finished = 0
            while finished < connections, try await tasks.next() != nil { finished += 1 }
            drainDeadline.cancel()
            _ = stopDashboard.take(below: 1)
            try await tasks.waitForAll()
        }
        let seconds = started.duration(to: .now) / .seconds(1)
        for (index, person) in people.enumerated() { records[index] = await person.record }
        try JSONEncoder().encode(records).write(to: URL(fileURLWithPath: participants))
        let processes = await usage.finish()
        let report = Report(trial: trial.rawValue, target: target.secure ? "https" : "http", seconds: seconds, offeredRate: rate,
                            connections: connections, participants: people.count, state: tally.state.withLock { $0 },
                            processes: processes, loadBefore: load, loadAfter: loadAverage(), poolWalks: pool, poolMeanBytes: poolBytes)
        report.print()
        if let json { try report.json().write(to: URL(fileURLWithPath: json)) }
        if let acknowledged {
            try (tally.state.withLock { $0.acknowledgedItems }.joined(separator: "\n") + "\n").write(toFile: acknowledged, atomically: true, encoding: .utf8)
        }
    }

    /// The trial's arrivals, put on the queue as they come: open-loop Poisson arrivals at `rate`,
    /// each a job with its intended send time, or a backlog: every laptop online at once.
    func enqueueArrivals(on queue: JobQueue, records: [ParticipantRecord], itemMaker: inout ItemMaker,
                         started: ContinuousClock.Instant) async throws {
        switch trial {
        case .sustained, .crash, .batched:
            // Open loop: Poisson arrivals at `rate`, each a job with its intended send time.
            var random = SystemRandomNumberGenerator()
            var next = started
            let end = started + .milliseconds(Int(duration * 1000))
            var index = 0
            while next < end {
                try? await Task.sleep(until: next, clock: .continuous)
                let participant = Int.random(in: 0 ..< records.count, using: &random)
                let items = (0 ..< max(1, batch)).map { _ in itemMaker.next(for: records[participant]) }
                await queue.put(Job(participant: participant, items: items, batch: batch > 0, intended: next))
                index += 1
                let gap = -log(1 - Double.random(in: 0 ..< 1, using: &random)) / rate
                next = next + .microseconds(Int64(gap * 1e6))
            }
        case .backlog:
            // Every laptop comes online at once with `backlogDays` of items in its outbox.
            for participant in records.indices {
                var items: [Item] = []
                for day in 0 ..< backlogDays {
                    for _ in 0 ..< walksPerDay { items.append(itemMaker.walk(index: participant * backlogDays + day)) }
                    for _ in 0 ..< answersPerDay { items.append(itemMaker.answer(for: records[participant], dayOffset: day)) }
                }
                if batch > 0 {
                    for start in stride(from: 0, to: items.count, by: batch) {
                        await queue.put(Job(participant: participant, items: Array(items[start ..< min(items.count, start + batch)]), batch: true, intended: started))
                    }
                } else {
                    for item in items { await queue.put(Job(participant: participant, items: [item], batch: false, intended: started)) }
                }
            }
        }
    }

    func refreshExpired(_ people: [Participant], target: Target, parallel: Int) async throws -> Int {
        let context = try Connection.sslContext(for: target)
        let next = Counter()
        return try await withThrowingTaskGroup(of: Int.self) { tasks in
            for _ in 0 ..< parallel {
                tasks.addTask {
                    let connection = Connection(target: target, group: MultiThreadedEventLoopGroup.singleton, sslContext: context)
                    defer { connection.close() }
                    var count = 0
                    while let index = next.take(below: people.count) {
                        guard await people[index].needsRefresh else { continue }
                        _ = try await people[index].accessToken(over: connection)
                        count += 1
                    }
                    return count
                }
            }
            return try await tasks.reduce(0, +)
        }
    }

    /// Logs in as the researcher (`POST /login`); the session cookie.
    func login(target: Target, context: NIOSSLContext?) async throws -> String {
        guard let researcher, let passwordFile else { throw LoadError("--dashboard-study needs --researcher and --password-file") }
        let password = try String(contentsOfFile: passwordFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        let connection = Connection(target: target, group: MultiThreadedEventLoopGroup.singleton, sslContext: context)
        defer { connection.close() }
        func form(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
        let answer = try await connection.send(Request(method: .POST, path: "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                       body: Array("name=\(form(researcher))&password=\(form(password))".utf8)))
        guard let cookie = answer.headers["set-cookie"].first?.split(separator: ";").first else { throw LoadError("login answered \(answer.status) without a cookie") }
        return String(cookie)
    }

    func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// The researcher's dashboard loaded at `rate` a second (open loop) until told to stop.
func dashboardLoads(study: String, cookie: String, rate: Double, target: Target, context: NIOSSLContext?, tally: Tally, until stop: Counter) async {
    let connection = Connection(target: target, group: MultiThreadedEventLoopGroup.singleton, sslContext: context)
    defer { connection.close() }
    var next = ContinuousClock.now
    var pages = 0
    while stop.peek() == 0 {
        try? await Task.sleep(until: next, clock: .continuous)
        let page = pages % 3
        pages += 1
        let answer = try? await connection.send(Request(method: .GET, path: "/studies/\(study)/dashboard?days=7&offset=\(page * 200)", headers: [("Cookie", cookie)]))
        if answer?.status == 200 { tally.dashboardAnswered(since: next) } else { tally.error("dashboard: \(answer.map { String($0.status) } ?? "no answer")") }
        next = next + .milliseconds(Int64(1000 / rate))
    }
}

/// Items as a laptop queues them: a walk of the pool under a new id, or an evening answer sheet.
struct ItemMaker {
    let walks: SessionPool
    let answerShare: Double
    var random: SystemRandomNumberGenerator = .init()
    var walkIndex = 0

    init(walks: SessionPool, answerShare: Double, seed: UInt64) {
        self.walks = walks
        self.answerShare = answerShare
    }

    mutating func next(for participant: ParticipantRecord) -> Item {
        if Double.random(in: 0 ..< 1, using: &random) < answerShare { return answer(for: participant, dayOffset: Int.random(in: 0 ..< 7, using: &random)) }
        walkIndex += 1
        return walk(index: walkIndex)
    }

    mutating func walk(index: Int) -> Item {
        let walk = walks.walks[index % walks.walks.count]
        return Item(kind: .session, id: Self.newID(&random), bytes: walk.bytes, sha256: walk.sha256, base64: walk.base64)
    }

    mutating func answer(for participant: ParticipantRecord, dayOffset: Int) -> Item {
        let now = Date().timeIntervalSince1970
        let at = max(participant.acceptedAt + 30, now - Double(dayOffset) * 86_400 - Double.random(in: 60 ..< 3600, using: &random))
        let sheet = AnswerItem(questionnaire: "evening", answeredAt: at.rounded(), answers: ["calm": String(Int.random(in: 1 ... 7, using: &random))])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bytes = Array((try? encoder.encode(sheet)) ?? Data())
        return Item(kind: .answer, id: Self.newID(&random), bytes: bytes, sha256: Digest.sha256Hex(bytes), base64: Data(bytes).base64EncodedString())
    }

    static func newID(_ random: inout SystemRandomNumberGenerator) -> String {
        Digest.hex((0 ..< 16).map { _ in UInt8.random(in: 0 ... 255, using: &random) })
    }
}
