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

    @Test("Jittered timing at 20-30 Hz gives the rate regular timing gives, within 1 bpm", arguments: [20.0, 22, 30])
    func jitteredTiming(rateHz: Double) {
        for bpm in [48.0, 72, 150] {
            let (truth, regular) = Self.oneChannel(bpm: bpm, rateHz: rateHz, jitterSeconds: 0, seconds: 60)
            let (_, jittered) = Self.oneChannel(bpm: bpm, rateHz: rateHz, jitterSeconds: 0.4 / rateHz, seconds: 60)
            let a = HeartRateScore(streamHeartRate(regular).outputs, truth: truth, range: 20...60)
            let b = HeartRateScore(streamHeartRate(jittered).outputs, truth: truth, range: 20...60)
            // Jitter is sampling noise: within 1 bpm of regular timing, as close as interpolating
            // each bin's value at its centre gets (docs/heart-rate.md).
            #expect(b.meanAbsoluteErrorBPM <= min(2, a.meanAbsoluteErrorBPM + 1), "\(bpm) bpm: regular \(a), jittered \(b)")
            #expect(b.coverage >= 0.95, "\(bpm) bpm: jittered \(b)")
        }
    }

    @Test("From a cold start at 22 Hz, a value within 5 bpm by 15 s", arguments: [48.0, 72, 110, 150])
    func coldStart(bpm: Double) {
        let (truth, rows) = Self.oneChannel(bpm: bpm, rateHz: 22, jitterSeconds: 0.01, seconds: 20)
        let outputs = streamHeartRate(rows).outputs
        let first = outputs.first { $0.estimate != nil }
        #expect(first.map { $0.timeSeconds <= 15 } == true, "first value: \(first.map { "\($0.timeSeconds) s" } ?? "none")")
        let score = HeartRateScore(outputs, truth: truth)
        #expect(score.worstErrorBPM <= 5, "\(score)")
    }

    @Test("A sensor stuck at one value for its first 5 s, then pulsing: values once a window of pulse is in")
    func stuckAtStart() {
        let (truth, rows) = Self.oneChannel(bpm: 72, rateHz: 22, jitterSeconds: 0.01, seconds: 40)
        let stuck = rows.map { row -> PPGRow in
            var r = row
            if r.timeSeconds < 5 { r.ppg[0] = 0 }
            return r
        }
        let score = HeartRateScore(streamHeartRate(stuck).outputs, truth: truth, range: 16...40)
        #expect(score.meanAbsoluteErrorBPM <= 2 && score.coverage >= 0.9, "\(score)")
    }
}
