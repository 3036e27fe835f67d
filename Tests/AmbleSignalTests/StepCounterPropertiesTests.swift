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
        // About 5,000 numbers (40 KB): the rhythm channel's 11.7 s of two bands and scratch
        // copies are most of it (docs/steps.md, "Memory and cost"). The bound catches a
        // buffer sized by mistake, not a few more values.
        #expect(before < 6000)
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
