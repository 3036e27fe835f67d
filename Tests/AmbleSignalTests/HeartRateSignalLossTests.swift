import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import Testing

/// No value when the signal is gone: off the wrist, a saturated sensor, clipping; values
/// again once it is back.
@Suite("Heart rate withheld when the signal is gone")
struct HeartRateSignalLossTests {
    @Test("Off the wrist: no value within 6 s, a value again within 12 s of putting it back on")
    func offWrist() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 72)]
        s.offWrist = [60...100]
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 50, durationSeconds: 140))
        let during = run.outputs.filter { $0.timeSeconds >= 66 && $0.timeSeconds <= 100 }
        #expect(!during.isEmpty)
        #expect(during.allSatisfy { $0.estimate == nil }, "values while off: \(during.compactMap { $0.estimate?.bpm })")
        let before = HeartRateScore(run.outputs, truth: truth, range: 8...60)
        #expect(before.meanAbsoluteErrorBPM <= 2 && before.coverage >= 0.95, "\(before)")
        let back = HeartRateScore(run.outputs, truth: truth, range: 112...140)
        #expect(back.meanAbsoluteErrorBPM <= 2 && back.coverage >= 0.9, "\(back)")
    }

    @Test("A saturated sensor (every channel stuck at full scale): no value, status says why")
    func saturated() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 80)]
        s.railCounts = 262_143
        s.saturated = [40...80]
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 100, durationSeconds: 110))
        let during = run.outputs.filter { $0.timeSeconds >= 42 && $0.timeSeconds <= 80 }
        #expect(during.allSatisfy { $0.estimate == nil })
        #expect(during.filter { $0.timeSeconds >= 48 }.allSatisfy { $0.status == .noUsableSignal })
        let back = HeartRateScore(run.outputs, truth: truth, range: 92...110)
        #expect(back.meanAbsoluteErrorBPM <= 2 && back.coverage >= 0.9, "\(back)")
    }

    @Test("Heavy clipping (the rail cuts every pulse): no value")
    func clipped() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 75)]
        s.dcLevels = [100_000, 100_050]
        s.pulseAmplitudes = [1_000, 900]   // upright pulses, so the rail cuts their tops
        s.noiseFraction = 0
        s.railCounts = 100_450             // the top half of each pulse cut off
        let truth = SyntheticPPG(s)
        let rows = truth.rows(sampleRateHz: 50, durationSeconds: 60)
        for c in 0..<2 {
            let atRail = rows.filter { $0.ppg[c] == 100_450 }.count
            #expect(Double(atRail) > 0.2 * Double(rows.count), "channel \(c + 1) is not heavily clipped")
        }
        let run = streamHeartRate(rows)
        #expect(!run.outputs.isEmpty)
        #expect(run.outputs.allSatisfy { $0.estimate == nil && $0.status == .noUsableSignal })
    }

    @Test("One channel saturated, the other fine: values from the good one")
    func oneChannelSaturated() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 68)]
        s.dcLevels = [262_143 + 50_000, 80_000]   // channel 1 sits above full scale
        s.railCounts = 262_143
        let truth = SyntheticPPG(s)
        let run = streamHeartRate(truth.rows(sampleRateHz: 50, durationSeconds: 60))
        let score = HeartRateScore(run.outputs, truth: truth)
        #expect(score.meanAbsoluteErrorBPM <= 2 && score.coverage >= 0.95, "\(score)")
    }

    @Test("Gaps in the samples: a short one is bridged, a long one restarts the window")
    func gaps() {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 70)]
        let truth = SyntheticPPG(s)
        let rows = truth.rows(sampleRateHz: 50, durationSeconds: 100).filter {
            !(30.0..<30.3).contains($0.timeSeconds) && !(60.0..<63.0).contains($0.timeSeconds)
        }
        let run = streamHeartRate(rows)
        let short = HeartRateScore(run.outputs, truth: truth, range: 30...58)
        #expect(short.coverage == 1 && short.meanAbsoluteErrorBPM <= 2, "\(short)")
        let afterLong = run.outputs.filter { $0.timeSeconds > 63 && $0.timeSeconds < 70.9 }
        #expect(!afterLong.isEmpty && afterLong.allSatisfy { $0.status == .warmingUp })
        let later = HeartRateScore(run.outputs, truth: truth, range: 72...100)
        #expect(later.coverage >= 0.9 && later.meanAbsoluteErrorBPM <= 2, "\(later)")
    }

    @Test("No samples yet, or less than a window: no value, warming up")
    func warmingUp() {
        var estimator = HeartRateEstimator()
        #expect(estimator.estimate() == nil)
        #expect(estimator.status == .warmingUp)
        let truth = SyntheticPPG(SyntheticPPG.Scenario())
        for row in truth.rows(sampleRateHz: 50, durationSeconds: 7) {
            estimator.process(PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg))
        }
        #expect(estimator.estimate() == nil)
        #expect(estimator.status == .warmingUp)
    }
}
