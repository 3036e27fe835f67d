@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import ArgumentParser
import Foundation
import Testing

struct CompanionCommandTests {
    func storedSession(hr: Double?) throws -> (CompanionSession, [SessionSecond]) {
        let store = try CompanionStore(path: nil)
        let seconds = (0..<90).map { SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: $0 < 60 ? 84 : 96, heartRateBPM: hr, heartRateConfidence: hr == nil ? nil : 0.9, overLimit: $0 >= 60, alerts: $0 == 62 ? 1 : 0) }
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        let summary = SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: 1_767_225_600, endUnixSeconds: 1_767_225_690, parameters: parameters)
        let id = try #require(try store.insert(bandID: "b1", bandName: "Band \"one\"", bandSessionID: 3, record: SessionRecord(summary: summary, seconds: seconds), syncedAtUnixSeconds: 0))
        return try #require(try store.session(id: id))
    }

    @Test func listJSONHasTheDocumentedFields() throws {
        let (session, _) = try storedSession(hr: 91)
        let text = SessionJSON.array([SessionJSON.object(session, seconds: nil)])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let object = try #require(parsed.first)
        #expect(object["id"] as? Int == Int(session.id))
        #expect(object["kind"] as? String == "mindful-walk")
        #expect(object["start"] as? String == "2026-01-01T00:00:00Z")
        #expect(object["end"] as? String == "2026-01-01T00:01:30Z")
        #expect(object["steps"] as? Int == 180)
        #expect(object["distance_m"] as? Double == 126)
        #expect(object["avg_hr_bpm"] as? Double == 91)
        #expect(object["alerts"] as? Int == 1)
        #expect(object["time_over_limit_s"] as? Int == 30)
        #expect(object["band_name"] as? String == "Band \"one\"")
    }

    @Test func absentHeartRateIsNull() throws {
        let (session, seconds) = try storedSession(hr: nil)
        let text = SessionJSON.object(session, seconds: seconds).text
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["avg_hr_bpm"] is NSNull)
        let rows = try #require(object["seconds"] as? [[String: Any]])
        #expect(rows.count == 90)
        #expect(rows[0]["hr_bpm"] is NSNull)
        #expect(rows[62]["alerts"] as? Int == 1)
    }

    @Test func detailShowsTheLimitAndAChart() throws {
        let (session, seconds) = try storedSession(hr: 91)
        let text = SessionText.detail(session, seconds: seconds)
        #expect(text.contains("pace limit     88 steps/min (20% under your normal 110)"))
        #expect(text.contains("alerts         1"))
        #expect(text.contains("#"), "seconds over the limit are drawn")
        #expect(text.contains("^"), "the alert is marked")
    }

    @Test func bandsShowsTheLastSyncInLocalTimeLikeEveryOtherCommand() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "e46f0c21-7a3b-4c2d-8e9f-0a1b2c3d4e5f", name: "Ann's band", publicKey: Array(repeating: 7, count: 32), address: "127.0.0.1:7070",
                           nowUnixSeconds: 1_767_225_600)
        try store.markSynced(bandID: "e46f0c21-7a3b-4c2d-8e9f-0a1b2c3d4e5f", bandName: "Ann's band", nowUnixSeconds: 1_767_227_400)   // 00:30 UTC
        let text = BandsCommand.render(try store.pairedBands(), json: false, time: GoalsTests.paris)
        #expect(text.contains("Ann's band          e46f0c21  127.0.0.1:7070        2026-01-01 01:30  0"), "\(text)")
        #expect(text.hasSuffix("Times in UTC+01:00 (set TZ for another zone)."))
        #expect(!text.contains("T00:30"), "no UTC time: \(text)")
        #expect(BandsCommand.render(try store.pairedBands(), json: true, time: GoalsTests.paris).contains("\"last_sync\": \"2026-01-01T00:30:00Z\""), "JSON keeps UTC")
        #expect(BandCommand.TimeCommand.confirmation(bandName: "Ann's band", now: 1_767_227_405, moved: -3, time: GoalsTests.paris)
                == "Ann's band: clock set to 2026-01-01 01:30:05 UTC+01:00 (it was 3 s ahead)", "amble band time too")
    }

    @Test func rootHelpListsTheCommands() {
        let help = AmbleCommand.helpMessage()
        for command in ["pair", "bands", "unpair", "sync", "band", "sessions", "analyze"] {
            #expect(help.contains("  \(command) "), "\(command) is listed")
        }
    }

    @Test func syncHelpIsExactly() {
        #expect(AmbleCommand.helpMessage(for: SyncCommand.self, columns: 100) == """
            OVERVIEW: Pull the sessions this store does not have yet from a paired band.

            Sessions already stored (by band and band session id) are never pulled twice. A sync that is cut
            keeps what it finished and the part of the session under way; the next one resumes there. The band
            marks a session synced only after this store has committed it. A session the band is still
            recording is named, and comes with the first sync after it ends. After `amble reset`, the sync then
            asks the band's wearer to wipe the band (see amble reset --help). A session the band listed but did
            not send (it failed its check, or the band cannot read it) is named, and the command exits with
            status 1.

            USAGE: amble sync [--tcp <host:port>] [--serial <device>] [--baud <rate>] [--timeout <seconds>] [--band <band>] [--json] [--wearer-wait <seconds>]

            OPTIONS:
              --tcp <host:port>       The band's address (ambled --listen).
              --serial <device>       The serial device the band is on (ambled --serial).
              --baud <rate>           Baud rate of --serial. (default: 115200)
              --timeout <seconds>     Seconds without an answer before giving up. (default: 15.0)
              --band <band>           Which paired band (`amble bands`): its name or the start of its id.
                                      Needed when several are paired and the address does not tell.
              --json                  Print one JSON object with the result (no progress bar).
              --wearer-wait <seconds> Seconds to wait for the wearer when the band is to be wiped after amble
                                      reset. (default: 130.0)
              --version               Show the version.
              -h, --help              Show help information.

            """)
    }

    @Test func linkOptionsAreChecked() {
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sync", "--tcp", "h:1", "--serial", "/dev/x"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sync", "--tcp", "nohostport"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["pair"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sync", "--baud", "1234", "--serial", "/dev/x"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["--store", "/tmp/x.sqlite", "sync", "--tcp", "127.0.0.1:7070"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["sync"]) }   // the paired band's last address
    }

    @Test func bandSettingsAreCheckedBeforeConnecting() {
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["band", "settings"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["band", "settings", "get", "metronome"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["band", "settings", "set", "reduction_percent", "25"]) }
        for bad in [["set", "reduction_percent", "23"], ["set", "nonsense", "1"], ["get", "nonsense"], ["set", "metronome"], ["frobnicate"]] {
            #expect(throws: (any Error).self, "\(bad)") { try AmbleCommand.parseAsRoot(["band", "settings"] + bad) }
        }
        do {
            _ = try AmbleCommand.parseAsRoot(["band", "settings", "set", "reduction_percent", "23"])
            Issue.record("23 % was accepted")
        } catch {
            #expect(AmbleCommand.message(for: error).contains("reduction_percent: \"23\" is not allowed; expected 10, 15, 20, 25, 30, 35 or 40"))
        }
    }

    @Test func settingsASyncOwnsAreNotSetByHand() {
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["band", "settings", "get", "study_reminder"]) }
        for (key, owner) in [("goal_progress", "from this laptop's goals"), ("study_reminder", "from the study joined here")] {
            do {
                _ = try AmbleCommand.parseAsRoot(["band", "settings", "set", key, "off"])
                Issue.record("\(key) was accepted")
            } catch {
                #expect(AmbleCommand.message(for: error).contains("\(key) is set by amble sync \(owner)"))
            }
        }
    }

    @Test func analyzeStepsCountsASynthesizedWalkAndReportsBadLines() throws {
        var text = "time_s,x_g,y_g,z_g\n"
        let wearer = SyntheticWalkFile(cadence: 100, seconds: 60)
        text += wearer.csv
        let path = NSTemporaryDirectory() + "amble-walk-\(UUID().uuidString).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try StepAnalysis.run(recording: .init(path: path))
        #expect(abs(Double(result.steps - wearer.stepsTaken)) <= 0.05 * Double(wearer.stepsTaken))
        #expect(result.json.hasPrefix("{\"steps\": \(result.steps),"))
        #expect(!result.json.contains("by_channel"))

        // --trace: every release; the rows add up to the count, in time order.
        var releases: [StepAnalysis.Release] = []
        let traced = try StepAnalysis.run(recording: .init(path: path)) { releases.append($0) }
        #expect(traced.steps == result.steps)
        #expect(releases.reduce(0) { $0 + $1.steps } == result.steps)
        #expect(releases.last?.totalSteps == result.steps)
        #expect(zip(releases, releases.dropFirst()).allSatisfy { $0.timeSeconds <= $1.timeSeconds })
        // Each says when its steps were taken: before they came out, one stretch after another.
        #expect(releases.allSatisfy { $0.takenFromSeconds <= $0.takenThroughSeconds && $0.takenThroughSeconds <= $0.timeSeconds })
        #expect(zip(releases, releases.dropFirst()).allSatisfy { $0.takenThroughSeconds <= $1.takenFromSeconds + 1e-9 })
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["analyze", "steps", path, "--json", "--trace"]) }

        try (text + "61.0,0.1,oops,0.9\n").write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: (any Error).self) { try StepAnalysis.run(recording: .init(path: path)) }
        #expect("\(error!)".contains(":\(text.split(separator: "\n").count + 1): y_g is \"oops\""))
    }

    /// `--mindful-walk-limit`: the recording counted as the band counts during a mindful walk. A
    /// synthetic walk at 45 steps/min on |a| that the counter reads an octave up without it.
    @Test func analyzeStepsReplaysAMindfulWalk() throws {
        let mindful = WristWalk.mindfulCases(at: 45).first { $0.description == "45 spm, wearer 2 (12.5 Hz), swinging per step, |a|" }!
        let path = NSTemporaryDirectory() + "amble-mindful-\(UUID().uuidString).csv"
        try SyntheticActivities.csv(mindful.recording.rows).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plain = try StepAnalysis.run(recording: .init(path: path))
        let mindfulRun = try StepAnalysis.run(recording: .init(path: path), context: .mindfulWalk(expectedStepsPerMinute: 50))
        let plainCadence = try #require(plain.meanCadenceStepsPerMinute), mindfulCadence = try #require(mindfulRun.meanCadenceStepsPerMinute)
        #expect(plainCadence > 60, "read \(plainCadence) without the context")
        #expect(abs(mindfulCadence - 45) <= 45 * 0.08, "read \(mindfulCadence) during a mindful walk with a limit of 50")
        #expect(mindfulRun.steps > 2 * plain.steps, "counted \(mindfulRun.steps), \(plain.steps) without, of \(mindful.recording.trueSteps)")
        let command = try AmbleCommand.parseAsRoot(["analyze", "steps", path, "--mindful-walk-limit", "50"])
        #expect((command as? AnalyzeStepsCommand)?.mindfulWalkLimit == 50)
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["analyze", "steps", path, "--mindful-walk-limit", "10"]) }
    }
}

import AmbleSimulation

/// A walk from the synthetic wearer, as a recording at 25 Hz.
struct SyntheticWalkFile {
    var csv = ""
    var stepsTaken = 0

    init(cadence: Double, seconds: Int) {
        let wearer = SyntheticWearer(seed: 11)
        wearer.activity = .walking(cadenceStepsPerMinute: cadence)
        for i in 0..<(seconds * 25) {
            let t = Double(i) / 25
            let a = wearer.accelerationG(atSeconds: t)
            csv += "\(t),\(a.x),\(a.y),\(a.z)\n"
        }
        stepsTaken = wearer.stepsTaken
    }
}
