import AmbleBand
@testable import AmbleCLI
import AmbleCompanionStore
import AmbleLinux
import AmbleSync
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// `amble sync` stopped by a real signal while a session's bytes arrive, over TCP and over a
/// serial line (two pty pairs joined by a relay), then run again: the band lets the laptop in at
/// once, and the sync resumes where the first one stopped.
@Suite(.serialized)
struct SyncInterruptTests {
    /// A band past a 150 s calibration with raw samples kept (about 55 kB of session data, five
    /// chunks), paired with a laptop store in a file; on `relay`'s first end, or on TCP.
    func bandWithALargeSession(relay: SerialLineRelay?) throws -> (run: ScenarioRun, laptop: String, link: [String]) {
        let run = try ScenarioRun(script: "0:01 press select\n+1 walk 110\n+156 stop\n", calibrationSeconds: 150, options: {
            if let relay { $0.serialPath = relay.paths.0 } else { $0.listen = HostPort(host: "127.0.0.1", port: 0) }
        })
        try RawCaptureScenarioTests.consent(run, "on")
        run.run(seconds: 165)
        let laptop = run.directory + "/laptop.sqlite"
        _ = try pairDirectly(run.band.store, try CompanionStore(path: laptop))
        return (run, laptop, try relay.map { ["--serial", $0.paths.1] } ?? ["--tcp", "\(try listenAddress(run))"])
    }

    /// The bytes `amble sync`'s progress bar showed last.
    func progressBytes(_ output: String) -> Int {
        guard let match = output.matches(of: /(\d+) (kB|B)\//).last else { return 0 }
        return Int(match.output.1)! * (match.output.2 == "kB" ? 1000 : 1)
    }

    /// Runs `amble ARGUMENTS` while the band runs; its standard output.
    func ambleWhileTheBandRuns(_ run: ScenarioRun, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: try #require(builtExecutable("amble")))
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { run.run(seconds: 0.01); usleep(300) }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test func theFirstSignalAsksToStopAndASecondEndsTheCommandAtOnce() {
        var action = sigaction()
        let stop = StopSignals()
        #expect(!stop.isStopRequested)
        raise(SIGINT)   // taken by the watcher, not the end of the test's process
        #expect(stop.isStopRequested && stop.name == "Ctrl-C" && stop.exitCode == 130)
        sigaction(SIGINT, nil, &action)
        #expect(action.__sigaction_handler.sa_handler == nil, "SIG_DFL: a second Ctrl-C ends amble where it stands")
    }

    @Test(.enabled(if: builtExecutable("amble") != nil, "amble is not built; run `swift build` first"))
    func aSyncStoppedMidSessionKeepsWhatArrivedAndTheNextResumesAtOnce() throws {
        // SIGKILL: a laptop gone without a word (no goodbye, nothing kept); the band must still let it in at once.
        for (serial, signal) in [(false, SIGINT), (true, SIGINT), (true, SIGTERM), (true, SIGKILL)] {
            let relay = serial ? try SerialLineRelay() : nil
            let relaying = Atomic(true)
            if let relay {
                nonisolated(unsafe) let running = relay
                Thread { running.run(until: { !relaying.load(ordering: .relaxed) }) }.start()
            }
            defer { relaying.store(false, ordering: .relaxed) }
            let (run, laptop, link) = try bandWithALargeSession(relay: relay)
            let what = "\(serial ? "serial" : "TCP"), signal \(signal)"
            let first = try PseudoTerminalSession(try #require(builtExecutable("amble")), ["--store", laptop, "sync"] + link, environment: [:])
            // The band serves until the bar shows the first chunk, then waits: the laptop waits with it.
            let deadline = Date().addingTimeInterval(60)
            while progressBytes(first.output) < 12_000 && first.process.isRunning && Date() < deadline {
                run.run(seconds: 0.01)
                first.readAvailable(waitingMilliseconds: 1)
            }
            kill(first.process.processIdentifier, signal)
            let status = first.finish()
            let session = try #require(try run.band.store.finishedSessions().first).id
            let total = try #require(try run.band.store.sessionDataSizes(ids: [session])[session]?.length)
            #expect(total > 4 * 12_288, "\(total) bytes: five chunks or more")
            var kept = 0
            if signal != SIGKILL {
                #expect(first.process.terminationReason == .exit && status == 128 + signal, "\(what): exit \(status)")
                let said = try #require(first.output.firstMatch(of: /sync stopped \((Ctrl-C|SIGTERM)\)\. Kept 0 new sessions; band session (\d+): (\d+) of (\d+) bytes kept, the next sync resumes there\./),
                                        "\(what): \(first.output)")
                kept = Int(said.output.3)!
                #expect(Int64(said.output.2) == session && kept >= 12_288 && kept < total && Int(said.output.4) == total, "\(what): \(kept) of \(total)")
                let afterBar = try #require(first.output.range(of: "kB/", options: .backwards)).upperBound
                #expect(first.output[afterBar...].contains("\r\u{1B}[2K"), "\(what): the progress bar is cleared before the message")
                #expect(try CompanionStore(path: laptop).partialDownload(bandID: run.band.store.identity(defaultName: "").id, bandSessionID: session)?.bytes.count == kept)
            }
            let (again, json) = try ambleWhileTheBandRuns(run, ["--store", laptop, "sync", "--json"] + link)
            #expect(again == 0, "\(what): the next sync got in at once: \(json)")
            let result = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(what): \(json)")
            let pulled = try #require((result["pulled"] as? [[String: Any]])?.first, "\(what): \(json)")
            #expect(pulled["resumed_bytes"] as? Int == kept, "\(what): resumed after the bytes kept")
            // On a serial line the band may still answer the stopped laptop's last request, and the
            // next laptop skips those bytes: what it asked for is said by resumed_bytes.
            let received = try #require(result["bytes_received"] as? Int)
            #expect(serial || received < total - kept + 2_048, "\(what): \(received) bytes received for \(total - kept) left: none twice")
            #expect(!run.log.all.contains { $0.contains("bad-request") }, "\(what): \(run.log.all.suffix(5))")
        }
    }
}
