/// The kind of sensors an estimator is configured for, from what is known before the first
/// sample: the PPG's channel count and sample rate, and what the accelerometer gives. The
/// display threshold is chosen per class (`HeartRateEstimator.Configuration.displayThresholds`)
/// because the confidence is not equally calibrated on every sensor (docs/heart-rate.md,
/// "Confidence").
public struct HeartRateSensorClass: Hashable, Sendable, CustomStringConvertible {
    public enum PPG: String, Hashable, Sendable, CaseIterable {
        /// One channel below `lowRateLimitHz` (a Bangle.js 2's VC31 at about 22 Hz): fewer
        /// samples per beat than the estimator's 25 Hz bins and no second channel to agree.
        case oneChannelLowRate = "1 channel below 25 Hz"
        /// Two or more channels, or one at 25 Hz or faster (a MAX30102 at 50-125 Hz).
        case standard = "2+ channels or 25+ Hz"
    }

    public enum Accelerometer: String, Hashable, Sendable, CaseIterable {
        case threeAxis = "3-axis accelerometer"
        /// |a| only (x carries it, y and z are 0): no direction to fit the artefact with.
        case magnitudeOnly = "magnitude-only accelerometer"
        case none = "no accelerometer"
    }

    /// A one-channel sensor slower than this counts as low-rate: the estimator's internal rate
    /// (25 Hz) less 2 % for a sensor clock that runs slow (a 25 Hz sensor stays standard).
    public static let lowRateLimitHz = HeartRateEstimator.internalRateHz * 0.98

    public var ppg: PPG
    public var accelerometer: Accelerometer

    public init(ppg: PPG, accelerometer: Accelerometer) {
        self.ppg = ppg
        self.accelerometer = accelerometer
    }

    /// The class of a PPG with `ppgChannels` channels at `ppgRateHz` beside `accelerometer`.
    public init(ppgChannels: Int, ppgRateHz: Double, accelerometer: Accelerometer) {
        ppg = ppgChannels <= 1 && ppgRateHz < Self.lowRateLimitHz ? .oneChannelLowRate : .standard
        self.accelerometer = accelerometer
    }

    /// The band's own kind: a MAX30102-class two-channel PPG beside a 3-axis accelerometer.
    public static let standardThreeAxis = HeartRateSensorClass(ppg: .standard, accelerometer: .threeAxis)

    public static let allCases: [HeartRateSensorClass] = PPG.allCases.flatMap { ppg in
        Accelerometer.allCases.map { HeartRateSensorClass(ppg: ppg, accelerometer: $0) }
    }

    public var description: String { "\(ppg.rawValue), \(accelerometer.rawValue)" }
}

extension HeartRateSensorClass {
    /// The rows read to class a recording (`init(ppgChannels:times:acceleration:)`): 10 s at
    /// 25 Hz, past a start-up's first irregular reads.
    public static let rowsToClassify = 256
    /// A longer interval between two rows is a gap, not the sensor's rate (40 samples at 40 Hz).
    public static let longestIntervalSeconds = 1.0

    /// The class of a recording from its first rows: the rate is the mean while sampling
    /// (intervals up to `longestIntervalSeconds`; a gap is left out). Not the median: a
    /// Bangle.js 2's VC31 delivers most samples 40 ms apart (24.8 Hz) with longer pauses
    /// between, 21.8-22.8 Hz on average over its first 256 rows. No accelerometer when no
    /// row has one, magnitude-only when every row's y and z are 0.
    public init(ppgChannels: Int, times: [Double], acceleration: [AccelerationSample?]) {
        let intervals = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 && $0 <= Self.longestIntervalSeconds }
        let span = intervals.reduce(0, +)
        let rate = span > 0 ? Double(intervals.count) / span : HeartRateEstimator.internalRateHz
        let present = acceleration.compactMap { $0 }
        let kind: Accelerometer = present.isEmpty ? .none
            : present.allSatisfy { $0.yG == 0 && $0.zG == 0 } ? .magnitudeOnly : .threeAxis
        self.init(ppgChannels: ppgChannels, ppgRateHz: rate, accelerometer: kind)
    }
}
