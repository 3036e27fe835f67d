import AmbleModel

/// A calibration walk under way: collects each second's cadence and steps, then says what
/// the wearer's normal cadence is (the median of the walking seconds after settling in).
public struct CalibrationRun: Equatable, Sendable {
    public enum Outcome: Equatable, Sendable {
        case calibrated(Calibration)
        /// Not enough steady walking to trust a result.
        case failed(reason: String)
    }

    let settings: PracticeSettings
    /// Length of a timed calibration, seconds (the wearer's setting).
    public let lengthSeconds: Int
    public private(set) var elapsedSeconds = 0
    public private(set) var steps = 0
    private var measuredCadences: [Double] = []
    private var measuredSeconds = 0

    public init(settings: PracticeSettings, lengthSeconds: Int = 60) {
        self.settings = settings
        self.lengthSeconds = lengthSeconds
    }

    /// Whether the walk is over by time (distance calibrations end on a button press, or
    /// after the longest time allowed).
    public var isComplete: Bool {
        if settings.calibrationDistanceMeters == nil { return elapsedSeconds >= lengthSeconds }
        return elapsedSeconds >= settings.longestCalibrationSeconds
    }

    public mutating func secondElapsed(steps newSteps: Int, cadenceStepsPerMinute cadence: Double) {
        elapsedSeconds += 1
        steps += newSteps
        guard elapsedSeconds > settings.calibrationSettleSeconds else { return }
        measuredSeconds += 1
        if cadence > 0 { measuredCadences.append(cadence) }
    }

    public func outcome(unixSeconds: Double) -> Outcome {
        guard measuredSeconds > 0,
              Double(measuredCadences.count) >= settings.calibrationMinimumWalkingShare * Double(measuredSeconds),
              measuredCadences.count >= 5 else {
            return .failed(reason: "no steady walk found; walk at your normal pace for the whole calibration")
        }
        let sorted = measuredCadences.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        var stepLength: Double?
        if let distance = settings.calibrationDistanceMeters {
            guard steps >= 20 else { return .failed(reason: "too few steps over the calibration distance") }
            stepLength = distance / Double(steps)
        }
        return .calibrated(Calibration(cadenceStepsPerMinute: median, stepLengthMeters: stepLength, unixSeconds: unixSeconds))
    }
}
