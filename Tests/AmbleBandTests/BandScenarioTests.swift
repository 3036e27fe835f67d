import AmbleBand
import AmbleBandStore
import AmbleBoard
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSync
import Foundation
import Logging
import Synchronization
import Testing

/// Collects log lines so tests can check what the band reported.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
}

struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { recorder.append("\(event.level): \(event.message)") }
}

/// The repository's boards/ folder, found from this file's place.
func repositoryPath(_ relative: String) -> String {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/AmbleBandTests/BandScenarioTests.swift
    return parts.joined(separator: "/") + "/" + relative
}

/// A simulated band on a manual clock with a script, built from the repository's
/// boards/sim.toml (edited by `board` when given) in a temporary folder that also holds
/// `files` (recordings the board may name); `prepare` may put a store in its data folder first.
struct ScenarioRun {
    let band: Band
    let clock: ManualClock
    let log: LogRecorder
    let directory: String

    init(script: String, calibrationSeconds: Int = 30, board edit: (String) -> String = { $0 }, files: [String: String] = [:],
         options configure: (inout BandOptions) -> Void = { _ in }, prepare: (_ dataDirectory: String) throws -> Void = { _ in }) throws {
        directory = NSTemporaryDirectory() + "amble-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, content) in files {
            try content.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        let boardText = edit(try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8))
        try boardText.write(toFile: directory + "/board.toml", atomically: true, encoding: .utf8)
        var board = try BoardFile.load(path: directory + "/board.toml")
        board.practice.calibrationSeconds = calibrationSeconds
        try script.write(toFile: directory + "/scenario.script", atomically: true, encoding: .utf8)
        var options = BandOptions(dataDirectory: directory + "/band")
        options.scriptPath = directory + "/scenario.script"
        options.keyboard = false
        options.watchSignals = false
        configure(&options)
        try prepare(options.dataDirectory)
        let log = LogRecorder()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(recorder: log) }
        clock = ManualClock(startSeconds: 1000)
        band = try BandAssembly.build(board: board, options: options, console: Console(isTerminal: false, silent: true), logger: logger, clock: clock)
        self.log = log
    }

    func run(seconds: Double) {
        band.run(advancing: clock, forBandSeconds: seconds)
    }

    /// The cadence the first (calibration) session measured.
    func calibratedCadence() throws -> Double? {
        try band.store.finishedSessions().first?.summary.measuredCadenceStepsPerMinute
    }
}

/// Calibrate at 112 steps/min, then a mindful walk at 20 % less that drifts too fast twice.
let demoScript = """
0:01   press select
+3     walk 112
+30    stop
+4     press next
+1     press select
+1     press select
+1     walk 86
+40    walk 102
+20    walk 84
+30    walk 100
+20    walk 84
+20    stop
+2     hold select 1.5
+4     end
"""

/// Calibrate at `normal` steps/min, then a mindful walk at 40 % less (from 112: a limit of about
/// 67) walked at `slow` steps/min, a surge to `surge` and back to `slow`: the pace read at 45 is
/// under the limit (read at twice it, 90, the wearer would be buzzed while walking slowly enough).
func slowMindfulScript(normal: Int = 112, slow: Int = 45, surge: Int = 76) -> String {
    """
    0:01   press select
    +3     walk \(normal)
    +30    stop
    +4     press next
    +1     press select
    +0.5   press next
    +0.5   press next
    +0.5   press next
    +0.5   press select
    +1     walk \(slow)
    +60    walk \(surge)
    +25    walk \(slow)
    +40    stop
    +2     hold select 1.5
    +4     end
    """
}

struct BandScenarioTests {
    @Test func calibratesWalksBuzzesAndStoresBothSessions() throws {
        let run = try ScenarioRun(script: demoScript)
        run.run(seconds: 190)
        #expect(run.log.contains("script finished"))
        let sessions = try run.band.store.finishedSessions()
        try #require(sessions.count == 2)
        let calibration = sessions[0].summary, walk = sessions[1].summary
        #expect(calibration.kind == .calibration)
        let measured = try #require(calibration.measuredCadenceStepsPerMinute)
        #expect(abs(measured - 112) <= 3, "calibrated \(measured) steps/min for a 112 steps/min walk")
        #expect(walk.kind == .mindfulWalk)
        #expect(walk.parameters.reductionPercent == 20)
        let limit = try #require(walk.parameters.limitCadenceStepsPerMinute)
        #expect(abs(limit - measured * 0.8) < 1e-9)
        // Two surges above the limit of about 40 s together: at least one alert each.
        #expect(walk.alerts >= 2 && walk.alerts <= 8, "alerts \(walk.alerts)")
        #expect(walk.timeOverLimitSeconds >= 25 && walk.timeOverLimitSeconds <= 50, "over \(walk.timeOverLimitSeconds) s")
        // Steps agree with what the synthetic wearer really took: within 5 %, plus a few steps
        // the wearer takes just outside the sessions (the script's walking starts and stops
        // within about a second of each session's ends).
        let truth = try #require(run.band.simulation?.synthetic?.stepsTaken)
        let counted = calibration.steps + walk.steps
        #expect(abs(Double(counted - truth)) <= 0.05 * Double(truth) + 8, "counted \(counted), took \(truth)")
        // Every second of the walk was stored, and the alerts in the rows add up.
        let record = try #require(try run.band.store.session(id: sessions[1].id))
        #expect(record.seconds.count == Int(walk.durationSeconds.rounded()))
        #expect(record.seconds.reduce(0) { $0 + $1.alerts } == walk.alerts)
        #expect(walk.averageHeartRateBPM != nil)
        // The motor really ran for the alerts.
        let motor = try #require(run.band.simulation?.motorLine)
        #expect(motor.history.filter { $0.active }.count >= 3 * walk.alerts)
    }

    @Test func aMindfulWalkAt45StepsPerMinuteIsBuzzedOnlyAboveTheLimit() throws {
        try checkSlowMindfulWalk()
    }

    /// The band tells the counter that a mindful walk is under way, at about its limit
    /// (`StepCounter.Context`). Normal pace, slow pace, surge: the surge is not an octave of the
    /// slow pace (an exact doubling reads as the same walk's stride re-read as steps). Without
    /// the context the walk at 40 was read at 80 and buzzed under a limit of 60.
    @Test(arguments: [(100, 40, 70), (112, 55, 76)])
    func aMindfulWalkIsReadAtItsPaceAndBuzzedOnlyAboveTheLimit(normal: Int, slow: Int, surge: Int) throws {
        // The simulated wearer (`SyntheticWearer`, not `WristWalk`) moves the wrist less than the
        // counter's noise floor at 55 steps/min (0.033-0.037 g against 0.04: issue 29): no walk
        // is seen, with or without the context; it is never buzzed.
        let belowNoiseFloor = slow == 55 ? "the simulated wrist at 55 steps/min moves less than the noise floor" : nil
        try checkSlowMindfulWalk(normal: normal, slow: slow, surge: surge, countWithin: 0.1, paceKnownWrong: belowNoiseFloor)
    }

    /// Runs `slowMindfulScript`: never buzzed at `slow`, its pace read within 5 %, buzzed at
    /// `surge`; with `countWithin`, the walk's steps counted within that share. `paceKnownWrong`:
    /// the reading and the count are a known issue (the buzz is still checked).
    func checkSlowMindfulWalk(normal: Int = 112, slow: Int = 45, surge: Int = 76, countWithin: Double? = nil,
                              paceKnownWrong: String? = nil) throws {
        let run = try ScenarioRun(script: slowMindfulScript(normal: normal, slow: slow, surge: surge))
        run.run(seconds: 190)
        #expect(run.log.contains("script finished"))
        let sessions = try run.band.store.finishedSessions()
        try #require(sessions.count == 2)
        let walk = sessions[1].summary
        #expect(walk.parameters.reductionPercent == 40)
        let limit = try #require(walk.parameters.limitCadenceStepsPerMinute)
        let record = try #require(try run.band.store.session(id: sessions[1].id))
        // The script's seconds within the walk (its countdown is 3 s): `slow` from 4 s to 64 s,
        // `surge` to 89 s, `slow` again to 129 s. Leave the first 15 s of each pace to the counter.
        func seconds(_ range: Range<Int>) -> [SessionSecond] { record.seconds.filter { range.contains($0.offsetSeconds) } }
        let pace = Double(slow)
        let stretches = [seconds(19 ..< 64), seconds(104 ..< 129)]
        for stretch in stretches {
            #expect(stretch.allSatisfy { $0.alerts == 0 && !$0.overLimit }, "buzzed at \(slow) steps/min under a limit of \(limit)")
        }
        let readings = {
            for stretch in stretches {
                let read = stretch.map(\.cadenceStepsPerMinute).filter { $0 > 0 }.sorted()
                try #require(read.count >= stretch.count / 2, "no cadence for \(stretch.count - read.count) of \(stretch.count) s at \(slow) steps/min")
                let median = read[read.count / 2]
                #expect(abs(median - pace) <= pace * 0.05, "read \(median) steps/min at \(slow)")
            }
            #expect(seconds(64 ..< 89).contains { $0.alerts > 0 }, "no alert at \(surge) steps/min over a limit of \(limit): \(record.seconds.map { Int($0.cadenceStepsPerMinute) })")
            if let countWithin {
                let truth = pace * 100 / 60 + Double(surge) * 25 / 60
                #expect(abs(Double(walk.steps) - truth) <= countWithin * truth, "counted \(walk.steps) of about \(Int(truth)) steps")
            }
        }
        if let paceKnownWrong {
            withKnownIssue(Comment(rawValue: paceKnownWrong)) { try readings() }
        } else {
            try readings()
        }
    }

    /// A calibration, then a mindful walk at 86 steps/min with `fault` from its 20th second to
    /// its 35th (`undo`), 20 s more walking, and the walk ended.
    static func walkAroundAFault(_ fault: String, then undo: String) -> String {
        """
        0:01   press select
        +1     walk 110
        +36    stop
        +2     press next
        +1     press select
        +1     press select
        +1     walk 86
        +20    \(fault)
        +15    \(undo)
        +20    stop
        +1     hold select 1.5
        +4     end
        """
    }

    @Test func survivesAnUnpluggedAccelerometerMidWalkWithTheGapMarked() throws {
        let script = Self.walkAroundAFault("unplug accelerometer", then: "plug accelerometer")
        let run = try ScenarioRun(script: script)
        run.run(seconds: 120)
        #expect(run.log.contains("stopped answering"))
        #expect(run.log.contains("answers again"))
        let sessions = try run.band.store.finishedSessions()
        try #require(sessions.count == 2)
        let walk = sessions[1]
        let record = try #require(try run.band.store.session(id: walk.id))
        let gapSeconds = record.seconds.filter(\.accelerometerGap).count
        #expect(gapSeconds >= 14 && gapSeconds <= 20, "gap \(gapSeconds) s for a 15 s unplug")
        #expect(walk.summary.gapSeconds >= gapSeconds)
        // Steps before and after the gap were counted, each in the seconds they were taken in:
        // the walk before it is released when the gap starts (the counter releases steps about
        // 10 s late), the 20 s walk after it with the session's end.
        let firstGap = try #require(record.seconds.firstIndex { $0.accelerometerGap })
        let lastGap = try #require(record.seconds.lastIndex { $0.accelerometerGap })
        let before = record.seconds[...firstGap].reduce(0) { $0 + $1.steps }
        let after = record.seconds[(lastGap + 1)...].reduce(0) { $0 + $1.steps }
        #expect(before > 20, "\(before) steps before the gap")
        #expect(after > 20, "\(after) steps after the gap")
        #expect(walk.summary.steps == record.seconds.reduce(0) { $0 + $1.steps }, "\(walk.summary.steps) steps in all")
        #expect(walk.summary.steps <= 62, "\(walk.summary.steps) steps in all: 40 s at 86 steps/min is 57")
    }

    @Test func aStalledAccelerometerIsReinitialisedAndItsSecondsAreGaps() throws {
        // The chip answers (its id, its registers) but samples nothing, even after a reset: the
        // band re-initialises it every time it delivers nothing for a while, marks the seconds
        // as gaps, and counts again once it samples.
        let script = Self.walkAroundAFault("stall accelerometer", then: "unstall accelerometer")
        let run = try ScenarioRun(script: script)
        run.run(seconds: 120)
        #expect(run.log.contains("accelerometer stalled"))
        #expect(run.log.contains("delivered no data"), "the stall is noticed")
        let sessions = try run.band.store.finishedSessions()
        try #require(sessions.count == 2)
        let record = try #require(try run.band.store.session(id: sessions[1].id))
        let gapSeconds = record.seconds.filter(\.accelerometerGap).count
        #expect(gapSeconds >= 13 && gapSeconds <= 20, "gap \(gapSeconds) s for a 15 s stall")
        let lastGap = try #require(record.seconds.lastIndex { $0.accelerometerGap })
        #expect(lastGap < record.seconds.count - 10, "it samples again after the stall")
        #expect(sessions[1].summary.steps > 25, "\(sessions[1].summary.steps) steps: the walk around the stall is counted")
    }

    @Test func aStalledHeartRateSensorLeavesNoStaleValue() throws {
        let run = try ScenarioRun(script: "0:01 press select\n+20 stall heart-rate\n+15 unstall heart-rate\n", calibrationSeconds: 60)
        run.run(seconds: 70)
        let sessions = try run.band.store.finishedSessions()
        let session = try #require(sessions.first)
        let record = try #require(try run.band.store.session(id: session.id))
        // The session starts about 4 s into the band's time: the stall covers its seconds 17-31.
        let stalled = record.seconds.filter { (18...30).contains($0.offsetSeconds) }
        #expect(stalled.count == 13)
        #expect(stalled.allSatisfy { $0.heartRateBPM == nil && $0.heartRateGap }, "no stale value while stalled: \(stalled.map { "\($0.offsetSeconds): \($0.heartRateBPM.map { String(Int($0)) } ?? "-") \($0.heartRateGap)" })")
        let gaps = record.seconds.filter(\.heartRateGap).count
        #expect(gaps >= 13 && gaps <= 17, "\(gaps) s of heart-rate gap for a 15 s stall")
    }

    @Test func shutdownMidWalkStoresTheSession() throws {
        let script = """
        0:01   press select
        +1     walk 110
        +36    stop
        +2     press next
        +1     press select
        +1     press select
        +1     walk 90
        """
        let run = try ScenarioRun(script: script)
        run.run(seconds: 70)
        run.band.shutDown()
        let sessions = try run.band.store.finishedSessions()
        #expect(sessions.map(\.summary.kind) == [.calibration, .mindfulWalk])
        #expect((sessions.last?.summary.steps ?? 0) > 10)
    }

    @Test func walkIsRefusedBeforeCalibration() throws {
        let script = """
        0:01   press next
        +1     press select
        +1     walk 100
        +10    end
        """
        let run = try ScenarioRun(script: script)
        run.run(seconds: 3)
        // The refusal: two pulses at 60 % strength (a PWM duty cycle), and its notice.
        let motor = try #require(run.band.simulation?.motorLine)
        let refuseStart = try #require(motor.history.last(where: { $0.active })?.timeSeconds)
        #expect(run.band.screenShown == .notice(title: "Calibrate first", detail: "Mindful Walk needs your normal pace"))
        let onShare = motor.activeSeconds(from: refuseStart - 0.25, to: refuseStart + 0.05) / 0.3
        #expect(onShare > 0.3 && onShare < 0.8, "on \(onShare) of the pulse: a partial-strength refusal")
        run.run(seconds: 17)
        #expect(try run.band.store.finishedSessions().isEmpty)
    }
}

struct RecordedSignalTests {
    @Test func aRecordingFeedsTheEmulatedAccelerometer() throws {
        let walk = SyntheticWalkFile(cadence: 100, seconds: 50)
        let run = try ScenarioRun(script: "0:01 press select\n",
                                  board: { $0.replacingOccurrences(of: "signal = \"synthetic\"", with: "signal = \"walk.csv\"") },
                                  files: ["walk.csv": "time_s,x_g,y_g,z_g\n" + walk.csv])
        #expect(run.band.simulation?.synthetic == nil)
        run.run(seconds: 40)
        let cadence = try #require(try run.calibratedCadence())
        #expect(abs(cadence - 100) <= 3, "calibrated \(cadence) from a recording at 100 steps/min")
    }
}

struct BandDisplayTests {
    @Test func theOLEDShowsWhatTheBandDrew() throws {
        let run = try ScenarioRun(script: "0:01 press select\n+1 walk 110\n+20 end\n")
        run.run(seconds: 15)
        let display = try #require(run.band.display)
        let panel = try #require(run.band.simulation?.displayPanel)
        #expect(panel.isDisplayOn)
        // Every pixel of the driver's framebuffer reached the emulated panel's memory.
        for y in stride(from: 0, to: 64, by: 3) {
            for x in stride(from: 0, to: 128, by: 2) {
                #expect(panel.panelPixel(x: x, y: y) == display.framebuffer.pixel(x: x, y: y))
            }
        }
        #expect(display.framebuffer.textArt().contains("#"))
    }

    @Test func aDisplayThatFailsDoesNotStopTheBand() throws {
        let run = try ScenarioRun(script: "0:01 press select\n+1 walk 110\n+40 end\n")
        run.run(seconds: 2)
        run.band.simulation?.bus.unplug(0x3C)
        run.run(seconds: 10)
        #expect(run.log.contains("display:"))
        run.band.simulation?.bus.plug(0x3C)
        run.run(seconds: 35)
        #expect(run.log.contains("display works again"))
        #expect(try run.band.store.finishedSessions().count == 1, "the calibration went on and was stored")
    }
}

struct AccelerometerChoiceTests {
    @Test(arguments: [("lis3dh", "0x18"), ("adxl345", "0x53"), ("mpu6050", "0x68")])
    func theBandCalibratesWithEveryAccelerometer(chip: String, address: String) throws {
        let lis3dh = "chip = \"lis3dh\"\nbus = 1\naddress = 0x18"
        let run = try ScenarioRun(script: "0:01 press select\n+2 walk 104\n", board: { text in
            #expect(text.contains(lis3dh))
            return text.replacingOccurrences(of: lis3dh, with: "chip = \"\(chip)\"\nbus = 1\naddress = \(address)")
        })
        run.run(seconds: 40)
        let cadence = try #require(try run.calibratedCadence())
        #expect(abs(cadence - 104) <= 3, "\(chip): calibrated \(cadence) steps/min")
    }
}

struct BandHeartRateTests {
    @Test func aSessionAtRestCarriesHeartRateConfidenceAndRMSSD() throws {
        // A calibration with the wearer standing still: it fails (no walking), and is stored
        // with the heart rate of someone at rest.
        let run = try ScenarioRun(script: "0:01 press select\n", calibrationSeconds: 60)
        run.run(seconds: 70)
        let stored = try #require(try run.band.store.finishedSessions().first)
        let record = try #require(try run.band.store.session(id: stored.id))
        let withValue = record.seconds.filter { $0.heartRateBPM != nil }
        #expect(withValue.count >= 50, "\(withValue.count) of \(record.seconds.count) seconds have a heart rate")
        #expect(withValue.allSatisfy { ($0.heartRateConfidence ?? 0) >= 0.4 })
        let resting = try #require(run.band.simulation?.synthetic?.restingHeartRateBPM)
        let average = try #require(stored.summary.averageHeartRateBPM)
        #expect(abs(average - resting) <= 3, "average \(average) bpm for a wearer at \(resting)")
        let rmssd = try #require(stored.summary.rmssdMilliseconds)
        #expect(rmssd > 5 && rmssd < 100, "RMSSD \(rmssd) ms")
    }

    @Test func noHeartRateWhileTheSensorIsUnplugged() throws {
        let run = try ScenarioRun(script: "0:01 press select\n+20 unplug heart-rate\n+15 plug heart-rate\n", calibrationSeconds: 60)
        run.run(seconds: 70)
        let stored = try #require(try run.band.store.finishedSessions().first)
        let record = try #require(try run.band.store.session(id: stored.id))
        let unplugged = record.seconds.filter { (20...30).contains($0.offsetSeconds) }
        #expect(unplugged.allSatisfy { $0.heartRateBPM == nil && $0.heartRateGap }, "no stale value while unplugged")
        #expect(record.seconds.suffix(10).allSatisfy { $0.heartRateBPM != nil }, "values again after it is back")
        #expect(run.log.contains("heart-rate sensor"))
    }

    @Test func noHeartRateOffTheWrist() throws {
        let run = try ScenarioRun(script: "0:01 press select\n+20 wrist off\n", calibrationSeconds: 60)
        run.run(seconds: 70)
        let stored = try #require(try run.band.store.finishedSessions().first)
        let record = try #require(try run.band.store.session(id: stored.id))
        let offWrist = record.seconds.filter { $0.offsetSeconds >= 25 }
        #expect(offWrist.allSatisfy { $0.heartRateBPM == nil }, "no reading once the band is off the wrist")
    }
}

struct BoardErrorsAtStartTests {
    @Test func anAccelerometerRateTheChipCannotDoNamesTheLine() throws {
        let error = #expect(throws: BoardError.self) {
            _ = try ScenarioRun(script: "", board: { $0.replacingOccurrences(of: "rate_hz = 50", with: "rate_hz = 75") })
        }
        #expect(error?.key == "accelerometer.rate_hz")
        #expect(error?.line == 12, "the line of rate_hz in boards/sim.toml")
        #expect(error?.message.contains("25, 50, 100") == true)
    }

    @Test func aSecondBandOnTheSameDataDirectoryIsRefused() throws {
        let first = try ScenarioRun(script: "")
        let error = #expect(throws: BandStartError.self) {
            _ = try ScenarioRun(script: "", options: { $0.dataDirectory = first.directory + "/band" })
        }
        #expect(error?.description.contains("another ambled") == true)
    }
}
