/// How the practice runs: the fixed rules (grace, realert, hysteresis, settling) and what the
/// board file says (a calibration over a known distance). The wearer's own settings (reduction,
/// calibration length, alert style, metronome, reminders) are `BandSettingValues`.
public struct PracticeSettings: Equatable, Sendable {
    /// Seconds counted down (one buzz each) before a calibration or walk begins.
    public var countdownSeconds = 3
    /// Seconds at the start of a calibration left out while the wearer gets into stride.
    public var calibrationSettleSeconds = 10
    /// Share of the measured calibration seconds that must show walking for a valid result.
    public var calibrationMinimumWalkingShare = 0.6
    /// When set, calibration is over a known distance: the wearer presses select at its end
    /// and the step length becomes distance / steps. Metres.
    public var calibrationDistanceMeters: Double?
    /// Seconds in a row above the limit before the first alert (a brief surge is forgiven).
    public var sustainSecondsBeforeAlert = 3
    /// Seconds between repeated alerts while the wearer stays too fast.
    public var realertSeconds = 10
    /// Once over the limit, the cadence must fall this far below it to count as slowed, steps/min.
    public var hysteresisStepsPerMinute = 2.0
    /// Step length used before a distance calibration, metres (from the wearer's height).
    public var defaultStepLengthMeters = 0.70
    /// A walk with no step for this long ends by itself (the wearer forgot to end it), seconds.
    public var walkEndsAfterStillSeconds = 600
    /// A distance calibration not ended by a press ends after this long, seconds.
    public var longestCalibrationSeconds = 600
    /// A paused walk not resumed for this long ends by itself, seconds.
    public var longestPauseSeconds = 1800
    /// A question on screen (end the walk? a reminder) with no answer for this long goes away:
    /// the walk goes on, the reminder is missed. Seconds.
    public var questionSeconds = 30
    /// The end-of-walk summary stays this long unless a press dismisses it, seconds.
    public var summarySeconds = 60
    public init() {}
}

/// One second of what the band measured, handed to the practice at each second boundary.
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
    /// How much the wrist moved in this second: RMS of |a| - 1 g, g. Alerts are felt less on a
    /// moving arm, so they are made stronger.
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
