/// The step counter's front end: accelerometer samples at any rate in, a fixed-rate stream of
/// band-passed, clipped |a| (and the three axes, when the sensor gives them) out.
///
/// 1. Each quantity is resampled to `rateHz` (`UniformResampler`: irregular timing, dropped
///    samples and gaps up to `maximumGapSeconds` bridged).
/// 2. Band-pass (second-order Butterworth high- and low-pass): gravity, posture and drift go
///    below, vibration above; the arm swing of the slowest walk stays.
/// 3. Clipping at `clipRatio` times the recent mean absolute value (an exponential mean with
///    the given time constant): a bump or a turn cannot outweigh the steps around it.
/// 4. The heel-strike signal of |a| (unfiltered): |a| minus the mean of its values
///    `heelStrikeHalfWidthSeconds` before and after. Zero on any straight stretch (gravity,
///    posture, a slow swing), large on a peak narrower than a heel strike's transient.
///
/// |a| does not depend on how the band is worn; nor does the three-axis correlation the
/// rhythm uses (a sum over the axes is unchanged by a rotation).
struct GaitSignal: Sendable {
    /// One output tick: time (seconds, the end of the tick's period) and the values, in g.
    struct Tick: Sendable {
        var timeSeconds: Double
        var magnitude: Double
        /// The heel-strike signal, g, centred `heelStrikeHalfWidthSeconds` before `timeSeconds`
        /// (0 until the stream holds a heel strike's width).
        var heelStrike: Double
        /// Magnitude-only streams: `heelStrike`, clipped like the others (for the rhythm of
        /// the landings, in place of the axes); 0 with three axes.
        var clippedHeelStrike: Double
        var x: Double
        var y: Double
        var z: Double
    }

    let rateHz: Double
    private let maximumGapSeconds: Double
    private let lowHz: Double
    private let highHz: Double
    private let clipRatio: Double
    private let clipSmoothing: Double

    /// |a| and the three axes (0 on |a| alone), resampled together: they share the sample times.
    private var resampler: UniformResampler<SIMD4<Double>>
    private var magnitude: Channel
    private var x: Channel
    private var y: Channel
    private var z: Channel
    /// Half the width of a heel strike, in ticks, and the unfiltered |a| it is measured on.
    let heelStrikeHalfWidth: Int
    private var recentMagnitude: RingBuffer<Double>
    private var started = false
    /// Whether the current stream has three axes (set by its first sample).
    private(set) var hasAxes = false
    /// Set when the last `append` restarted the stream (first sample, a long gap, or a change
    /// between magnitude-only and three-axis input).
    private(set) var didRestart = false

    /// One quantity's band-pass and clipping state.
    private struct Channel {
        var filter: BandPassFilter
        /// The recent mean absolute value the clipping limit follows, g.
        var meanAbsolute = 0.0
    }

    init(rateHz: Double, maximumGapSeconds: Double, lowHz: Double, highHz: Double,
         clipRatio: Double, clipTimeConstantSeconds: Double, heelStrikeHalfWidthSeconds: Double) {
        self.rateHz = rateHz
        self.maximumGapSeconds = maximumGapSeconds
        self.lowHz = lowHz
        self.highHz = highHz
        self.clipRatio = clipRatio
        clipSmoothing = 1 / (clipTimeConstantSeconds * rateHz)
        heelStrikeHalfWidth = Swift.max(1, Int((heelStrikeHalfWidthSeconds * rateHz).rounded()))
        recentMagnitude = RingBuffer(capacity: 2 * heelStrikeHalfWidth + 1, filling: 0)
        resampler = UniformResampler(periodSeconds: 1 / rateHz, maximumGapSeconds: maximumGapSeconds, of: SIMD4<Double>.self)
        let channel = Channel(filter: BandPassFilter(lowCutoffHz: lowHz, highCutoffHz: highHz, sampleRateHz: rateHz))
        magnitude = channel
        x = channel
        y = channel
        z = channel
    }

    /// Takes one sample. Then call `nextTick()` until it returns nil. A sample whose |a| or
    /// any axis is not finite is ignored.
    mutating func append(_ sample: AccelerationSample) {
        // A three-axis stream stays three-axis: a sample flagged magnitude-only in it (a reader
        // that saw y = z = 0) is the vector (x, 0, 0), whose |a| is |x|. A magnitude-only
        // stream that starts giving three axes starts again as a three-axis one.
        let axes = started && hasAxes ? true : !sample.isMagnitudeOnly
        if started, axes, !hasAxes {
            resampler = UniformResampler(periodSeconds: 1 / rateHz, maximumGapSeconds: maximumGapSeconds, of: SIMD4<Double>.self)
        }
        started = true
        let values = SIMD4(axes ? (sample.xG * sample.xG + sample.yG * sample.yG + sample.zG * sample.zG).squareRoot() : sample.magnitudeG,
                           axes ? sample.xG : 0, axes ? sample.yG : 0, axes ? sample.zG : 0)
        resampler.append(timeSeconds: sample.timeSeconds, value: values)
        didRestart = resampler.didRestart
        if didRestart {
            hasAxes = axes
            for (i, channel) in [\GaitSignal.magnitude, \.x, \.y, \.z].enumerated() {
                self[keyPath: channel] = Channel(filter: BandPassFilter(lowCutoffHz: lowHz, highCutoffHz: highHz, sampleRateHz: rateHz))
                self[keyPath: channel].filter.settle(onConstantInput: values[i])
            }
            recentMagnitude.removeAll()
        }
    }

    /// The next fixed-rate tick the samples so far complete, or nil.
    mutating func nextTick() -> Tick? {
        let time = resampler.nextOutputTimeSeconds
        guard let values = resampler.nextOutput() else { return nil }
        let rawMagnitude = values[0]
        var tick = Tick(timeSeconds: time, magnitude: Self.clipped(&magnitude, magnitude.filter.process(rawMagnitude), ratio: clipRatio, smoothing: clipSmoothing),
                        heelStrike: 0, clippedHeelStrike: 0, x: 0, y: 0, z: 0)
        recentMagnitude.append(rawMagnitude)
        if recentMagnitude.count == recentMagnitude.capacity {
            let h = heelStrikeHalfWidth
            tick.heelStrike = recentMagnitude[age: h] - 0.5 * (recentMagnitude[age: 0] + recentMagnitude[age: 2 * h])
        }
        if hasAxes {
            tick.x = Self.clipped(&x, x.filter.process(values[1]), ratio: clipRatio, smoothing: clipSmoothing)
            tick.y = Self.clipped(&y, y.filter.process(values[2]), ratio: clipRatio, smoothing: clipSmoothing)
            tick.z = Self.clipped(&z, z.filter.process(values[3]), ratio: clipRatio, smoothing: clipSmoothing)
        } else {
            // On |a| alone the x axis's clipping state is free for the heel-strike signal.
            tick.clippedHeelStrike = Self.clipped(&x, tick.heelStrike, ratio: clipRatio, smoothing: clipSmoothing)
        }
        return tick
    }

    /// `value` clipped at `ratio` times the channel's recent mean absolute value, which then
    /// follows `value` (an exponential mean, `smoothing` per tick).
    private static func clipped(_ channel: inout Channel, _ value: Double, ratio: Double, smoothing: Double) -> Double {
        let limit = ratio * Swift.max(channel.meanAbsolute, 0.01)
        channel.meanAbsolute += smoothing * (abs(value) - channel.meanAbsolute)
        return Swift.min(Swift.max(value, -limit), limit)
    }
}
