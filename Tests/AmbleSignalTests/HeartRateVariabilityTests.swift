import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import Testing

/// Beat-to-beat intervals and RMSSD at rest, against the synthetic beats.
@Suite("Heart-rate variability at rest")
struct HeartRateVariabilityTests {
    @Test("RMSSD at rest within 15 % of the true value", arguments: [
        (bpm: 62.0, jitterMs: 25.0, rateHz: 50.0),
        (bpm: 75.0, jitterMs: 12.0, rateHz: 100.0),
        (bpm: 58.0, jitterMs: 40.0, rateHz: 25.0),
    ])
    func rmssdAtRest(bpm: Double, jitterMs: Double, rateHz: Double) throws {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, bpm)]
        s.intervalJitterMilliseconds = jitterMs
        s.seed = UInt64(jitterMs)
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: rateHz, durationSeconds: 180))
        let variability = try #require(run.estimator.restingVariability)
        let expected = try #require(truth.rmssdMilliseconds(from: 0, to: 180))
        #expect(abs(variability.rmssdMilliseconds - expected) <= 0.15 * expected,
                "RMSSD \(variability.rmssdMilliseconds) ms, true \(expected) ms")
        #expect(abs(variability.meanIntervalMilliseconds - 60_000 / bpm) <= 15)
        #expect(variability.differenceCount >= 100, "\(variability.differenceCount) differences")
        let recent = run.estimator.recentBeatIntervalsMilliseconds
        #expect(recent.count == 64)
        #expect(recent.allSatisfy { abs($0 - 60_000 / bpm) < 300 })
    }

    @Test("No RMSSD while walking")
    func noneWhileWalking() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 95)]
        s.cadence = [(0, 110)]
        s.artefactCountsPerG = [2_000, 1_500]
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 50, durationSeconds: 120))
        #expect(run.estimator.restingVariability == nil)
    }

    @Test("Rest before and after a walk: only the resting beats count")
    func restAroundWalk() throws {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 66), (60, 66), (90, 100), (150, 100), (180, 70)]
        s.cadence = [(0, 0), (60, 110), (150, 0)]
        s.artefactCountsPerG = [3_000, 2_000]
        s.intervalJitterMilliseconds = 20
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 50, durationSeconds: 240))
        let variability = try #require(run.estimator.restingVariability)
        // The resting parts are 0–60 s and 150–240 s: at most their intervals count (the 90 s
        // walk between them holds about 130 more).
        let restingBeats = truth.beatTimes.filter { $0 <= 60 || $0 >= 150 }.count
        #expect(variability.intervalCount < restingBeats, "\(variability.intervalCount) intervals, \(restingBeats) resting beats")
        let expected = try #require(truth.rmssdMilliseconds(from: 0, to: 60))
        #expect(abs(variability.rmssdMilliseconds - expected) <= 0.25 * expected,
                "RMSSD \(variability.rmssdMilliseconds) ms, true at rest about \(expected) ms")
    }
}
