import AmbleRecordings
import AmbleSignal
import AmbleSimulation

/// Runs a fresh `StepCounter` over synthetic rows, finished at the end as `amble analyze`
/// finishes it; magnitude-only rows hold |a| in x.
func countSteps(_ recording: SyntheticActivities.Recording, magnitudeOnly: Bool,
                counter: StepCounter = StepCounter()) -> (steps: Int, counter: StepCounter) {
    var counter = counter
    var returned = 0
    for row in recording.rows {
        returned += counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG, isMagnitudeOnly: magnitudeOnly))
    }
    returned += counter.finish()
    precondition(returned == counter.totalSteps, "steps returned by process and finish must add up to totalSteps")
    return (returned, counter)
}

/// How the test recordings are sampled: regular or irregular, 3-axis or magnitude-only.
func plan(rateHz: Double, irregular: Bool, magnitudeOnly: Bool) -> SyntheticActivities.SamplingPlan {
    irregular
        ? .init(rateHz: rateHz, jitterFraction: 0.5, dropProbability: 0.05, gapsPerMinute: 2, gapSeconds: 0.6, magnitudeOnly: magnitudeOnly)
        : .init(rateHz: rateHz, jitterFraction: 0.05, magnitudeOnly: magnitudeOnly)
}
