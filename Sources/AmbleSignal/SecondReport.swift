/// One second of what the band measured: the signal pipeline's output (`SignalPipeline` in
/// AmbleBand runs the step counter and the heart-rate estimator over the sensors' batches and
/// closes one of these at each second boundary), handed to the practice
/// (`PracticeMachine`, AmbleStateMachines) and, through it, into the session's rows.
public struct SecondReport: Equatable, Sendable {
    /// Wall-clock end of this second, seconds since 1970-01-01T00:00:00Z.
    public var unixSeconds: Double
    /// Steps the counter released during this second (it releases them about 10 s after they
    /// were taken): what the band shows as they come, and whether the wearer is still walking.
    public var steps: Int
    /// The same steps by the second they were taken in: `[0]` in this second, `[n]` in the
    /// second n seconds before it. They add up to `steps`; the session's rows keep them there.
    public var stepsTaken: [Int]
    /// Current cadence, steps per minute (0 when not walking).
    public var cadenceStepsPerMinute: Double
    public var heartRateBPM: Double?
    public var heartRateConfidence: Double?
    public var accelerometerGap = false
    public var heartRateGap = false
    /// Active energy spent in this second, kcal (the band's gait model); nil when unknown.
    public var activeKilocalories: Double?
    /// Heart-rate variability at rest so far in the session, ms (RMSSD); nil until known.
    public var restingRMSSDMilliseconds: Double?
    /// How much the wrist moved in this second: the standard deviation of |a| over its samples,
    /// g (0 with fewer than two). Alerts are felt less on a moving arm, so they are made
    /// stronger. Not the RMS of |a| - 1 g: that reads a sensor's gain or offset error (a still
    /// wrist at 1.03 g) as motion.
    public var wristMotionG: Double = 0
    /// Steps the counter holds at the end of this second, taken but not yet released (it
    /// releases them about 10 s late), by the second they were taken in as `stepsTaken`: what a
    /// session ended now would gain, and where.
    public var pendingStepsTaken: [Int] = []

    /// `stepsTaken` nil: all of `steps` were taken in this second.
    public init(unixSeconds: Double, steps: Int, stepsTaken: [Int]? = nil, cadenceStepsPerMinute: Double, heartRateBPM: Double? = nil, heartRateConfidence: Double? = nil, accelerometerGap: Bool = false, heartRateGap: Bool = false,
                activeKilocalories: Double? = nil, restingRMSSDMilliseconds: Double? = nil, wristMotionG: Double = 0, pendingStepsTaken: [Int] = []) {
        self.unixSeconds = unixSeconds
        self.steps = steps
        self.stepsTaken = stepsTaken ?? [steps]
        self.cadenceStepsPerMinute = cadenceStepsPerMinute
        self.heartRateBPM = heartRateBPM
        self.heartRateConfidence = heartRateConfidence
        self.accelerometerGap = accelerometerGap
        self.heartRateGap = heartRateGap
        self.activeKilocalories = activeKilocalories
        self.restingRMSSDMilliseconds = restingRMSSDMilliseconds
        self.wristMotionG = wristMotionG
        self.pendingStepsTaken = pendingStepsTaken
    }
}
