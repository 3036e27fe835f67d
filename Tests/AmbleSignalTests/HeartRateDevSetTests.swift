import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import Foundation
import Testing

/// The development recordings (../shared/data/dev/hr: SPC training, TROIKA, 125 Hz, two
/// channels; ../shared/data/dev/hr-bami: BAMI, 50 Hz, three channels of raw counts; both with
/// an ECG reference), scored per device as `../shared/tools/score.py hr` scores them, as
/// recorded and as other sensors would deliver them. Skipped, with a message, when the folders
/// are absent (a fresh clone has no ../shared). The bounds sit just above the figures
/// measured (docs/heart-rate.md, `scripts/score-hr`): they catch a regression, not a target.
///
/// Debug builds score three recordings per device (a few seconds); `swift test -c release`
/// scores all of them, with their own bounds.
@Suite("Heart rate on the development recordings")
struct HeartRateDevSetTests {
    struct Device: CustomStringConvertible, Sendable {
        var name: String
        var folder: String
        /// The recordings a debug build scores.
        var debugSubset: [String]
        /// Bounds: MAE (bpm), coverage, share of the values more than 10 bpm off, and the share
        /// of windows at confidence >= 0.8 within 5 bpm; all recordings, then the subset.
        var release: Bounds
        var debug: Bounds
        var description: String { name }
    }

    struct Bounds: Sendable {
        var mae: Double, coverage: Double, farOff: Double, confidentWithin5: Double
    }

    static let shared: String = {
        // Tests/AmbleSignalTests/<this file> -> the package root -> ../shared/data/dev
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("shared/data/dev").path
    }()

    static func available(_ folder: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: "\(shared)/\(folder)", isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static let spc = Device(name: "SPC training", folder: "hr", debugSubset: ["DATA_01_TYPE01", "DATA_07_TYPE02", "DATA_S04_T01"],
                            // At the band class's threshold by the rule (0.40; at 0.45: 1.40, 0.8 %): 1.49, 1.2 %.
                            release: Bounds(mae: 1.52, coverage: 0.955, farOff: 0.015, confidentWithin5: 0.99),
                            debug: Bounds(mae: 2.15, coverage: 0.92, farOff: 0.025, confidentWithin5: 0.99))
    static let bami = Device(name: "BAMI dev", folder: "hr-bami", debugSubset: ["Subject_1", "Subject_9", "Subject_13"],
                             release: Bounds(mae: 1.93, coverage: 0.98, farOff: 0.006, confidentWithin5: 0.96),
                             debug: Bounds(mae: 1.65, coverage: 0.975, farOff: 0.006, confidentWithin5: 0.99))

    static func names(_ device: Device, variants: Bool = false) throws -> [String] {
        #if DEBUG
        // Each variant replays the recordings again: one recording per device in debug builds.
        return variants ? [device.debugSubset[0]] : device.debugSubset
        #else
        let folder = "\(shared)/\(device.folder)"
        return try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".ref.csv") }
            .map { String($0.dropLast(".ref.csv".count)) }
            .filter { FileManager.default.fileExists(atPath: "\(folder)/\($0).csv") }
            .sorted()
        #endif
    }

    /// Every reference window's value (nil: none) and confidence, replayed as
    /// `amble analyze hr` does with no confidence threshold.
    static func replay(_ data: RecordedPPG, reference: HeartRateReference) -> [(truth: Double, bpm: Double?, confidence: Double)] {
        var replay = HeartRateReplay(estimator: HeartRateEstimator(configuration: {
            var c = HeartRateEstimator.Configuration()
            c.minimumConfidence = 0
            return c
        }()), stepSeconds: 2)
        var outputs: [HeartRateReplay.Output] = []
        for i in 0..<data.count {
            let row = data.row(i)
            let a = row.acceleration.map { AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) }
            replay.process(PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg, acceleration: a)) { outputs.append($0) }
        }
        replay.finish { outputs.append($0) }
        return AmbleRecordings.HeartRateScore.matches(outputTimes: outputs.map(\.timeSeconds), reference: reference).enumerated().map { w, o in
            (reference.windows[w].bpm, o.flatMap { outputs[$0].estimate?.bpm }, o.flatMap { outputs[$0].estimate?.confidence } ?? 0)
        }
    }

    /// The device's recordings as `variant` delivers them: the score at the default threshold,
    /// and every window's error and confidence.
    static func score(_ device: Device, _ variant: SensorVariant = .asRecorded, forVariants: Bool = false) throws -> (score: AmbleRecordings.HeartRateScore, windows: [(error: Double, confidence: Double)]) {
        let threshold = HeartRateEstimator.Configuration().minimumConfidence
        var score = AmbleRecordings.HeartRateScore()
        var windows: [(error: Double, confidence: Double)] = []
        for name in try names(device, variants: forVariants) {
            let folder = "\(shared)/\(device.folder)"
            let data = variant.apply(to: try RecordedPPG(recording: PPGRecording(path: "\(folder)/\(name).csv")))
            let matched = replay(data, reference: try HeartRateReference.read(path: "\(folder)/\(name).ref.csv"))
            score.add(estimates: matched.map { $0.confidence >= threshold ? $0.bpm : nil }, truths: matched.map(\.truth))
            windows += matched.compactMap { m in m.bpm.map { (abs($0 - m.truth), m.confidence) } }
        }
        return (score, windows)
    }

    static func check(_ device: Device) throws {
        #if DEBUG
        let bounds = device.debug
        #else
        let bounds = device.release
        #endif
        let (score, windows) = try score(device)
        let mae = try #require(score.meanAbsoluteErrorBPM as Double?)
        let confident = windows.filter { $0.confidence >= 0.8 }
        let within = Double(confident.filter { $0.error <= 5 }.count) / Double(max(1, confident.count))
        print("\(device.name): MAE \(mae) bpm, coverage \(score.coverage), far off \(score.farOffShare), confidence >= 0.8 within 5 bpm \(within)")
        #expect(mae <= bounds.mae, "\(device): MAE \(mae) bpm")
        #expect(score.coverage >= bounds.coverage, "\(device): coverage \(score.coverage * 100) %")
        #expect(score.farOffShare <= bounds.farOff, "\(device): \(score.farOffShare * 100) % of the values more than 10 bpm off")
        #expect(within >= bounds.confidentWithin5, "\(device): \(within * 100) % of \(confident.count) values at confidence >= 0.8 within 5 bpm")
    }

    @Test("SPC training: MAE, coverage, values far off and confidence within the measured bounds",
          .enabled(if: available("hr"), "../shared/data/dev/hr not found: the development recordings are not in the repository"))
    func spcTraining() throws { try Self.check(Self.spc) }

    @Test("BAMI dev: MAE, coverage, values far off and confidence within the measured bounds",
          .enabled(if: available("hr-bami"), "../shared/data/dev/hr-bami not found: the development recordings are not in the repository"))
    func bamiDev() throws { try Self.check(Self.bami) }

    @Test("Other sensors on both devices: (a) one channel at 25 Hz within 5 bpm; (b) raw counts and (c) gains within 0.3 bpm of as recorded",
          .enabled(if: available("hr") && available("hr-bami"), "../shared/data/dev not found: the development recordings are not in the repository"))
    func otherSensors() throws {
        for device in [Self.spc, Self.bami] {
            let original = try #require(try Self.score(device, forVariants: true).score.meanAbsoluteErrorBPM as Double?)
            let slow = try #require(try Self.score(device, .slowSensor, forVariants: true).score.meanAbsoluteErrorBPM as Double?)
            #expect(slow <= 5, "\(device) (a): \(slow) bpm")
            for variant in [SensorVariant.rawCounts, .lowGain, .highGain] {
                let mae = try #require(try Self.score(device, variant, forVariants: true).score.meanAbsoluteErrorBPM as Double?)
                #expect(abs(mae - original) <= 0.3, "\(device) \(variant.title): \(mae) bpm against \(original)")
            }
        }
    }
}
