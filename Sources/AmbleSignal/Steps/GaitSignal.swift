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

    /// The least mean absolute value a clipping limit follows, g: without it a still wrist's
    /// mean (sensor noise) or a restarted stream's (0) would clip the next movement to almost
    /// nothing while the mean catches up. `clipRatio` times it stays below `noiseFloorG`.
    static let clipFloorG = 0.01

    let rateHz: Double
    private let maximumGapSeconds: Double
    private let lowHz: Double
    private let highHz: Double
    private let clipRatio: Double
    private let clipSmoothing: Double

    /// |a| and the three axes (0 on |a| alone), resampled together: they share the sample times.
    private var resampler: UniformResampler<SIMD4<Double>>
    /// Their band-pass, lane by lane.
    private var filter: BandPassFilter4
    /// Their recent mean absolute values, g, which the clipping limits follow (lane 1, the x
    /// axis's, clips the heel-strike signal on |a| alone).
    private var meanAbsolute = SIMD4<Double>()
    /// Half the width of a heel strike, in ticks, and the unfiltered |a| it is measured on.
    let heelStrikeHalfWidth: Int
    private var recentMagnitude: RingBuffer<Double>
    private var started = false
    /// Whether the current stream has three axes (set by its first sample).
    private(set) var hasAxes = false
    /// Set when the last `append` restarted the stream (first sample, a long gap, or a change
    /// between magnitude-only and three-axis input).
    private(set) var didRestart = false

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
        filter = BandPassFilter4(lowCutoffHz: lowHz, highCutoffHz: highHz, sampleRateHz: rateHz)
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
            filter = BandPassFilter4(lowCutoffHz: lowHz, highCutoffHz: highHz, sampleRateHz: rateHz)
            filter.settle(onConstantInput: values)
            meanAbsolute = SIMD4()
            recentMagnitude.removeAll()
        }
    }

    /// The next fixed-rate tick the samples so far complete, or nil.
    mutating func nextTick() -> Tick? {
        let time = resampler.nextOutputTimeSeconds
        guard let values = resampler.nextOutput() else { return nil }
        let rawMagnitude = values[0]
        // On |a| alone the axes' lanes carry zeros, and what they hold is never read: a change
        // to three axes restarts the stream.
        var filtered = filter.process(values)
        var tick = Tick(timeSeconds: time, magnitude: 0, heelStrike: 0, clippedHeelStrike: 0, x: 0, y: 0, z: 0)
        recentMagnitude.append(rawMagnitude)
        if recentMagnitude.count == recentMagnitude.capacity {
            let h = heelStrikeHalfWidth
            tick.heelStrike = recentMagnitude[age: h] - 0.5 * (recentMagnitude[age: 0] + recentMagnitude[age: 2 * h])
        }
        // On |a| alone the x axis's clipping state is free for the heel-strike signal.
        if !hasAxes { filtered[1] = tick.heelStrike }
        let clipped = clipped(filtered)
        tick.magnitude = clipped[0]
        if hasAxes {
            (tick.x, tick.y, tick.z) = (clipped[1], clipped[2], clipped[3])
        } else {
            tick.clippedHeelStrike = clipped[1]
        }
        return tick
    }

    /// Each lane of `value` clipped at `clipRatio` times its recent mean absolute value, which
    /// then follows it (an exponential mean, `clipSmoothing` per tick). The four lanes at once,
    /// each as on its own (on |a| alone the last two carry the band-passed zeros, never read).
    private mutating func clipped(_ value: SIMD4<Double>) -> SIMD4<Double> {
        let floor = SIMD4<Double>(repeating: Self.clipFloorG)
        // `Swift.max(a, b)` and `Swift.min(a, b)` lane by lane: b where b >= a (max), b where b < a (min).
        let limit = clipRatio * meanAbsolute.replacing(with: floor, where: floor .>= meanAbsolute)
        let magnitude = value.replacing(with: -value, where: value .< 0)
        meanAbsolute += clipSmoothing * (magnitude - meanAbsolute)
        let low = -limit
        let raised = value.replacing(with: low, where: low .>= value)
        return raised.replacing(with: limit, where: limit .< raised)
    }
}
