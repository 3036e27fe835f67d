import RealModule

/// A heart-rate estimate and how much to trust it.
public struct HeartRateEstimate: Equatable, Sendable {
    /// Beats per minute.
    public var bpm: Double
    /// 0 (a guess) ... 1 (clean signal, consistent with the recent track).
    public var confidence: Double

    public init(bpm: Double, confidence: Double) {
        self.bpm = bpm
        self.confidence = confidence
    }
}

/// A streaming heart-rate estimator from PPG.
///
/// First version: the first channel, detrended, over the last `windowSeconds`; the strongest
/// spectral line between 40 and 200 bpm. Later work replaces the inside; the interface stays.
public struct HeartRateEstimator: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Length of the analysis window, in seconds.
        public var windowSeconds: Double = 8
        public var minimumBPM: Double = 40
        public var maximumBPM: Double = 200
        public init() {}
    }

    public let configuration: Configuration
    private var times: [Double] = []
    private var values: [Double] = []

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Feeds one sample (samples must come in time order).
    public mutating func process(_ sample: PPGSample) {
        guard let first = sample.channels.first else { return }
        times.append(sample.timeSeconds)
        values.append(first)
        let oldest = sample.timeSeconds - configuration.windowSeconds
        if let cut = times.firstIndex(where: { $0 >= oldest }), cut > 0 {
            times.removeFirst(cut)
            values.removeFirst(cut)
        }
    }

    /// The estimate from the samples fed so far, or nil when there is not enough signal.
    public mutating func estimate() -> HeartRateEstimate? {
        guard let first = times.first, let last = times.last,
              last - first >= configuration.windowSeconds * 0.9, values.count >= 32 else { return nil }
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        var best = (bpm: 0.0, power: 0.0)
        var total = 0.0
        var bpm = configuration.minimumBPM
        while bpm <= configuration.maximumBPM {
            let w = 2 * Double.pi * bpm / 60
            var re = 0.0, im = 0.0
            for i in values.indices {
                let v = values[i] - mean
                re += v * Double.cos(w * times[i])
                im += v * Double.sin(w * times[i])
            }
            let power = re * re + im * im
            total += power
            if power > best.power { best = (bpm, power) }
            bpm += 1
        }
        guard best.power > 0 else { return nil }
        let share = best.power / total
        return HeartRateEstimate(bpm: best.bpm, confidence: min(1, share * 10))
    }
}
