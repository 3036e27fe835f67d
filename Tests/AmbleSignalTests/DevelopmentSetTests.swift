#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleRecordings
@_spi(Diagnostics) import AmbleSignal
import Testing

/// The real wrist recordings in `../shared/data/dev/steps` and `steps-pebble` (not in the
/// repository), scored per device as `../shared/tools/score.py steps` scores them: walking
/// MAPE and non-walking false steps per hour (pooled). Skipped, with a message, when the
/// folders are absent (a fresh clone has no `../shared`). The bounds sit just above the
/// figures measured (docs/steps.md, "Figures"): they catch a regression, not a target.
@Suite("Step counter on the development recordings")
struct DevelopmentSetTests {
    static let shared: String = {
        // Tests/AmbleSignalTests/<this file> -> package root -> ../shared/data/dev
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/../shared/data/dev"
    }()

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: shared + "/steps/labels.csv") && FileManager.default.fileExists(atPath: shared + "/steps-pebble/labels.csv")
    }

    /// A recording counted as `amble analyze steps` counts it, with its per-second cadence.
    /// `magnitudeOnly`: three-axis rows given as |a| alone, as a magnitude-only sensor would.
    static func count(_ path: String, magnitudeOnly: Bool = false) throws -> (steps: Int, cadences: [Double], walkingSeconds: Double) {
        var samples: [AccelerationSample] = []
        try AccelerationRecording(path: path).forEachRow { row in
            let sample = AccelerationSample.recorded(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG)
            samples.append(magnitudeOnly ? sample.magnitudeOnly : sample)
        }
        return StepCounter.countWithCadence(samples)
    }

    static func device(_ file: String) -> String {
        file.hasPrefix("bangle") ? "Bangle.js" : file.hasPrefix("pebble") ? "Pebble" : "Sensor Watch"
    }

    @Test("per device: walking MAPE and false steps per hour within the measured bounds",
          .enabled(if: DevelopmentSetTests.isAvailable, "../shared/data/dev is absent: the development recordings are not in the repository"))
    func developmentSet() throws {
        var scores: [String: StepScore] = [:]
        var cadenceRatios: [Double] = []
        var threeAxis = StepScore()
        for folder in ["steps", "steps-pebble"] {
            for label in try StepLabel.read(path: "\(Self.shared)/\(folder)/labels.csv") {
                let result = try Self.count("\(Self.shared)/\(folder)/\(label.file)")
                scores[Self.device(label.file), default: StepScore()].add(counted: result.steps, for: label)
                if Self.device(label.file) != "Sensor Watch" { threeAxis.add(counted: result.steps, for: label) }
                // The cadence the band compares with the limit, against steps / walking time.
                if label.kind == .walking, result.steps > 30, !result.cadences.isEmpty, result.walkingSeconds > 0 {
                    let median = result.cadences.sorted()[result.cadences.count / 2]
                    let mean = Double(result.steps) / result.walkingSeconds * 60
                    cadenceRatios.append(median / mean)
                }
            }
        }
        let report = scores.map { "\($0.key): \($0.value.walkingMAPEPercent ?? .nan) %, \($0.value.falseStepsPerHour ?? .nan) false/h" }.joined(separator: "; ")
        let bounds: [String: (mape: Double, falsePerHour: Double)] = [
            "Bangle.js": (3.0, 10), "Pebble": (3.6, 25), "Sensor Watch": (15, 10),
        ]
        for (device, bound) in bounds {
            let score = scores[device]
            #expect((score?.walkingMAPEPercent ?? .infinity) <= bound.mape, "\(device): \(report)")
            #expect((score?.falseStepsPerHour ?? .infinity) <= bound.falsePerHour, "\(device): \(report)")
        }
        // The issue's target for the 3-axis devices pooled.
        #expect((threeAxis.falseStepsPerHour ?? .infinity) <= 20, "pooled on the 3-axis devices: \(threeAxis.falseStepsPerHour ?? .nan) false steps per hour")
        // The median per-second cadence agrees with steps / walking seconds within 3 % on
        // most walks (the issue's cadence check; docs/steps.md).
        let within = cadenceRatios.filter { abs($0 - 1) <= 0.03 }.count
        #expect(Double(within) >= 0.8 * Double(cadenceRatios.count), "\(within) of \(cadenceRatios.count) walks within 3 %")
        withKnownIssue("the issue's magnitude-only walking target is not met (docs/steps.md, \"Figures\")") {
            #expect((scores["Sensor Watch"]?.walkingMAPEPercent ?? .infinity) <= 8, "\(report)")
        }
    }

    /// The magnitude-only path on more walks than Sensor Watch's: the 3-axis recordings given
    /// as |a| alone (`scripts/score-steps --magnitude-only`; docs/steps.md, "Magnitude-only, on
    /// more walks"). Bounds just above the figures measured, as above.
    @Test("the 3-axis recordings given as |a| alone: walking MAPE and false steps per hour within the measured bounds",
          .enabled(if: DevelopmentSetTests.isAvailable, "../shared/data/dev is absent: the development recordings are not in the repository"))
    func threeAxisRecordingsAsMagnitude() throws {
        let sets: [(folder: String, device: String, mape: Double, falsePerHour: Double)] = [
            ("steps", "Bangle.js", 10, 10), ("steps-pebble", "Pebble", 5.3, 135),
        ]
        for set in sets {
            var score = StepScore()
            for label in try StepLabel.read(path: "\(Self.shared)/\(set.folder)/labels.csv") where Self.device(label.file) == set.device {
                let result = try Self.count("\(Self.shared)/\(set.folder)/\(label.file)", magnitudeOnly: true)
                score.add(counted: result.steps, for: label)
            }
            let report = "\(set.device) as |a|: \(score.walkingMAPEPercent ?? .nan) %, \(score.falseStepsPerHour ?? .nan) false/h"
            #expect((score.walkingMAPEPercent ?? .infinity) <= set.mape, "\(report)")
            #expect((score.falseStepsPerHour ?? .infinity) <= set.falsePerHour, "\(report)")
        }
    }
}
