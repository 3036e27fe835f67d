/// The rhythm channel: counts brisk walking by integrating its cadence, where the peak
/// channels find no bout (docs/steps.md, "The rhythm channel").
///
/// Every `hopSamples` it estimates the step period of the last `windowSamples` of the
/// band-passed magnitude from their autocorrelation:
/// - **Large movements are masked.** Values beyond `maskThreshold` times the window's robust
///   scale (1.4826 x median |x|, the standard deviation of a normal signal), and
///   `maskGuardSamples` around them, are set to 0 before correlating: a 3-4 g arm movement
///   every few seconds would otherwise decide the correlation, and the step rhythm between
///   such movements is what counts.
/// - **The normalised autocorrelation** r(k) = sum x[n] x[n-k] / sqrt(sum x[n]^2 sum x[n-k]^2)
///   over the window, the sums over the pairs where neither value is masked. Walking repeats at every multiple of the step period, so the period is
///   the shortest lag, among the peaks of r from the shortest step to `searchLimitSeconds`,
///   whose harmonic score (r(k) + r(2k)) / 2 is at least `harmonicFraction` of the best; that
///   score is the window's periodicity.
/// - **Step or stride.** At the wrist one stride (two steps) often repeats more clearly than
///   one step. The high band (above the stride rate) decides: when it repeats at half the
///   period rather than at a quarter and three quarters of it (contrast at least
///   `minimumStrideContrast`), the period was a stride and is halved.
/// - **Not a faster rhythm.** A period whose half is shorter than a step can be, while the
///   signal also repeats at a half or a third of it (`maximumFasterPeriodicity`), is
///   scrubbing or shaking, not walking.
///
/// The last `trackLength` estimates are walking when their periods agree within
/// `trackTolerance` of their median (a multiple of it, a stride the high band did not
/// resolve, is the same rhythm; one estimate near half the median makes the rhythm that half),
/// their mean periodicity is at least `minimumStrength`,
/// every window's scale is at least `minimumScaleG` (desk work, driving and rest move the
/// wrist less) and the period is at most `maximumPeriodSeconds`. Slower walking is left to
/// the peak channels: at the wrist a slow step often shows two bumps (heel strike and push
/// off), and the autocorrelation then finds half the step period.
///
/// Each accepted estimate stands for the `hopSamples` around its window's centre and counts
/// hop / period steps there (fractions carried over), once, and only where the caller allows
/// it (`mayCount`: no peak channel is walking) and after its `notBefore`. The first accepted
/// estimate of a walk also counts the half window before its slot, and the walk's end the half
/// window after its last slot (an estimate shows the signal that far either side of its
/// centre). Steps are so released 4-16 s late.
///
/// Constant memory: scratch copies of the window and its lags for both bands, the
/// autocorrelation and the last `trackLength` estimates.
struct RhythmTracker: Sendable {
    struct Settings: Sendable, Equatable {
        /// Rate of the signals, Hz.
        var sampleRateHz = 25.0
        /// Samples correlated, 8 s.
        var windowSamples = 200
        /// Longest lag, samples (3.68 s: twice the longest stride searched).
        var maximumLagSamples = 92
        /// Samples between estimates (0.96 s).
        var hopSamples = 24
        /// Shortest step period, seconds (160 steps/min).
        var minimumStepIntervalSeconds = 0.375
        /// Longest lag searched for the period, seconds: a stride of the slowest brisk walk.
        var searchLimitSeconds = 1.8
        /// Values beyond this many robust standard deviations are masked.
        var maskThreshold = 3.0
        /// Samples masked on either side of such a value (0.28 s).
        var maskGuardSamples = 7
        /// A shorter period is taken when its harmonic score is this fraction of the best.
        var harmonicFraction = 0.8
        /// High-band contrast at half the period that makes the period a stride.
        var minimumStrideContrast = 0.5
        /// Largest correlation at a half or a third of a period whose half is shorter than a step.
        var maximumFasterPeriodicity = 0.3
        /// Consecutive estimates that must agree.
        var trackLength = 8
        /// How far their periods may lie from their median, as a fraction of it.
        var trackTolerance = 0.1
        /// Smallest mean periodicity of those estimates.
        var minimumStrength = 0.4
        /// Smallest robust scale of the band-passed signal in each window, g.
        var minimumScaleG = 0.08
        /// Longest step period counted, seconds (60 steps/min: slower is mindful walking).
        var maximumPeriodSeconds = 1.0
    }

    let settings: Settings

    /// Samples of the current signal (since the last restart) in the histories, up to one span.
    private var heldSamples = 0
    private var x: [Double]
    private var h: [Double]
    /// 1 where a sample is kept, 0 where it is masked (and scratch for medians).
    private var valid: [Double]
    private var r: [Double]
    private var scratch: [Double]
    // The last estimates (ring of trackLength): period (0 when none), strength, scale, centre.
    private var periods: [Double]
    private var strengths: [Double]
    private var scales: [Double]
    private var centres: [Double]
    private var estimateCount = 0
    private var samplesSinceEstimate = 0
    private var lastCountedCentre = -Double.infinity
    private var pendingSteps = 0.0

    /// Whether the last estimate counted steps.
    private(set) var isCounting = false
    /// Step period of the last counted estimate, seconds.
    private(set) var stepPeriodSeconds = 0.0
    /// End of the time the counted steps stand for, seconds.
    private(set) var lastStepTimeSeconds = -Double.infinity

    init(settings: Settings) {
        self.settings = settings
        let span = settings.windowSamples + settings.maximumLagSamples
        x = [Double](repeating: 0, count: span)
        h = x
        valid = [Double](repeating: 1, count: span)
        r = [Double](repeating: .nan, count: settings.maximumLagSamples + 1)
        scratch = [Double](repeating: 0, count: settings.windowSamples)
        periods = [Double](repeating: 0, count: settings.trackLength)
        strengths = periods
        scales = periods
        centres = periods
    }

    /// Elements held (fixed at init).
    var bufferElementCount: Int {
        x.count + h.count + valid.count + r.count + scratch.count
            + periods.count + strengths.count + scales.count + centres.count
    }

    /// Half the window, seconds: an estimate shows the signal this far either side of its centre.
    private var halfWindowSeconds: Double { 0.5 * Double(settings.windowSamples) / settings.sampleRateHz }

    /// Cadence of the steps counted last, steps per minute; 0 when not counting.
    var cadenceStepsPerMinute: Double { isCounting && stepPeriodSeconds > 0 ? 60 / stepPeriodSeconds : 0 }

    /// Forgets the signal (after a gap in the input).
    mutating func restart() {
        heldSamples = 0
        estimateCount = 0
        samplesSinceEstimate = 0
        isCounting = false
    }

    /// Takes the sample just appended to `history` (the band-passed magnitude, 0.5-3 Hz) and
    /// `highBand` (1.2-4 Hz), ending at `timeSeconds`; returns the steps counted. Counts only
    /// when `mayCount`, and only time after `notBefore`. The histories are the counter's own
    /// (no copy of the signals is kept here) and must hold at least one window and its lags.
    mutating func process(history: SignalHistory, highBand: SignalHistory, timeSeconds: Double, notBefore: Double, mayCount: Bool) -> Int {
        let span = settings.windowSamples + settings.maximumLagSamples
        precondition(history.capacity >= span && highBand.capacity >= span, "the histories must hold a window and its lags")
        heldSamples = min(heldSamples + 1, span)
        samplesSinceEstimate += 1
        guard heldSamples == span, samplesSinceEstimate >= settings.hopSamples else { return 0 }
        samplesSinceEstimate = 0
        let centre = timeSeconds - halfWindowSeconds
        // While a peak channel walks, its steps are counted and no estimate is needed (the
        // track then starts afresh: its first slots lie before the peak channel's last step).
        let estimate = mayCount ? estimatePeriod(history: history, highBand: highBand) : (period: 0.0, strength: 0.0, scale: 0.0)
        let slot = estimateCount % settings.trackLength
        periods[slot] = estimate.period
        strengths[slot] = estimate.strength
        scales[slot] = estimate.scale
        centres[slot] = centre
        estimateCount += 1
        let wasCounting = isCounting
        isCounting = false
        guard mayCount, isTrackWalking() else {
            // The walk went on past the last window centre that showed it.
            if wasCounting, mayCount {
                let to = min(lastStepTimeSeconds + halfWindowSeconds, centre)
                if to > lastStepTimeSeconds {
                    pendingSteps += (to - lastStepTimeSeconds) / stepPeriodSeconds
                    lastStepTimeSeconds = to
                }
                let steps = Int(pendingSteps.rounded())
                pendingSteps = 0
                return steps
            }
            return 0
        }
        // Count the estimates not counted yet, oldest first.
        let hop = Double(settings.hopSamples) / settings.sampleRateHz
        let n = settings.trackLength
        for k in 0 ..< n {
            let i = (estimateCount - n + k) % n
            let c = centres[i]
            guard c > lastCountedCentre else { continue }
            lastCountedCentre = c
            guard c - 0.5 * hop >= notBefore else { continue }
            if !wasCounting, !isCounting {
                // The walk began before the first window centre that shows it.
                let from = max(notBefore, lastStepTimeSeconds, c - 0.5 * hop - halfWindowSeconds)
                if from < c - 0.5 * hop { pendingSteps += (c - 0.5 * hop - from) / periods[i] }
            }
            pendingSteps += hop / periods[i]
            lastStepTimeSeconds = c + 0.5 * hop
            stepPeriodSeconds = periods[i]
            isCounting = true
        }
        let steps = Int(pendingSteps)
        pendingSteps -= Double(steps)
        return steps
    }

    /// Whether the last `trackLength` estimates are brisk walking (see the type's comment).
    private mutating func isTrackWalking() -> Bool {
        let n = settings.trackLength
        guard estimateCount >= n else { return false }
        var strength = 0.0
        for k in 0 ..< n {
            guard periods[k] > 0, scales[k] >= settings.minimumScaleG else { return false }
            strength += strengths[k]
            scratch[k] = periods[k]
        }
        let tolerance = settings.trackTolerance
        var median = RobustStatistics.median(of: scratch, count: n, scratch: &valid)
        // An estimate near half the median found the steps of a rhythm the others took stride
        // by stride (the high band did not show them there): the rhythm is the steps.
        for k in 0 ..< n where abs(periods[k] - median / 2) <= tolerance * median / 2 {
            median /= 2
            break
        }
        guard median <= settings.maximumPeriodSeconds, strength / Double(n) >= settings.minimumStrength else { return false }
        for k in 0 ..< n {
            // A multiple of the period (a stride, or the lag of three steps) is the same rhythm.
            var period = periods[k]
            let multiple = (period / median).rounded()
            if multiple >= 2, multiple <= 4 { period /= multiple }
            guard abs(period - median) <= tolerance * median else { return false }
            scratch[k] = period
        }
        for k in 0 ..< n { periods[k] = scratch[k] }
        return true
    }

    // MARK: One window

    /// The step period (0 when none), the periodicity and the robust scale of the newest window.
    private mutating func estimatePeriod(history: SignalHistory, highBand: SignalHistory) -> (period: Double, strength: Double, scale: Double) {
        let w = settings.windowSamples, lags = settings.maximumLagSamples, span = w + lags
        history.copyNewest(span, into: &x)
        highBand.copyNewest(span, into: &h)
        for i in 0 ..< w { scratch[i] = abs(x[lags + i]) }
        let scale = 1.4826 * RobustStatistics.median(of: scratch, count: w, scratch: &valid)
        guard scale >= settings.minimumScaleG else { return (0, 0, scale) }
        mask(above: settings.maskThreshold * scale)
        for k in 0 ... lags { r[k] = .nan }

        // Peaks of r over the step and stride lags, and their harmonic scores.
        let rate = settings.sampleRateHz
        let kMin = Int((settings.minimumStepIntervalSeconds * rate).rounded(.up))
        let kMax = min(Int(settings.searchLimitSeconds * rate), lags - 1)
        var best = 0.0
        for k in kMin ... kMax where isPeak(k) { best = max(best, harmonicScore(k)) }
        guard best > 0 else { return (0, 0, scale) }
        var lag = 0
        for k in kMin ... kMax where isPeak(k) && harmonicScore(k) >= settings.harmonicFraction * best {
            lag = k
            break
        }
        let strength = harmonicScore(lag)
        var period = refine(.band, lag)
        let shortest = settings.minimumStepIntervalSeconds * rate
        if period / 2 < shortest {
            // Half the period is shorter than a step: a faster rhythm repeats there too.
            if max(interpolated(.band, period / 2), interpolated(.band, period / 3)) >= settings.maximumFasterPeriodicity {
                return (0, strength, scale)
            }
        } else {
            let contrast = interpolated(.high, period / 2)
                - 0.5 * (interpolated(.high, period / 4) + interpolated(.high, 0.75 * period))
            if contrast >= settings.minimumStrideContrast {
                // A stride: take the high band's peak near half the period.
                let lo = max(1, Int((0.44 * period).rounded(.down))), hi = min(lags - 1, Int((0.56 * period).rounded(.up)))
                var top = lo, topValue = highCorrelation(lo)
                for k in lo ... hi {
                    let v = highCorrelation(k)
                    if v > topValue { top = k; topValue = v }
                }
                if topValue >= highCorrelation(top - 1), topValue > highCorrelation(top + 1) {
                    period = refine(.high, top)
                } else {
                    period /= 2
                }
            }
        }
        return (period / rate, strength, scale)
    }

    /// Sets to 0 the values beyond `threshold`, and `maskGuardSamples` on either side, in
    /// both bands, and marks them in `valid`.
    private mutating func mask(above threshold: Double) {
        let guardSamples = settings.maskGuardSamples, n = x.count
        var lastLarge = -guardSamples - 1
        for i in 0 ..< n {
            if abs(x[i]) > threshold { lastLarge = i }
            valid[i] = i - lastLarge <= guardSamples ? 0 : 1
        }
        var nextLarge = n + guardSamples
        for i in stride(from: n - 1, through: 0, by: -1) {
            if abs(x[i]) > threshold { nextLarge = i }
            if nextLarge - i <= guardSamples { valid[i] = 0 }
        }
        for i in 0 ..< n where valid[i] == 0 {
            x[i] = 0
            h[i] = 0
        }
    }

    private mutating func isPeak(_ k: Int) -> Bool {
        let c = correlation(k)
        return c > 0 && c >= correlation(k - 1) && c > correlation(k + 1)
    }

    /// (r(k) + r(2k)) / 2, r(2k) the largest within a sample of 2k; r(k) when 2k is beyond the lags.
    private mutating func harmonicScore(_ k: Int) -> Double {
        guard 2 * k + 1 <= settings.maximumLagSamples else { return correlation(k) }
        return 0.5 * (correlation(k) + max(correlation(2 * k - 1), correlation(2 * k), correlation(2 * k + 1)))
    }

    /// r(k) of the masked band, computed once per window.
    private mutating func correlation(_ k: Int) -> Double {
        if !r[k].isNaN { return r[k] }
        r[k] = Self.correlation(x, valid, lag: k, window: settings.windowSamples, lags: settings.maximumLagSamples)
        return r[k]
    }

    /// r(k) of the masked high band (few lags per window: computed when asked).
    private func highCorrelation(_ k: Int) -> Double {
        Self.correlation(h, valid, lag: k, window: settings.windowSamples, lags: settings.maximumLagSamples)
    }

    /// sum a b / sqrt(sum a^2 sum b^2) over the pairs (a, b) = (s[n], s[n - k]), n over the
    /// newest `window` samples, where both are kept: a masked stretch then takes out its
    /// pairs only, and does not bend r(k) by how it lines up with the lag.
    private static func correlation(_ s: [Double], _ valid: [Double], lag k: Int, window: Int, lags: Int) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        s.withUnsafeBufferPointer { p in
            valid.withUnsafeBufferPointer { v in
                for n in lags ..< lags + window {
                    let a = p[n], b = p[n - k]
                    ab += a * b
                    aa += a * a * v[n - k]
                    bb += b * b * v[n]
                }
            }
        }
        let d = (aa * bb).squareRoot()
        return d > 0 ? ab / d : 0
    }

    private enum Signal { case band, high }

    private mutating func correlation(_ signal: Signal, _ k: Int) -> Double {
        signal == .band ? correlation(k) : highCorrelation(k)
    }

    /// Linear interpolation of a correlation at a fractional lag.
    private mutating func interpolated(_ signal: Signal, _ lag: Double) -> Double {
        let i = Int(lag.rounded(.down)), fraction = lag - Double(i)
        guard i >= 0, i + 1 <= settings.maximumLagSamples else { return 0 }
        return (1 - fraction) * correlation(signal, i) + fraction * correlation(signal, i + 1)
    }

    /// The peak's lag refined between samples by a parabola through it and its neighbours.
    private mutating func refine(_ signal: Signal, _ k: Int) -> Double {
        let a = correlation(signal, k - 1), b = correlation(signal, k), c = correlation(signal, k + 1)
        let d = a - 2 * b + c
        return Double(k) + (d < 0 ? 0.5 * (a - c) / d : 0)
    }
}
