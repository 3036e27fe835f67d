import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import Testing

/// Without an accelerometer the estimator cannot take the gait out: a line with a stride line
/// beneath it, or with a second harmonic as strong as a stride's, may be the step or the
/// stride as well as the pulse, and gets no confidence (`PulseEvidence.looksLikeGait`).
@Suite("Heart rate without an accelerometer: a gait line is not shown as the pulse")
struct HeartRateGaitOrPulseTests {
    /// One PPG channel at 25 Hz whose only periodicity is a gait at `cadence` steps/min: the
    /// stride (arm swing), the step twice as strong, and their harmonics at 3/2, 2 and 3 times
    /// the step rate, as the development sets' PPG shows them without an accelerometer; noise
    /// a tenth of the stride's amplitude; no acceleration.
    static func gaitOnly(cadence: Double, seconds: Double = 90) -> [PPGRow] {
        var random = SeededRandom(seed: UInt64(cadence))
        let stride = cadence / 120     // Hz
        let lines: [(multiple: Double, amplitude: Double)] = [(1, 400), (2, 800), (3, 250), (4, 200), (6, 80)]
        return (0..<Int(seconds * 25)).map { i in
            let t = Double(i) / 25
            var value = 150_000 + random.gaussian(standardDeviation: 40)
            for line in lines { value += line.amplitude * Double.sin(2 * .pi * line.multiple * stride * t + line.multiple) }
            return PPGRow(timeSeconds: t, ppg: [value], acceleration: nil)
        }
    }

    @Test("A PPG whose only periodicity is a gait (stride, step and their harmonics), no accelerometer: no value",
          arguments: [95.0, 110, 125])
    func gaitAlone(cadence: Double) {
        let rows = Self.gaitOnly(cadence: cadence)
        let shown = streamHeartRate(rows).outputs.compactMap(\.estimate)
        #expect(shown.isEmpty, "values shown: \(shown.map { Int($0.bpm) })")
        // With no threshold the values are there, each with no confidence.
        let all = streamHeartRate(rows) { $0.minimumConfidence = 0 }.outputs.compactMap(\.estimate)
        #expect(all.count >= 35 && all.allSatisfy { $0.confidence == 0 }, "\(all.map { (Int($0.bpm), $0.confidence) })")
    }

    @Test("A clean pulse with its harmonics, no accelerometer: values throughout, confident", arguments: [60.0, 75, 100, 140])
    func cleanPulse(bpm: Double) {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, bpm)]
        s.includesAcceleration = false
        s.dcLevels = [150_000]
        s.pulseAmplitudes = [-900]
        s.artefactCountsPerG = [0]
        s.seed = UInt64(bpm)
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 25, durationSeconds: 90))
        let score = HeartRateScore(run.outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 2 && score.coverage >= 0.95, "\(score)")
        let confident = run.outputs.compactMap(\.estimate).filter { $0.confidence >= 0.8 }
        #expect(confident.count >= run.outputs.count * 3 / 4, "\(confident.count) of \(run.outputs.count) at 0.8 or more")
    }
}
