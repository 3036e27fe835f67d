@testable import AmbleSignal
import AmbleRecordings
import AmbleSimulation
import Testing

/// Gaps in a recording's samples (issue 31): no value where there are no samples, memory and
/// work bounded by the window whatever the gap, and estimates again once samples return.
@Suite("Heart rate across gaps in the samples")
struct HeartRateGapTests {
    /// `seconds` of a steady pulse at 50 Hz, then one more sample `gapSeconds` after the last.
    static func pulseThenOneSample(seconds: Double = 20, gapSeconds: Double) -> [PPGRow] {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 72)]
        var rows = SyntheticPPG(s).rows(sampleRateHz: 50, durationSeconds: seconds)
        var late = rows[rows.count - 1]
        late.timeSeconds += gapSeconds
        late.acceleration?.timeSeconds = late.timeSeconds
        rows.append(late)
        return rows
    }

    @Test("a sample far after the others: the estimates made and the memory do not grow with the gap")
    func farOffSample() throws {
        for gap in [1e3, 1e6, 1e12] {
            let run = streamHeartRate(Self.pulseThenOneSample(gapSeconds: gap))
            // 8 to 26 s, while the window before each holds a sample; none after, up to the
            // sample after the gap (and not one by one: a gap of 1e12 s costs what 1e3 does).
            try #require(run.outputs.count == 10, "gap \(gap): \(run.outputs.count) estimates")
            #expect(run.outputs.last?.timeSeconds == 26)
            #expect(run.estimator.bufferElementCount == HeartRateEstimator().bufferElementCount)
        }
    }

    @Test("no samples, no value: 20 s of pulse and one sample at 1000 s give no value after 20.5 s")
    func noSamplesNoValue() {
        let run = streamHeartRate(Self.pulseThenOneSample(gapSeconds: 980))
        #expect(run.outputs.contains { $0.timeSeconds < 20 && $0.estimate != nil }, "the pulse before the gap has values")
        let during = run.outputs.filter { $0.timeSeconds > 20.5 }
        #expect(!during.isEmpty)
        #expect(during.allSatisfy { $0.estimate == nil && $0.status == .warmingUp },
                "values in the gap: \(during.compactMap { $0.estimate.map { "\($0.bpm) at \($0.confidence)" } })")
    }

    @Test("after a gap the window starts again: rows on the same grid, empty in the gap, right once a window is back")
    func resumesAfterGap() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 72), (60, 72), (300, 96)]
        let truth = SyntheticPPG(s)
        let rows = truth.rows(sampleRateHz: 50, durationSeconds: 360).filter { !(60.0..<300.0).contains($0.timeSeconds) }
        var replay = HeartRateReplay(estimator: HeartRateEstimator(), stepSeconds: 2)
        var outputs: [HeartRateOutput] = []
        for row in rows {
            let a = row.acceleration.map { AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) }
            replay.process(PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg, acceleration: a)) { outputs.append($0) }
        }
        replay.finish { outputs.append($0) }
        #expect(outputs.allSatisfy { ($0.timeSeconds - 8).truncatingRemainder(dividingBy: 2) == 0 }, "every row on the 2 s grid")
        #expect(!outputs.contains { $0.timeSeconds > 68 && $0.timeSeconds < 300 }, "rows asked for with no sample in their window")
        #expect(outputs.filter { $0.timeSeconds > 60.5 && $0.timeSeconds < 308 }.allSatisfy { $0.estimate == nil })
        let back = HeartRateScore(outputs, truth: truth, range: 310...360)
        #expect(back.meanAbsoluteErrorBPM <= 2 && back.coverage >= 0.9, "after the gap: \(back)")
        // As the scorer reads the rows (score.py's matching): the reference windows in the gap
        // get no estimate; those a window after it do.
        let reference = HeartRateReference(windows: stride(from: 8.0, through: 360, by: 2).map { .init(timeSeconds: $0, bpm: 0) })
        let matched = AmbleRecordings.HeartRateScore.matches(outputTimes: outputs.map(\.timeSeconds), reference: reference)
        for (window, output) in zip(reference.windows, matched) where window.timeSeconds > 61 && window.timeSeconds < 308 {
            #expect(output.flatMap { outputs[$0].estimate } == nil, "a value for the reference window ending at \(window.timeSeconds)")
        }
        let after = zip(reference.windows, matched).filter { $0.0.timeSeconds >= 310 }
        #expect(after.filter { $0.1.flatMap { outputs[$0].estimate } != nil }.count >= after.count * 9 / 10)
    }
}
