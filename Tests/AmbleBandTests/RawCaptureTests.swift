@testable import AmbleBand
import AmbleBandStore
@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleRecordings
import AmbleSync
import Foundation
import Testing

/// The capture itself, without a band: blocks, gaps, the measured rate, the cap.
struct RawSampleCaptureTests {
    @Test func samplesBecomeBlocksOfAFewSecondsSplitAtGaps() {
        var capture = RawSampleCapture(sessionStartSeconds: 100)
        capture.addAcceleration(atSeconds: 99.99, xG: 1, yG: 0, zG: 0, rateHz: 50)   // before the session: left out
        for i in 0 ..< 400 {   // 8 s at 49.5 Hz (the chip a little slow), then a 1 s gap, then 1 s
            let t = 100.01 + Double(i) / 49.5 + (i >= 300 ? 1 : 0)
            capture.addAcceleration(atSeconds: t, xG: 0.0123, yG: -0.98, zG: 40, rateHz: 50)
        }
        capture.addPPG(atSeconds: 100.5, infrared: 120_000, red: 98_000, rateHz: 100)
        let blocks = capture.finishAll()
        let acceleration = blocks.filter { $0.sensor == .accelerometer }
        #expect(acceleration.map(\.sampleCount).reduce(0, +) == 400)
        #expect(acceleration.allSatisfy { Double($0.sampleCount) / 49.5 <= RawSampleCapture.blockSeconds + 0.03 }, "at most 5 s a block")
        #expect(acceleration.count == 3, "split at 5 s and at the gap: \(acceleration.map(\.sampleCount))")
        #expect(acceleration[0].startMilliseconds == 10)
        #expect(abs(acceleration[0].rateMillihertz - 49_500) <= 1, "the rate measured over the block")
        #expect(abs(acceleration[2].timeSeconds(ofSample: 0) - (100.01 + 300 / 49.5 + 1 - 100)) < 0.001, "a block starts after the gap")
        #expect(Array(acceleration[0].values.prefix(3)) == [12, -980, 32_767], "mg, clamped to 16 bits")
        #expect(blocks.filter { $0.sensor == .ppg }.map(\.values) == [[120_000, 98_000]])
        #expect(blocks.allSatisfy { $0.isValid })
    }

    @Test func theCapStopsTheCaptureForTheRestOfTheSession() {
        var capture = RawSampleCapture(sessionStartSeconds: 0, maximumBytes: 600)
        for i in 0 ..< 200 { capture.addAcceleration(atSeconds: Double(i) / 50, xG: 0, yG: 0, zG: 1, rateHz: 50) }
        #expect(capture.capReached)
        #expect(capture.bytesTaken == 600 && capture.samplesTaken[.accelerometer] == 100)
        #expect(capture.finishAll().sampleCount(of: .accelerometer) == 100)
    }
}

/// Raw capture on the simulated board, end to end: the store, the link, the laptop's export.
struct RawCaptureScenarioTests {
    /// A 30 s calibration at 110 steps/min.
    static let calibration = "0:01 press select\n+1 walk 110\n+36 stop\n"

    static func consent(_ run: ScenarioRun, _ value: String) throws {
        try run.band.store.set(.consentRawCapture, to: value)
        run.band.settingChanged(.consentRawCapture, to: value)
    }

    @Test func aCalibrationWithRawCaptureOnKeepsItsSamplesAndSendsThem() throws {
        let run = try ScenarioRun(script: Self.calibration)
        try Self.consent(run, "on")
        run.run(seconds: 45)
        let session = try #require(try run.band.store.finishedSessions().first)
        let duration = session.summary.durationSeconds
        let record = try #require(try run.band.store.session(id: session.id))
        // About 50 Hz of acceleration and 100 Hz of PPG for the whole session.
        let acceleration = record.raw.sampleCount(of: .accelerometer), ppg = record.raw.sampleCount(of: .ppg)
        #expect(abs(Double(acceleration) - 50 * duration) <= 0.03 * 50 * duration, "\(acceleration) samples in \(duration) s")
        #expect(abs(Double(ppg) - 100 * duration) <= 0.03 * 100 * duration, "\(ppg) samples in \(duration) s")
        #expect(record.raw.allSatisfy { Double($0.sampleCount) * 1000 / Double($0.rateMillihertz) <= 5.05 }, "blocks of at most 5 s")
        // What a wrist feels: about 1 g on average.
        let a = record.raw.filter { $0.sensor == .accelerometer }.flatMap(\.values).map(Double.init)
        var sum = 0.0
        for i in stride(from: 0, to: a.count, by: 3) {
            let squares: Double = a[i] * a[i] + a[i + 1] * a[i + 1] + a[i + 2] * a[i + 2]
            sum += squares.squareRoot()
        }
        let mean = sum / Double(a.count / 3)
        #expect(abs(mean - 1000) < 150, "mean |a| \(mean) mg")
        // Sent as version 3, decoded to the very same samples.
        let data = try #require(try run.band.store.sessionData(id: session.id))
        #expect(data.bytes[0] == 3)
        #expect(try SessionCoding.decode(data.bytes).raw == record.raw)
    }

    @Test func withoutConsentNothingRawIsStored() throws {
        let run = try ScenarioRun(script: Self.calibration)
        #expect(try run.band.store.setting(.consentRawCapture) == "off", "off by default")
        run.run(seconds: 45)
        let session = try #require(try run.band.store.finishedSessions().first)
        #expect(try run.band.store.rawCounts(sessionID: session.id).samples.isEmpty)
        #expect(try run.band.store.sessionData(id: session.id)?.bytes.first == 2, "sent as before")
    }

    @Test func consentWithdrawnMidSessionStopsTheCaptureAtOnce() throws {
        let run = try ScenarioRun(script: Self.calibration)
        try Self.consent(run, "on")
        run.run(seconds: 20)
        let id = try #require(try run.band.store.sessionIDs().first)
        let stored = try run.band.store.rawCounts(sessionID: id).samples[.accelerometer] ?? 0
        try Self.consent(run, "off")
        let withdrawnAt = run.clock.nowSeconds
        run.run(seconds: 25)
        #expect(run.log.contains("raw capture stopped: consent withdrawn"))
        let record = try #require(try run.band.store.session(id: id))
        #expect(record.raw.sampleCount(of: .accelerometer) == stored, "nothing after the withdrawal, not even the samples not yet stored")
        let sessionStart = record.summary.startUnixSeconds - (run.band.unixSeconds - run.clock.nowSeconds)
        let last = record.raw.map { $0.timeSeconds(ofSample: $0.sampleCount - 1) }.max() ?? 0
        #expect(sessionStart + last <= withdrawnAt + 0.01)
    }

    @Test func aDiscardedCalibrationLeavesNoRawSamples() throws {
        let run = try ScenarioRun(script: "0:01 press select\n+1 walk 110\n+12 press back\n+1 stop\n")
        try Self.consent(run, "on")
        run.run(seconds: 12)
        let id = try #require(try run.band.store.sessionIDs().first)
        let early = try run.band.store.rawCounts(sessionID: id).samples[.accelerometer] ?? 0
        #expect(early > 0, "blocks are stored as they finish")
        run.run(seconds: 4)
        #expect(try run.band.store.sessionIDs().isEmpty)
        #expect(try run.band.store.rawCounts(sessionID: id).samples.isEmpty)
    }

    @Test func theLaptopExportsTheSyncedSamplesAsTheCSVAnalyzeReads() throws {
        let run = try ScenarioRun(script: Self.calibration, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        try Self.consent(run, "on")
        run.run(seconds: 45)
        let storePath = run.directory + "/amble.sqlite"
        let laptopStore = try CompanionStore(path: storePath)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let address = try listenAddress(run)
        let result = try LaptopThread { () throws -> Synchronizer.Result in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            return try Synchronizer(sink: laptopStore, link: link).run()
        }.wait(ticking: run)
        let pulled = try #require(result.pulled.first)
        let bandRecord = try #require(try run.band.store.session(id: pulled.bandSessionID))
        #expect(try laptopStore.rawBlocks(sessionID: pulled.localID) == bandRecord.raw)

        // `sessions show --json` says how many samples there are.
        let (stored, seconds) = try #require(try laptopStore.session(id: pulled.localID))
        let json = SessionJSON.object(stored, seconds: seconds, raw: try laptopStore.rawSampleCounts(sessionID: pulled.localID)).text
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let raw = try #require(object["raw"] as? [String: Any])
        #expect(raw["accelerometer_samples"] as? Int == bandRecord.raw.sampleCount(of: .accelerometer))
        #expect(raw["ppg_samples"] as? Int == bandRecord.raw.sampleCount(of: .ppg))

        // The command writes the files; the analyze readers take them.
        let stepsFile = run.directory + "/steps.csv", hrFile = run.directory + "/hr.csv"
        var export = try AmbleCommand.parseAsRoot(["--store", storePath, "sessions", "export", String(pulled.localID), "--raw", "steps", "--output", stepsFile])
        try export.run()
        export = try AmbleCommand.parseAsRoot(["--store", storePath, "sessions", "export", "latest", "--raw", "hr", "-o", hrFile])
        try export.run()
        var rows = 0
        try AccelerationRecording(path: stepsFile).forEachRow { _ in rows += 1 }
        #expect(rows == bandRecord.raw.sampleCount(of: .accelerometer))
        let steps = try StepAnalysis.run(recording: AccelerationRecording(path: stepsFile))
        // The band counted the calibration's steps from the same samples; its counter runs
        // across the session's edges (it was already walking when the session began, and
        // releases steps about 10 s late), the file's starts cold: they agree within 15 %.
        #expect(abs(steps.steps - stored.summary.steps) <= max(3, stored.summary.steps * 15 / 100), "analyze \(steps.steps), band \(stored.summary.steps)")
        // And with the wearer's cadence over the samples' span.
        let cadence = try #require(steps.meanCadenceStepsPerMinute)
        #expect(abs(cadence - 110) <= 4, "mean cadence \(cadence) steps/min for a 110 steps/min walk")
        let hr = PPGRecording(path: hrFile)
        #expect(try hr.channelCount() == 2)
        var withAcceleration = 0, ppgRows = 0
        try hr.forEachRow { row in
            ppgRows += 1
            if row.acceleration != nil { withAcceleration += 1 }
        }
        #expect(ppgRows == bandRecord.raw.sampleCount(of: .ppg))
        #expect(withAcceleration >= ppgRows - 5, "each PPG row carries the acceleration at its time")
        let analysis = try HeartRateAnalysis.run(recording: hr, windowSeconds: 8, stepSeconds: 2)
        #expect(analysis.estimatesWithValue > 0, "the estimator finds a pulse in the exported PPG")
    }

    @Test func aSessionWithoutRawSamplesSaysConsentWasOff() throws {
        let directory = NSTemporaryDirectory() + "amble-export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try CompanionStore(path: directory + "/amble.sqlite")
        let seconds = (0 ..< 5).map { SessionSecond(offsetSeconds: $0, steps: 1, cadenceStepsPerMinute: 100) }
        let summary = SessionTally(seconds).summary(kind: .calibration, startUnixSeconds: 1_800_000_000, endUnixSeconds: 1_800_000_005,
                                                    parameters: SessionParameters(stepLengthMeters: 0.7))
        let id = try #require(try store.insert(bandID: "b", bandName: "Band", bandSessionID: 1, record: SessionRecord(summary: summary, seconds: seconds), syncedAtUnixSeconds: 0))
        let export = try AmbleCommand.parseAsRoot(["--store", directory + "/amble.sqlite", "sessions", "export", String(id), "--raw", "steps"])
        let error = #expect(throws: (any Error).self) { var command = export; try command.run() }
        #expect("\(error!)".contains("consent_raw_capture was off"))
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sessions", "export", "1", "--raw", "csv"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sessions", "export", "1"]) }
        let (session, _) = try #require(try store.session(id: id))
        let text = SessionJSON.object(session, seconds: [], raw: [:]).text
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["raw"] is NSNull)
    }

    @Test func anExistingFileIsReplacedOnlyWithForce() throws {
        let directory = NSTemporaryDirectory() + "amble-export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try CompanionStore(path: directory + "/amble.sqlite")
        let seconds = (0 ..< 2).map { SessionSecond(offsetSeconds: $0, steps: 1, cadenceStepsPerMinute: 100) }
        let summary = SessionTally(seconds).summary(kind: .calibration, startUnixSeconds: 1_800_000_000, endUnixSeconds: 1_800_000_002,
                                                    parameters: SessionParameters(stepLengthMeters: 0.7))
        let raw = [RawBlock(sensor: .accelerometer, startMilliseconds: 0, rateMillihertz: 25_000, channels: 3, values: (0 ..< 150).map { Int32($0 % 3 == 0 ? 1000 : 0) })]
        let id = try #require(try store.insert(bandID: "b", bandName: "Band", bandSessionID: 1, record: SessionRecord(summary: summary, seconds: seconds, raw: raw),
                                               syncedAtUnixSeconds: 0))
        let file = directory + "/steps.csv"
        try "the wearer's own notes\n".write(toFile: file, atomically: true, encoding: .utf8)
        func export(_ more: [String]) throws {
            var command = try AmbleCommand.parseAsRoot(["--store", directory + "/amble.sqlite", "sessions", "export", String(id), "--raw", "steps", "-o", file] + more)
            try command.run()
        }
        let refused = #expect(throws: CommandError.self) { try export([]) }
        #expect(refused?.description == "\(file) exists; pass --force to replace it")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "the wearer's own notes\n", "left as it was")
        try export(["--force"])
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("time_s,x_g,y_g,z_g\n"))
        #expect(throws: (any Error).self, "--force without a file") { try AmbleCommand.parseAsRoot(["sessions", "export", "1", "--raw", "steps", "--force"]) }
    }
}
