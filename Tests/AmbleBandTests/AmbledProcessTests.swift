import AmbleBandStore
import Foundation
import Testing

/// The built `ambled`, next to the test bundle (`swift build --build-tests` builds it).
func builtExecutable(_ name: String) -> String? {
    let bundle = Bundle.main.bundleURL.deletingLastPathComponent()
    for candidate in [bundle.appendingPathComponent(name).path, repositoryPath(".build/debug/\(name)")] where FileManager.default.isExecutableFile(atPath: candidate) {
        return candidate
    }
    return nil
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
        +6   press next
        +1   press select
        +1   press select
        +1   walk 85
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
        // Read the band's output until the walk has run for a while.
        var log = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !log.contains("WALK 0:3") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            log += String(decoding: data, as: UTF8.self)
        }
        #expect(log.contains("mindful-walk session 2 started"), "\(log.suffix(400))")
        process.terminate()  // SIGTERM
        let stopDeadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < stopDeadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "ambled stopped on SIGTERM by itself")
        #expect(process.terminationStatus == 0)
        let sessions = try BandStore(path: directory + "/band/band.sqlite").finishedSessions()
        #expect(sessions.map(\.summary.kind) == [.calibration, .mindfulWalk])
        #expect((sessions.last?.summary.steps ?? 0) >= 30, "the walk's steps up to the signal are stored")
    }
}
