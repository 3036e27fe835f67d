import AmbleBandStore
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing

/// The built `ambled`, next to the test bundle (`swift build --build-tests` builds it).
func builtExecutable(_ name: String) -> String? {
    let bundle = Bundle.main.bundleURL.deletingLastPathComponent()
    for candidate in [bundle.appendingPathComponent(name).path, repositoryPath(".build/debug/\(name)")] where FileManager.default.isExecutableFile(atPath: candidate) {
        return candidate
    }
    return nil
}

/// Waits until the log holds `text`, or the process has exited; polls, and gives up only after
/// `giveUpSeconds` of wall time (a limit for a hung process, not a guess at how long it takes).
func waitForLog(_ log: borrowing Mutex<String>, toContain text: String, while process: Process, giveUpSeconds: Double = 300) {
    let giveUp = Date().addingTimeInterval(giveUpSeconds)
    while !log.withLock({ $0.contains(text) }) && process.isRunning && Date() < giveUp { usleep(20_000) }
}

struct AmbledProcessTests {
    @Test(.enabled(if: builtExecutable("ambled") != nil, "ambled is not built; run `swift build` first"))
    func sigtermMidWalkStoresTheWalk() throws {
        let directory = NSTemporaryDirectory() + "amble-sigterm-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
        0:01 press select
        +1   walk 110
        +66  stop
        +8   press select
        +1   press select
        +1   walk 85
        +35  end
        """
        try script.write(toFile: directory + "/s.script", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtExecutable("ambled")!)
        process.arguments = ["--board", repositoryPath("boards/sim.toml"), "--data-dir", directory + "/band",
                             "--speed", "50", "--script", directory + "/s.script", "--no-keyboard"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Read the band's log (no terminal: no status lines, only log lines) until the script
        // says it is finished: the walk has gone on for 35 band seconds, however busy the
        // machine (a fixed wait of 0.6 s gave 18 steps under load).
        let collected = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            collected.withLock { $0 += text }
        }
        waitForLog(collected, toContain: "script finished", while: process)
        let log = collected.withLock { $0 }
        #expect(log.contains("mindful-walk session 2 started"), "\(log.suffix(400))")
        #expect(!log.contains("WALK 0:"), "without a terminal, no status lines: \(log.suffix(400))")
        process.terminate()  // SIGTERM
        let stopDeadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < stopDeadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        #expect(process.terminationReason == .exit, "ambled stopped on SIGTERM by itself")
        #expect(process.terminationStatus == 0)
        let sessions = try BandStore(path: directory + "/band/band.sqlite").finishedSessions()
        #expect(sessions.map(\.summary.kind) == [.calibration, .mindfulWalk])
        #expect((sessions.last?.summary.steps ?? 0) >= 30, "the walk's steps up to the signal are stored")
    }

    /// Found by scripts/chaos: bytes arriving all the time ended every paced wait early, band
    /// time ran ahead of real time, and after the flood the band slept (60 s at a time) until
    /// real time caught up, deaf to SIGTERM.
    @Test(.enabled(if: builtExecutable("ambled") != nil, "ambled is not built; run `swift build` first"))
    func aFloodOfBytesNeitherRacesBandTimeNorDelaysAStop() throws {
        let directory = NSTemporaryDirectory() + "amble-flood-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtExecutable("ambled")!)
        process.arguments = ["--board", repositoryPath("boards/sim.toml"), "--data-dir", directory + "/band",
                             "--listen", "127.0.0.1:0", "--no-keyboard", "--log-level", "debug"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let collected = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            collected.withLock { $0 += text }
        }
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            output.fileHandleForReading.readabilityHandler = nil
        }
        waitForLog(collected, toContain: "serving sessions on 127.0.0.1:", while: process)
        let log = collected.withLock { $0 }
        let listening = try #require(log.range(of: "serving sessions on 127.0.0.1:").flatMap { UInt16(log[$0.upperBound...].prefix { $0.isNumber }) })
        // Random bytes from several connections, one after another, for 1.5 s.
        let started = Date()
        var generator = SystemRandomNumberGenerator()
        while Date().timeIntervalSince(started) < 1.5 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = listening.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 {
                let bytes = (0 ..< 16_384).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
                _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            close(socket)
        }
        process.terminate()  // SIGTERM
        let asked = Date()
        while process.isRunning && Date().timeIntervalSince(asked) < 30 { usleep(10_000) }
        let stopSeconds = Date().timeIntervalSince(asked)
        // The fault slept up to 60 s at a time; a stop well under that is prompt, with room for
        // a machine whose other core is busy (3 s was a guess at this machine's speed).
        #expect(!process.isRunning && stopSeconds < 10, "ambled took \(stopSeconds) s to stop after the flood")
    }
}
