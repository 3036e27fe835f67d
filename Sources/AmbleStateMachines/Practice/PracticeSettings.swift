/// How the practice runs. Defaults suit a first-time wearer; board and user settings change them.
public struct PracticeSettings: Equatable, Sendable {
    /// Seconds counted down (one buzz each) before a calibration or walk begins.
    public var countdownSeconds = 3
    /// Length of a timed calibration walk, seconds.
    public var calibrationSeconds = 60
    /// Seconds at the start of a calibration left out while the wearer gets into stride.
    public var calibrationSettleSeconds = 10
    /// Share of the measured calibration seconds that must show walking for a valid result.
    public var calibrationMinimumWalkingShare = 0.6
    /// When set, calibration is over a known distance: the wearer presses select at its end
    /// and the step length becomes distance / steps. Metres.
    public var calibrationDistanceMeters: Double?
    /// Reductions the wearer can pick, per cent.
    public var reductionChoicesPercent = [10, 15, 20, 25, 30, 40]
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

    public init() {}
}

/// One second of what the band measured, handed to the practice at each second boundary.
public struct SecondReport: Equatable, Sendable {
    /// Wall-clock end of this second, seconds since 1970-01-01T00:00:00Z.
    public var unixSeconds: Double
    /// Steps counted during this second.
    public var steps: Int
    /// Current cadence, steps per minute (0 when not walking).
    public var cadenceStepsPerMinute: Double
    public var heartRateBPM: Double?
    public var heartRateConfidence: Double?
    public var accelerometerGap = false
    public var heartRateGap = false

    public init(unixSeconds: Double, steps: Int, cadenceStepsPerMinute: Double, heartRateBPM: Double? = nil, heartRateConfidence: Double? = nil, accelerometerGap: Bool = false, heartRateGap: Bool = false) {
        self.unixSeconds = unixSeconds
        self.steps = steps
        self.cadenceStepsPerMinute = cadenceStepsPerMinute
        self.heartRateBPM = heartRateBPM
        self.heartRateConfidence = heartRateConfidence
        self.accelerometerGap = accelerometerGap
        self.heartRateGap = heartRateGap
    }
}
