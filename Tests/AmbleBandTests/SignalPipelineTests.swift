@testable import AmbleBand
import AmbleDrivers
import AmbleSignal
import AmbleSimulation
import Testing

/// The band's signal pipeline when its clock jumps (issue 31): the streams start again after
/// the jump, in either direction, and steps are counted on.
@Suite("Signal pipeline across a jump of the band's clock")
struct SignalPipelineTests {
    @Test("a walk goes on counting after the band's clock jumps back or far ahead", arguments: [-1e6, -10, 1e10])
    func walkAcrossClockJump(jumpSeconds: Double) {
        let walk = SyntheticActivities.render([.walking(cadenceStepsPerMinute: 100, seconds: 120)], sampling: .init(rateHz: 25), seed: 3)
        var pipeline = SignalPipeline(wearer: (1.7, 70))
        var steps = 0
        var stepsAfterJump = 0
        // One read a second of the 25 samples the FIFO holds, stamped with the band time of the
        // read; halfway through the walk the clock jumps.
        for second in 1...120 {
            let jumped = second > 60
            let now = 1000 + Double(second) + (jumped ? jumpSeconds : 0)
            let samples = walk.rows[(second - 1) * 25 ..< second * 25].map { AccelerationVector(xG: $0.xG, yG: $0.yG, zG: $0.zG) }
            pipeline.ingest(AccelerometerBatch(samples: samples, overrunDetected: false), now: now, rateHz: 25)
            let report = pipeline.closeSecond(at: now, unixSeconds: 1_800_000_000 + Double(second),
                                              accelerometer: .init(gap: second == 61, isHealthy: true), heartRateSensor: nil,
                                              calibratedStepLengthMeters: nil)
            steps += report.steps
            if jumped { stepsAfterJump += report.steps }
            // The walk before the jump ends with it (its steps filed where they were taken);
            // the steps released after are filed in the seconds after it.
            #expect(second <= 61 || report.stepsTaken.count <= second - 60, "second \(second): filed \(report.stepsTaken)")
        }
        let last = pipeline.finishSteps().reduce(0, +)
        steps += last
        stepsAfterJump += last
        // The second minute is a walk of its own (about 100 steps); a restart costs its first
        // seconds at most.
        #expect(stepsAfterJump >= 80, "steps after a jump of \(jumpSeconds) s: \(stepsAfterJump)")
        #expect(abs(steps - walk.trueSteps) <= walk.trueSteps / 10, "counted \(steps) of \(walk.trueSteps)")
    }

    @Test("a clock set back: steps taken after it are filed in the seconds that close after it")
    func placementAfterClockSetBack() {
        var placement = StepPlacement()
        for end in 1001...1030 { _ = placement.closeSecond(at: Double(end)) }
        // The clock goes back 1000 s; steps taken at 28.5-30 s of the new time.
        placement.forgetClosedSeconds()
        placement.add(StepRelease(steps: 3, fromSeconds: 28.5, throughSeconds: 30))
        #expect(placement.closeSecond(at: 31) == [3], "not in the oldest second of the old time")
        placement.add(StepRelease(steps: 2, fromSeconds: 30.2, throughSeconds: 31.8))
        #expect(placement.closeSecond(at: 32) == [1, 1])
    }
}
