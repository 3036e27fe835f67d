/// The cadences the product serves, steps per minute, from the slowest mindful walk to a
/// sprint: one range for every stage that asks whether the wrist walks.
///
/// Physiology, not a fit to recordings. A mindful (walking-meditation) pace is 35-70
/// steps/min, its slowest one step every 2 s; the lower bound leaves room below that (a 4 s
/// stride). Self-selected walking is 100-115 steps/min, recreational running 150-170, a sprint
/// up to 200; faster, the wrist's rhythm is no longer steps.
///
/// The step counter searches this range for a rhythm (`StepCounter.Parameters`), and the
/// heart-rate estimator searches |a| over it for the step line whose stride, step and
/// harmonics it takes out of the PPG (`HeartRateEstimator.Parameters`, `GaitComb`): both start
/// from these values, so a walk at 40 steps/min is walking for both.
public enum WalkingCadence {
    /// Slowest walking, steps per minute: below a mindful walk's slowest.
    public static let slowestStepsPerMinute = 30.0
    /// Fastest gait, steps per minute: sprinting.
    public static let fastestStepsPerMinute = 200.0
}
