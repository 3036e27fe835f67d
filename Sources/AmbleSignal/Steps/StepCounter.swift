/// A streaming step counter: one accelerometer sample in at a time, constant memory.
///
/// First version: the magnitude, high-passed by a one-second moving mean, smoothed, and its
/// peaks above a threshold counted when at least 0.25 s apart. Later work replaces the
/// inside; the interface stays.
public struct StepCounter: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Smallest peak height above the moving mean, in g.
        public var peakThresholdG: Double = 0.06
        /// Shortest time between two steps, in seconds (240 steps/min).
        public var minimumStepIntervalSeconds: Double = 0.25
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var totalSteps = 0
    /// Steps per minute over the last few steps; 0 when no step came for 2.5 s.
    public private(set) var cadenceStepsPerMinute: Double = 0

    private var mean = 1.0
    private var smoothed = 0.0
    private var previous = 0.0
    private var rising = false
    private var lastTime: Double?
    private var lastStepTime = -Double.infinity
    private var intervalAverage = 0.0

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Feeds one sample; returns the number of steps it completed (0 or more).
    public mutating func process(_ sample: AccelerationSample) -> Int {
        let dt = lastTime.map { min(max(sample.timeSeconds - $0, 0.001), 1) } ?? 0.04
        lastTime = sample.timeSeconds
        let m = sample.magnitudeG
        mean += (m - mean) * min(1, dt / 1.0)
        smoothed += (m - mean - smoothed) * min(1, dt / 0.08)
        defer { previous = smoothed }
        if sample.timeSeconds - lastStepTime > 2.5 { cadenceStepsPerMinute = 0 }
        if smoothed > previous {
            rising = true
            return 0
        }
        guard rising else { return 0 }
        rising = false
        guard previous > configuration.peakThresholdG,
              sample.timeSeconds - lastStepTime >= configuration.minimumStepIntervalSeconds else { return 0 }
        let interval = sample.timeSeconds - lastStepTime
        if interval < 2.5 {
            intervalAverage = intervalAverage == 0 ? interval : intervalAverage * 0.7 + interval * 0.3
            cadenceStepsPerMinute = 60 / intervalAverage
        } else {
            intervalAverage = 0
        }
        lastStepTime = sample.timeSeconds
        totalSteps += 1
        return 1
    }
}
