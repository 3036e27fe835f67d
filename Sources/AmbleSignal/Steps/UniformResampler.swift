/// Turns samples at any rate and with irregular intervals into a fixed-rate stream.
///
/// The input is taken as piecewise linear between samples; each output value is the mean of
/// that line over one output period (a box filter). At input rates above the output rate this
/// is the anti-alias filter; below it, it interpolates. Constant memory: one pending segment.
///
/// `Value` is one number, or several resampled together on the same sample times (`SIMD4`:
/// |a| and the three axes share the work on the time line).
///
/// Use: `append(timeSeconds:value:)`, then call `nextOutput()` until it returns nil.
struct UniformResampler<Value: ResampledValue>: Sendable {
    /// Output period in seconds (0.04 s = 25 Hz).
    let periodSeconds: Double
    /// Longest input gap bridged by interpolation, in seconds; a longer gap restarts the stream,
    /// and so does time going back further than this (a clock set back: its later samples
    /// would otherwise all be ignored until time caught up).
    let maximumGapSeconds: Double

    private var hasSample = false
    private var segmentStartTime = 0.0
    private var segmentStartValue = Value.zero
    private var segmentEndTime = 0.0
    private var segmentEndValue = Value.zero
    /// Start of the part of the segment not yet integrated, in seconds.
    private var cursorTime = 0.0
    /// The stream's origin and the index of the bin being filled: bin k covers
    /// [origin + k T, origin + (k + 1) T), computed from k so that times do not drift.
    private var originTime = 0.0
    private var binIndex = 0
    private var binIntegral = Value.zero
    /// Set when the last `append` restarted the stream (first sample or a long gap).
    private(set) var didRestart = false

    init(periodSeconds: Double, maximumGapSeconds: Double, of _: Value.Type) {
        self.periodSeconds = periodSeconds
        self.maximumGapSeconds = maximumGapSeconds
    }

    /// End time of the output value that `nextOutput()` returns next, in seconds.
    var nextOutputTimeSeconds: Double { binEnd }

    private var binEnd: Double { originTime + Double(binIndex + 1) * periodSeconds }

    /// Takes one input sample. Samples at or before the previous one (by up to
    /// `maximumGapSeconds`), or not finite, are ignored.
    mutating func append(timeSeconds: Double, value: Value) {
        didRestart = false
        guard timeSeconds.isFinite, value.isFinite else { return }
        if !hasSample || abs(timeSeconds - segmentEndTime) > maximumGapSeconds {
            hasSample = true
            didRestart = true
            segmentStartTime = timeSeconds
            segmentStartValue = value
            segmentEndTime = timeSeconds
            segmentEndValue = value
            cursorTime = timeSeconds
            originTime = timeSeconds
            binIndex = 0
            binIntegral = .zero
            return
        }
        guard timeSeconds > segmentEndTime else { return }
        segmentStartTime = segmentEndTime
        segmentStartValue = segmentEndValue
        segmentEndTime = timeSeconds
        segmentEndValue = value
        cursorTime = segmentStartTime
    }

    /// The next fixed-rate value completed by the samples so far, or nil.
    mutating func nextOutput() -> Value? {
        guard hasSample else { return nil }
        let end = binEnd
        if end <= segmentEndTime {
            let part = integral(from: cursorTime, to: end)
            binIntegral += part
            let mean = binIntegral / periodSeconds
            binIndex += 1
            cursorTime = end
            binIntegral = .zero
            return mean
        }
        let part = integral(from: cursorTime, to: segmentEndTime)
        binIntegral += part
        cursorTime = segmentEndTime
        return nil
    }

    @inline(__always)
    private func valueAt(_ time: Double) -> Value {
        let span = segmentEndTime - segmentStartTime
        guard span > 0 else { return segmentEndValue }
        let fraction = (time - segmentStartTime) / span
        return segmentStartValue + (segmentEndValue - segmentStartValue) * fraction
    }

    @inline(__always)
    private func integral(from start: Double, to end: Double) -> Value {
        guard end > start else { return .zero }
        return (valueAt(start) + valueAt(end)) * (end - start) * 0.5
    }
}

/// What `UniformResampler` resamples: a number, or a few numbers on the same time line, each
/// interpolated and averaged as on its own.
protocol ResampledValue: Sendable {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func += (lhs: inout Self, rhs: Self)
    static func * (value: Self, factor: Double) -> Self
    static func / (value: Self, divisor: Double) -> Self
    var isFinite: Bool { get }
}

extension Double: ResampledValue {}

extension SIMD4: ResampledValue where Scalar == Double {
    var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite && w.isFinite }
}
