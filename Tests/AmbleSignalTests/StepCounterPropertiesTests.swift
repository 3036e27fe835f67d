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
            [.walking(cadenceStepsPerMinute: 100, seconds: 600), .typing(seconds: 300), .walking(cadenceStepsPerMinute: 75, seconds: 600)],
            sampling: .init(rateHz: 50, jitterFraction: 0.3), seed: 9)
        for row in recording.rows {
            _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
        }
        #expect(counter.totalSteps > 1500)
        #expect(counter.bufferElementCount == before)
        // The two autocorrelations' histories and stretch sums, and 20 s of |a| for placing a
        // walk's edges, 16 short bouts held (docs/steps.md, "Memory and cost"). The bound catches a buffer sized by
        // mistake, not a few more values.
        #expect(before == 9964, "buffers changed size: update docs/steps.md, \"Memory and cost\"")
    }

    @Test("samples out of order or not finite are ignored")
    func badSamples() {
        var counter = StepCounter()
        #expect(counter.process(AccelerationSample(timeSeconds: 1, xG: 0, yG: 0, zG: 1)) == 0)
        #expect(counter.process(AccelerationSample(timeSeconds: 0.5, xG: 0, yG: 0, zG: 1)) == 0)
        #expect(counter.process(AccelerationSample(timeSeconds: 1.1, xG: .nan, yG: 0, zG: 1)) == 0)
        #expect(counter.process(AccelerationSample(timeSeconds: .infinity, xG: 0, yG: 0, zG: 1)) == 0)
        #expect(counter.finish() == 0)
        #expect(counter.totalSteps == 0)
    }

    @Test("steps returned add up to the total; finish releases the walk's end once")
    func releases() {
        let recording = SyntheticActivities.render([.still(seconds: 3), .walking(cadenceStepsPerMinute: 100, seconds: 40)],
                                                   sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 4)
        var counter = StepCounter()
        var returned = 0
        for row in recording.rows {
            returned += counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
        }
        // The stream ends mid-walk: the last ten seconds or so are still pending.
        #expect(counter.isWalking)
        #expect(returned < recording.trueSteps - 10)
        let late = counter.finish()
        #expect(late > 10)
        #expect(returned + late == counter.totalSteps)
        #expect(abs(counter.totalSteps - recording.trueSteps) <= 4, "counted \(counter.totalSteps) of \(recording.trueSteps)")
        #expect(counter.finish() == 0)
        #expect(!counter.isWalking && counter.cadenceStepsPerMinute == 0)
    }

    @Test("the steps pending are what finish would release at that moment, and when they were taken")
    func pendingSteps() {
        let recording = SyntheticActivities.render([.still(seconds: 3), .walking(cadenceStepsPerMinute: 100, seconds: 40), .still(seconds: 15)],
                                                   sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 4)
        var counter = StepCounter()
        var nextCheck = 1.0
        var pendingSeen = 0
        for row in recording.rows {
            _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
            guard row.timeSeconds >= nextCheck else { continue }
            nextCheck += 1
            var ended = counter
            #expect(counter.pendingRelease == ended.finishTimed(), "at \(row.timeSeconds) s: the same steps, taken over the same stretch")
            pendingSeen = max(pendingSeen, counter.pendingSteps)
        }
        #expect(pendingSeen > 10, "a walk under way holds about its last 10 s")
        #expect(counter.pendingSteps == 0, "all released once the walk ended")
        #expect(abs(counter.totalSteps - recording.trueSteps) <= 4, "counted \(counter.totalSteps) of \(recording.trueSteps)")
    }

    @Test("a gap longer than 2.5 s ends the walk and releases it; counting goes on after")
    func gaps() {
        let first = SyntheticActivities.render([.walking(cadenceStepsPerMinute: 110, seconds: 40)], sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 5)
        let second = SyntheticActivities.render([.walking(cadenceStepsPerMinute: 80, seconds: 40), .still(seconds: 12)],
                                                sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 6)
        var counter = StepCounter()
        for row in first.rows { _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG)) }
        let afterFirst = counter.totalSteps
        let offset = first.durationSeconds + 10
        var released = 0
        for row in second.rows {
            released += counter.process(AccelerationSample(timeSeconds: offset + row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
        }
        // The first walk ended with the gap: all of it was counted by the first sample after.
        #expect(abs(afterFirst + released - counter.totalSteps) == 0)
        #expect(abs(counter.totalSteps - first.trueSteps - second.trueSteps) <= 6,
                "counted \(counter.totalSteps) of \(first.trueSteps + second.trueSteps)")
    }

    @Test("a magnitude-only stream that starts giving three axes is counted on")
    func magnitudeThenAxes() {
        let recording = SyntheticActivities.render([.walking(cadenceStepsPerMinute: 100, seconds: 60), .still(seconds: 12)],
                                                   sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 12)
        var counter = StepCounter()
        for (i, row) in recording.rows.enumerated() {
            let magnitude = (row.xG * row.xG + row.yG * row.yG + row.zG * row.zG).squareRoot()
            let sample = i < recording.rows.count / 3
                ? AccelerationSample(timeSeconds: row.timeSeconds, xG: magnitude, yG: 0, zG: 0, isMagnitudeOnly: true)
                : AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG)
            _ = counter.process(sample)
        }
        _ = counter.finish()
        // The switch restarts the stream: the walk is counted in two parts, missing the seconds
        // the second part needs to start (about 7 s at 100 steps/min).
        #expect(counter.totalSteps >= recording.trueSteps - 16 && counter.totalSteps <= recording.trueSteps + 3,
                "counted \(counter.totalSteps) of \(recording.trueSteps)")
    }

    @Test("a three-axis sample with y = z = 0 flagged magnitude-only does not restart the stream")
    func flaggedRowsInAThreeAxisStream() {
        let recording = SyntheticActivities.render([.walking(cadenceStepsPerMinute: 95, seconds: 60), .still(seconds: 12)],
                                                   sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 13)
        var plain = StepCounter(), flagged = StepCounter()
        for (i, row) in recording.rows.enumerated() {
            _ = plain.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
            // Every 50th row, as a reader that sees y = z = 0 would flag it.
            let sample = i % 50 == 25
                ? AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: 0, zG: 0, isMagnitudeOnly: true)
                : AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG)
            _ = flagged.process(sample)
        }
        _ = plain.finish()
        _ = flagged.finish()
        #expect(abs(flagged.totalSteps - plain.totalSteps) <= 2, "\(flagged.totalSteps) against \(plain.totalSteps)")
    }

    @Test("the resampler averages fast input and interpolates slow input")
    func resampler() {
        var fast = UniformResampler(periodSeconds: 0.04, maximumGapSeconds: 2.5, of: Double.self)
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

        var slow = UniformResampler(periodSeconds: 0.04, maximumGapSeconds: 2.5, of: Double.self)
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

    @Test("the parameters listed by name are all of them, and each reaches the counter")
    func namedParameters() {
        let names = StepCounter.Parameters.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.count == Mirror(reflecting: StepCounter.Parameters.standard).children.count)
        for named in StepCounter.Parameters.all {
            var moved = StepCounter.Parameters.standard
            moved[keyPath: named.keyPath] *= 1.1
            #expect(moved != .standard, "\(named.name)")
            #expect(StepCounter(parameters: moved).parameters[keyPath: named.keyPath] == StepCounter.Parameters.standard[keyPath: named.keyPath] * 1.1)
        }
    }
}
