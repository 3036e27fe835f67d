#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleRecordings
import AmbleSignal
import Testing

/// The real wrist recordings in `../shared/data/dev/steps` (not in the repository), scored as
/// `../shared/tools/score.py steps` scores them: walking MAPE (mean over files of
/// |counted - true| / true) and non-walking false steps per hour (pooled). Skipped, with a
/// message, when the folder is absent (a fresh clone has no `../shared`).
@Suite("Step counter on the development recordings")
struct DevelopmentSetTests {
    static let folder: String = {
        // Tests/AmbleSignalTests/<this file> -> package root -> ../shared/data/dev/steps
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/../shared/data/dev/steps"
    }()

    static var isAvailable: Bool { FileManager.default.fileExists(atPath: folder + "/labels.csv") }

    static func count(_ path: String) throws -> Int {
        var counter = StepCounter()
        try AccelerationRecording(path: path).forEachRow { row in
            let magnitudeOnly = row.yG == 0 && row.zG == 0
            _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG, isMagnitudeOnly: magnitudeOnly))
        }
        return counter.totalSteps
    }

    @Test("targets: at most 30 false steps per hour; walking MAPE tracked against 3 %",
          .enabled(if: DevelopmentSetTests.isAvailable, "../shared/data/dev/steps is absent: the development recordings are not in the repository"))
    func developmentSet() throws {
        var bangle = StepScore(), sensorWatch = StepScore(), all = StepScore()
        for label in try StepLabel.read(path: Self.folder + "/labels.csv") {
            let counted = try Self.count(Self.folder + "/" + label.file)
            if label.file.hasPrefix("bangle") {
                bangle.add(counted: counted, for: label)
            } else {
                sensorWatch.add(counted: counted, for: label)
            }
            all.add(counted: counted, for: label)
        }
        let report = "walking MAPE \(all.walkingMAPEPercent ?? .nan) % (Bangle 3-axis \(bangle.walkingMAPEPercent ?? .nan) %, "
            + "Sensor Watch magnitude \(sensorWatch.walkingMAPEPercent ?? .nan) %); non-walking \(all.falseStepsPerHour ?? .nan) false steps/h "
            + "(Bangle \(bangle.falseStepsPerHour ?? .nan), Sensor Watch \(sensorWatch.falseStepsPerHour ?? .nan))"
        #expect(all.walkingPercentErrors.count == 39 && all.nonWalkingHours > 1, "expected the 72-file set: \(report)")
        // The issue's false-step target, on each kind and pooled.
        #expect((all.falseStepsPerHour ?? .infinity) <= 30, "\(report)")
        #expect((bangle.falseStepsPerHour ?? .infinity) <= 30, "\(report)")
        #expect((sensorWatch.falseStepsPerHour ?? .infinity) <= 30, "\(report)")
        // The issue's walking target, met on the 3-axis Bangle recordings (1.7 %).
        #expect((bangle.walkingMAPEPercent ?? .infinity) <= 3, "\(report)")
        // Not met on the magnitude-only Sensor Watch clips (5.7 %, docs/steps.md): regression
        // bounds just above the measured level (all 4.8 %), and the target recorded as a known
        // issue, not hidden.
        #expect((sensorWatch.walkingMAPEPercent ?? .infinity) <= 6.5, "\(report)")
        #expect((all.walkingMAPEPercent ?? .infinity) <= 5.5, "\(report)")
        withKnownIssue("walking MAPE target of 3 % not met on the Sensor Watch clips (hand-counted slow walks)") {
            #expect((sensorWatch.walkingMAPEPercent ?? .infinity) <= 3, "\(report)")
            #expect((all.walkingMAPEPercent ?? .infinity) <= 3, "\(report)")
        }
    }
}
