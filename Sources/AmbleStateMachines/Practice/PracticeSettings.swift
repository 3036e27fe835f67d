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
