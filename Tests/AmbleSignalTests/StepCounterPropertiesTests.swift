@testable import AmbleSignal
import AmbleSimulation
import Testing

@Suite("Step counter properties")
struct StepCounterPropertiesTests {
    @Test("memory is fixed when the counter is made")
    func constantMemory() {
        var counter = StepCounter()
        let before = counter.bufferElementCount
        let recording = SyntheticActivities.render(
            [.walking(cadenceStepsPerMinute: 100, seconds: 600), .typing(seconds: 300), .walking(cadenceStepsPerMinute: 65, seconds: 600)],
            sampling: .init(rateHz: 50, jitterFraction: 0.3), seed: 9)
        for row in recording.rows {
            _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
        }
        #expect(counter.totalSteps > 1500)
        #expect(counter.bufferElementCount == before)
        // About 5,000 numbers (39 KB): the two 41 s histories, the rhythm channel's scratch
        // copies and the impulse channel's 17 s of impulse signal are most of it (docs/steps.md, "Memory and cost"). The bound catches
        // a buffer sized by mistake, not a few more values.
        #expect(before == 5006, "buffers changed size: update docs/steps.md, \"Memory and cost\"")
        #expect(before < 6000)
    }

    @Test("the signal history is addressed by absolute index and correlates a stretch with itself")
    func signalHistory() {
        var history = SignalHistory(capacity: 64)
        // A period of 10 samples, then more than the capacity: the oldest are dropped.
        for n in 0 ..< 100 { history.append(Double(n % 10 < 5 ? 1 : -1) + 0.01 * Double(n % 3)) }
        #expect(history.count == 100)
        #expect(history.value(at: 35) == nil)
        #expect(history.value(at: 100) == nil)
        #expect(history.value(at: 99) == -1 + 0.01 * Double(99 % 3))
        #expect(history.value(at: 36) == -1)          // 36 % 10 = 6: the low half, 36 % 3 = 0
        #expect(history.value(at: 40) == 1 + 0.01)
        // Repeats at its period, opposes itself at half of it; the stretch before index 36 is
        // clipped to what is held.
        #expect(history.correlation(start: 0, end: 100, lagSamples: 30) > 0.99)
        #expect(history.correlation(start: 0, end: 100, lagSamples: 5) < -0.9)
        #expect(history.correlation(start: 90, end: 100, lagSamples: 8) == 0)   // fewer than 4 pairs
    }

    @Test("recent values: median, minimum, and the mean near a centre")
    func recentValues() {
        var values = RecentValues(capacity: 4)
        #expect(values.median() == 0)
        for v in [5.0, 1, 4, 2, 3] { values.append(v) }   // 5 is pushed out
        #expect(values.count == 4)
        #expect(values.value(at: 0) == 3)
        #expect(values.median() == 2.5)
        #expect(values.minimum == 1)
        #expect(values.sum == 10)
        #expect(values.mean(within: 1, of: 3.5) == 3.5)   // 3 and 4
        values.removeAll()
        #expect(values.count == 0 && values.minimum == 0)
    }

    @Test("samples out of order or not finite are ignored")
    func badSamples() {
        var counter = StepCounter()
        #expect(counter.process(AccelerationSample(timeSeconds: 1, xG: 0, yG: 0, zG: 1)) == 0)
        #expect(counter.process(AccelerationSample(timeSeconds: 0.5, xG: 0, yG: 0, zG: 1)) == 0)
        #expect(counter.process(AccelerationSample(timeSeconds: 1.1, xG: .nan, yG: 0, zG: 1)) == 0)
        #expect(counter.process(AccelerationSample(timeSeconds: .infinity, xG: 0, yG: 0, zG: 1)) == 0)
        #expect(counter.totalSteps == 0)
    }

    @Test("the resampler measures the input's sample interval; gaps are not intervals")
    func inputInterval() {
        var resampler = UniformResampler(periodSeconds: 0.04, maximumGapSeconds: 2.5)
        #expect(resampler.inputIntervalSeconds == nil)
        for k in 0 ..< 200 {
            resampler.append(timeSeconds: Double(k) * 0.08, value: 1)
            while resampler.nextOutput() != nil {}
        }
        #expect(abs(resampler.inputIntervalSeconds! - 0.08) < 1e-9)
        resampler.append(timeSeconds: 199 * 0.08 + 1.5, value: 1)
        #expect(abs(resampler.inputIntervalSeconds! - 0.08) < 1e-9)
        for k in 1 ... 300 {
            resampler.append(timeSeconds: 199 * 0.08 + 1.5 + Double(k) * 0.02, value: 1)
            while resampler.nextOutput() != nil {}
        }
        #expect(abs(resampler.inputIntervalSeconds! - 0.02) < 0.001)
    }

    @Test("the resampler averages fast input and interpolates slow input")
    func resampler() {
        var fast = UniformResampler(periodSeconds: 0.04, maximumGapSeconds: 2.5)
        var outputs: [Double] = []
        // A 125 Hz ramp of 1 g/s: each 40 ms bin holds the ramp's mean over the bin.
        for k in 0 ... 250 {
            let t = Double(k) / 125
            fast.append(timeSeconds: t, value: t)
            while let v = fast.nextOutput() { outputs.append(v) }
        }
        fast.append(timeSeconds: 2.002, value: 2.002)  // completes the bin ending at 2 s
        while let v = fast.nextOutput() { outputs.append(v) }
        #expect(outputs.count == 50)
        for (i, v) in outputs.enumerated() { #expect(abs(v - (Double(i) + 0.5) * 0.04) < 1e-9) }

        var slow = UniformResampler(periodSeconds: 0.04, maximumGapSeconds: 2.5)
        outputs = []
        for k in 0 ... 25 {  // 12.5 Hz constant 1 g with one 1 s gap, to 3 s
            let t = k < 10 ? Double(k) * 0.08 : Double(k) * 0.08 + 1
            slow.append(timeSeconds: t, value: 1)
            while let v = slow.nextOutput() { outputs.append(v) }
        }
        slow.append(timeSeconds: 3.002, value: 1)
        while let v = slow.nextOutput() { outputs.append(v) }
        #expect(outputs.count == 75)
        #expect(outputs.allSatisfy { abs($0 - 1) < 1e-12 })

        // A gap longer than the limit restarts the stream instead of bridging it.
        slow.append(timeSeconds: 10, value: 1)
        #expect(slow.didRestart)
    }
}
