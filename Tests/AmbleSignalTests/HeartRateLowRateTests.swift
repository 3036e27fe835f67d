import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import Testing

/// A cheap one-channel sensor (the Bangle.js 2's VC31: about 22 Hz with jittered timing, one
/// green channel, an exposure it changes by itself): steps of level, irregular timing, a cold
/// start. docs/heart-rate.md, "Short, low-rate, one-channel PPG".
@Suite("Heart rate from a low-rate one-channel sensor")
struct HeartRateLowRateTests {
    /// One green channel at rest, sampled at `rateHz` with up to `jitterSeconds` of timing jitter.
    static func oneChannel(bpm: Double, rateHz: Double, jitterSeconds: Double, seconds: Double, seed: UInt64 = 3) -> (SyntheticPPG, [PPGRow]) {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, bpm)]
        s.dcLevels = [3_000]
        s.pulseAmplitudes = [100]
        s.artefactCountsPerG = [0]
        s.seed = seed
        let truth = SyntheticPPG(s)
        return (truth, truth.rows(sampleRateHz: rateHz, durationSeconds: seconds, timingJitterSeconds: jitterSeconds))
    }

    /// Steps of level of 20 and 40 pulse amplitudes: the sensor changing its exposure offset.
    @Test("A step of level mid-window is taken out: no value withheld after it, none biased", arguments: [2_000.0, 4_000])
    func levelStep(step: Double) {
        let (truth, rows) = Self.oneChannel(bpm: 72, rateHz: 22, jitterSeconds: 0.01, seconds: 60)
        let stepped = rows.map { row -> PPGRow in
            var r = row
            if r.timeSeconds >= 30 { r.ppg[0] += step }
            return r
        }
        let run = streamHeartRate(stepped)
        let after = run.outputs.filter { (30...42).contains($0.timeSeconds) }
        #expect(after.allSatisfy { $0.estimate != nil }, "withheld after the step: \(after.filter { $0.estimate == nil }.map { "\($0.timeSeconds) s: \($0.status)" })")
        let score = HeartRateScore(run.outputs, truth: truth, range: 30...60)
        #expect(score.meanAbsoluteErrorBPM <= 2, "\(score)")
    }
}
