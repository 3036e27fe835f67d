@testable import AmbleSignal
import AmbleSimulation
import Testing

/// The step counter's front end when time jumps (issue 31): a jump back further than a gap
/// restarts the stream as a long gap does, instead of every later sample being ignored until
/// time catches up.
@Suite("Step counter across jumps in time")
struct StepCounterJumpTests {
    @Test("time jumping back or ahead further than a gap ends the walk; counting goes on after", arguments: [-1e6, -30, 1e12])
    func jump(jumpSeconds: Double) {
        let first = SyntheticActivities.render([.walking(cadenceStepsPerMinute: 110, seconds: 40)], sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 5)
        let second = SyntheticActivities.render([.walking(cadenceStepsPerMinute: 80, seconds: 40), .still(seconds: 12)],
                                                sampling: .init(rateHz: 25, jitterFraction: 0.1), seed: 6)
        var counter = StepCounter()
        for row in first.rows { _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG)) }
        let offset = first.durationSeconds + jumpSeconds
        for row in second.rows {
            _ = counter.process(AccelerationSample(timeSeconds: offset + row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
        }
        _ = counter.finish()
        #expect(abs(counter.totalSteps - first.trueSteps - second.trueSteps) <= 6,
                "after a jump of \(jumpSeconds) s: counted \(counter.totalSteps) of \(first.trueSteps) + \(second.trueSteps)")
    }
}
