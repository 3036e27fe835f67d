/// Turns samples at any rate and with irregular intervals into a fixed-rate stream.
///
/// The input is taken as piecewise linear between samples; each output value is the mean of
/// that line over one output period (a box filter). At input rates above the output rate this
/// is the anti-alias filter; below it, it interpolates. Constant memory: one pending segment.
///
/// Use: `append(timeSeconds:value:)`, then call `nextOutput()` until it returns nil.
struct UniformResampler: Sendable {
    /// Output period in seconds (0.04 s = 25 Hz).
    let periodSeconds: Double
    /// Longest input gap bridged by interpolation, in seconds; a longer gap restarts the stream.
    let maximumGapSeconds: Double

    private var hasSample = false
    private var segmentStartTime = 0.0
    private var segmentStartValue = 0.0
    private var segmentEndTime = 0.0
    private var segmentEndValue = 0.0
    /// Start of the part of the segment not yet integrated, in seconds.
    private var cursorTime = 0.0
    /// The stream's origin and the index of the bin being filled: bin k covers
    /// [origin + k T, origin + (k + 1) T), computed from k so that times do not drift.
    private var originTime = 0.0
    private var binIndex = 0
    private var binIntegral = 0.0
    /// Set when the last `append` restarted the stream (first sample or a long gap).
    private(set) var didRestart = false
    /// The input's sample interval, seconds: a running mean (time constant about 50 samples)
    /// of the intervals up to 0.5 s (longer ones are gaps); nil before the second sample.
    private(set) var inputIntervalSeconds: Double?

    init(periodSeconds: Double, maximumGapSeconds: Double) {
        self.periodSeconds = periodSeconds
        self.maximumGapSeconds = maximumGapSeconds
    }

    /// End time of the output value that `nextOutput()` returns next, in seconds.
    var nextOutputTimeSeconds: Double { binEnd }

    private var binEnd: Double { originTime + Double(binIndex + 1) * periodSeconds }

    /// Takes one input sample. Samples at or before the previous one are ignored.
    mutating func append(timeSeconds: Double, value: Double) {
        didRestart = false
        guard timeSeconds.isFinite, value.isFinite else { return }
        if !hasSample || timeSeconds - segmentEndTime > maximumGapSeconds {
            hasSample = true
            didRestart = true
            segmentStartTime = timeSeconds
            segmentStartValue = value
            segmentEndTime = timeSeconds
            segmentEndValue = value
            cursorTime = timeSeconds
            originTime = timeSeconds
            binIndex = 0
            binIntegral = 0
            return
        }
        guard timeSeconds > segmentEndTime else { return }
        let interval = timeSeconds - segmentEndTime
        if interval <= 0.5 {
            inputIntervalSeconds = inputIntervalSeconds.map { $0 + 0.02 * (interval - $0) } ?? interval
        }
        segmentStartTime = segmentEndTime
        segmentStartValue = segmentEndValue
        segmentEndTime = timeSeconds
        segmentEndValue = value
        cursorTime = segmentStartTime
    }

    /// The next fixed-rate value completed by the samples so far, or nil.
    mutating func nextOutput() -> Double? {
        guard hasSample else { return nil }
        let end = binEnd
        if end <= segmentEndTime {
            binIntegral += integral(from: cursorTime, to: end)
            let mean = binIntegral / periodSeconds
            binIndex += 1
            cursorTime = end
            binIntegral = 0
            return mean
        }
        binIntegral += integral(from: cursorTime, to: segmentEndTime)
        cursorTime = segmentEndTime
        return nil
    }

    private func valueAt(_ time: Double) -> Double {
        let span = segmentEndTime - segmentStartTime
        guard span > 0 else { return segmentEndValue }
        let fraction = (time - segmentStartTime) / span
        return segmentStartValue + (segmentEndValue - segmentStartValue) * fraction
    }

    private func integral(from start: Double, to end: Double) -> Double {
        guard end > start else { return 0 }
        return (end - start) * (valueAt(start) + valueAt(end)) * 0.5
    }
}
