import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import Testing

/// Accuracy on synthetic PPG with a known rate: at rest, walking with a cadence-locked motion
/// artefact stronger than the pulse, rate ramps; 1–3 channels; 25–125 Hz.
///
/// Tolerances: 2 bpm mean absolute error at rest, 3 bpm while walking (the targets of the
/// issue), coverage at least 85–95 %; the truth is the mean rate of the beats in each window.
@Suite("Heart rate on synthetic PPG")
struct HeartRateSyntheticTests {
    @Test("Steady rate at rest: within 2 bpm, nearly always a value")
    func rest() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 64)]
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 50, durationSeconds: 90))
        let score = HeartRateScore(run.outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 2, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }

    static let walks: [(cadence: Double, bpm: Double)] = [
        (104, 98),   // the step rate just above the heart rate
        (90, 110),   // arm swing 45/min, steps 90/min, their harmonics 135 and 180
        (130, 75),   // arm swing 65/min, just below the heart rate
    ]

    static func walkingScenario(cadence: Double, bpm: Double) -> SyntheticPPG.Scenario {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, bpm)]
        s.cadence = [(0, cadence)]
        s.artefactCountsPerG = [4_000, 2_500]   // several times the pulse at a 0.3–0.9 g swing
        s.seed = UInt64(cadence)
        return s
    }

    @Test("The walking scenarios are hard: the strongest PPG line is the motion, not the pulse", arguments: walks)
    func walkingScenarioIsHard(cadence: Double, bpm: Double) {
        let truth = SyntheticPPG(Self.walkingScenario(cadence: cadence, bpm: bpm))
        let rows = truth.rows(sampleRateHz: 50, durationSeconds: 40)
        let peak = strongestLineBPM(rows.suffix(400).map { $0.ppg[0] }, sampleRateHz: 50)
        #expect(abs(peak - bpm) > 3, "naive peak \(peak) bpm")
    }

    @Test("Walking, artefact stronger than the pulse: within 3 bpm", arguments: walks)
    func walking(cadence: Double, bpm: Double) {
        let truth = SyntheticPPG(Self.walkingScenario(cadence: cadence, bpm: bpm))
        let run = streamHeartRate(truth.rows(sampleRateHz: 50, durationSeconds: 120))
        let score = HeartRateScore(run.outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 3, "\(score)")
        #expect(score.coverage >= 0.85, "\(score)")
    }

    @Test("A magnitude-only accelerometer (|a| in x, 0 in y and z) is enough", arguments: walks)
    func magnitudeOnlyAccelerometer(cadence: Double, bpm: Double) {
        let truth = SyntheticPPG(Self.walkingScenario(cadence: cadence, bpm: bpm))
        let rows = truth.rows(sampleRateHz: 50, durationSeconds: 120).map { row -> PPGRow in
            var r = row
            r.acceleration = row.acceleration.map {
                AccelerationRow(timeSeconds: $0.timeSeconds, xG: ($0.xG * $0.xG + $0.yG * $0.yG + $0.zG * $0.zG).squareRoot(), yG: 0, zG: 0)
            }
            return r
        }
        let score = HeartRateScore(streamHeartRate(rows).outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 3, "\(score)")
        #expect(score.coverage >= 0.85, "\(score)")
    }

    @Test("Rate ramps while walking, and back down at rest: within 3 bpm")
    func ramps() {
        var s = SyntheticPPG.Scenario()
        // Rest, then walking as the rate climbs 70 -> 125 bpm in 60 s, then rest and recovery.
        s.heartRate = [(0, 70), (30, 70), (90, 125), (150, 125), (210, 80)]
        s.cadence = [(0, 0), (30, 112), (150, 0)]
        s.artefactCountsPerG = [3_000, 2_000]
        s.seed = 7
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 64, durationSeconds: 230))
        let score = HeartRateScore(run.outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 3, "\(score)")
        #expect(score.coverage >= 0.9, "\(score)")
        let rest = HeartRateScore(run.outputs, truth: truth, range: 8...30)
        #expect(rest.meanAbsoluteErrorBPM <= 2, "\(rest)")
    }

    @Test("Any channel count and rate: 1, 2, 3 channels at 25, 50, 100, 125 Hz", arguments: [1, 2, 3], [25.0, 50, 100, 125])
    func channelsAndRates(channels: Int, rateHz: Double) {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 85), (40, 105)]
        s.cadence = [(0, 0), (20, 100)]
        // Green-like, infrared-like, red-like: different DC, sign and artefact coupling.
        s.dcLevels = Array([2_000, 110_000, 80_000].prefix(channels))
        s.pulseAmplitudes = Array([300, -1_100, -650].prefix(channels))
        s.artefactCountsPerG = Array([500, 2_500, -1_500].prefix(channels))
        s.seed = UInt64(channels * 1000) + UInt64(rateHz)
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: rateHz, durationSeconds: 70, timingJitterSeconds: 0.1 / rateHz))
        let score = HeartRateScore(run.outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 3, "\(score)")
        #expect(score.coverage >= 0.85, "\(score)")
    }

    @Test("Other window lengths: 4, 16 and 60 s", arguments: [4.0, 16, 60])
    func windowLengths(seconds: Double) {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 72), (60, 90), (150, 90)]
        s.cadence = [(0, 0), (40, 100)]
        s.artefactCountsPerG = [2_000, 1_200]
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 50, durationSeconds: 150), windowSeconds: seconds)
        #expect(run.outputs.first?.timeSeconds == seconds)
        let score = HeartRateScore(run.outputs, truth: truth, windowSeconds: seconds)
        // A long window averages over the ramp, as its reference does. A 4 s window resolves
        // only 15 bpm (Hann main lobe), half of what the design's 8 s do: the gait zones cover
        // the pulse more often, and more values are withheld.
        #expect(score.meanAbsoluteErrorBPM <= 3, "\(score)")
        #expect(score.coverage >= (seconds < 8 ? 0.75 : 0.85), "\(score)")
    }

    @Test("A PPG-only device (no accelerometer) at rest: within 2 bpm")
    func noAccelerometer() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 58), (60, 66)]
        s.includesAcceleration = false
        s.dcLevels = [150_000]
        s.pulseAmplitudes = [-900]
        s.artefactCountsPerG = [0]
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 25, durationSeconds: 90))
        let score = HeartRateScore(run.outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 2, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }
}

/// The rate of the strongest spectral line between 40 and 220 per minute (a naive estimator).
func strongestLineBPM(_ values: [Double], sampleRateHz: Double) -> Double {
    var fft = RealFFT(size: 4096)
    let mean = values.reduce(0, +) / Double(values.count)
    let window = WindowFunction.hann(count: values.count)
    let input = values.indices.map { (values[$0] - mean) * window[$0] }
    var power: [Double] = []
    fft.powerSpectrum(of: input, count: input.count, into: &power)
    var best = 0, bestPower = -1.0
    for k in power.indices {
        let bpm = Double(k) * sampleRateHz / Double(fft.size) * 60
        if bpm >= 40, bpm <= 220, power[k] > bestPower { best = k; bestPower = power[k] }
    }
    return Double(best) * sampleRateHz / Double(fft.size) * 60
}
