import RealModule

/// What one analysis window says about the gait: its period, how periodic it is, and whether
/// that period is one step or two. Pure functions of the window's autocorrelations.
struct RhythmFrame: Sendable, Equatable {
    /// Middle of the window, seconds.
    var centreSeconds: Double
    /// The shortest lag at which the signal repeats, seconds (nil: no rhythm at all).
    var basePeriodSeconds: Double?
    /// Periodicity at that lag, 0...1 (the mean autocorrelation at the lag and its multiples).
    var periodicity: Double
    /// +1 when the base period is more likely a stride (two steps), -1 when a step.
    var strideVote: Double
    /// RMS of the band-passed |a| over the window, g.
    var rmsG: Double
    /// Whether the window can start a walk: moving above the noise floor, with enough of the
    /// movement along gravity, at a cadence in range.
    var isCandidate: Bool
    /// Periodicity at the base period of the walk under way (or half or twice it), 0 when none.
    var periodicityAtFollowed: Double
    /// The stride of the walk under way as the last few seconds show it, seconds (nil when
    /// none or unclear): the pace now, for the cadence the band compares with the limit.
    var recentStrideSeconds: Double? = nil
    /// Whether the heel strikes in the window fall on the step period this frame reads.
    var heelStrikesOnStep = false
    /// Whether they fall on the step of the walk under way (false when none).
    var heelStrikesOnFollowed = false

    /// The step period this frame reads on its own, seconds.
    var stepPeriodSeconds: Double? {
        basePeriodSeconds.map { strideVote > 0 ? $0 / 2 : $0 }
    }
}

/// The rhythm of a window from its autocorrelations (`RunningAutocorrelation`), at a fixed
/// sampling rate: lags are in samples, results in seconds.
struct RhythmAnalysis: Sendable {
    let rateHz: Double
    let parameters: StepCounter.Parameters
    /// Lags searched for the base period, in samples: the shortest step to the longest stride.
    let shortestLag: Int
    let longestLag: Int
    /// The half-width of the comb's search around each lag up to `maximumLag` (`combTolerance`,
    /// at least one sample), worked out once.
    private let combSpreads: [Int]
    /// How far the k-th repeat of a period may fall from k periods, as a share: one step differs
    /// from the next by a few percent in a steady walk.
    static let combTolerance = 0.04
    /// How far a peak looked for at a multiple or a part of a period already measured may lie
    /// from it, as a share: twice the comb's, as that period is itself known only within it.
    static let peakTolerance = 0.08
    /// The ratio of the step line's power to the base line's at which the spectrum's evidence for
    /// a stride is whole (±1 in the vote): a factor of four (6 dB) is a clear line over another.
    static let decisivePowerRatio = 4.0

    init(rateHz: Double, parameters: StepCounter.Parameters, maximumLag: Int) {
        self.rateHz = rateHz
        self.parameters = parameters
        combSpreads = (0 ... maximumLag).map(Self.combSpread)
        shortestLag = Swift.max(2, Int((parameters.shortestStepSeconds * rateHz).rounded(.down)))
        longestLag = Swift.min(maximumLag - 1, Int((parameters.longestStrideSeconds * rateHz).rounded(.up)))
    }

    /// The base period of `r` (normalised autocorrelation, index = lag): the shortest lag whose
    /// comb periodicity (the mean of `r` at the lag and its multiples) reaches
    /// `fundamentalShare` of the best, then shortened to a half or a third of itself where
    /// `r` there reaches the same share (a rhythm also repeats after two or three periods).
    /// Returns the lag in samples (refined between samples) and its comb periodicity.
    func basePeriod(_ r: [Double]) -> (lag: Double, periodicity: Double)? {
        let share = parameters.fundamentalShare
        let (shortest, longest) = (shortestLag, longestLag)
        guard longest >= shortest else { return nil }
        // The comb periodicity of each local maximum (-inf elsewhere), then the shortest lag
        // reaching the share of the best.
        let chosen: (lag: Int, comb: Double)? = withUnsafeTemporaryAllocation(of: Double.self, capacity: longest + 1) { combs in
            r.withUnsafeBufferPointer { r in
                var best = -Double.infinity
                for lag in shortest ... longest {
                    combs[lag] = -.infinity
                    if r[lag] >= r[lag - 1], r[lag] > r[lag + 1] {
                        combs[lag] = combPeriodicity(r, lag: lag)
                        best = Swift.max(best, combs[lag])
                    }
                }
                guard best > 0 else { return nil }
                for lag in shortest ... longest where combs[lag] >= share * best { return (lag, combs[lag]) }
                return nil
            }
        }
        guard let chosen else { return nil }
        var period = chosen.lag
        for divisor in [3, 2] {
            let part = Double(period) / Double(divisor)
            guard part >= Double(shortestLag) else { continue }
            if let peak = localPeak(r, near: part, tolerance: Self.peakTolerance), r[peak] >= share * r[period] {
                period = peak
                break
            }
        }
        return (refined(r, period), chosen.comb)
    }

    private static func combSpread(_ centre: Int) -> Int {
        Swift.max(1, Int((combTolerance * Double(centre)).rounded(.up)))
    }

    /// Mean over the multiples k·lag (k = 1, 2, ...) within the lags held of the largest `r`
    /// within `combTolerance` of each multiple (at least one sample).
    private func combPeriodicity(_ r: UnsafeBufferPointer<Double>, lag: Int) -> Double {
        let last = r.count - 2
        var total = 0.0
        var n = 0
        var k = 1
        while k * lag <= last {
            let centre = k * lag
            let spread = centre < combSpreads.count ? combSpreads[centre] : Self.combSpread(centre)
            var peak = -Double.infinity
            for i in Swift.max(1, centre - spread) ... Swift.min(last, centre + spread) { peak = Swift.max(peak, r[i]) }
            total += peak
            n += 1
            k += 1
        }
        return n > 0 ? total / Double(n) : -1
    }

    /// The largest value of `r` within ±`tolerance` (fraction) of the lag `lag` (in samples,
    /// fractional), or -1 outside the lags held.
    func peakValue(_ r: [Double], near lag: Double, tolerance: Double = RhythmAnalysis.peakTolerance) -> Double {
        guard let i = localIndex(r, near: lag, tolerance: tolerance) else { return -1 }
        return r[i]
    }

    private func localIndex(_ r: [Double], near lag: Double, tolerance: Double) -> Int? {
        let low = Swift.max(1, Int((lag * (1 - tolerance)).rounded(.down)))
        let high = Swift.min(r.count - 2, Int((lag * (1 + tolerance)).rounded(.up)))
        guard low <= high else { return nil }
        var best = low
        for i in low ... high where r[i] > r[best] { best = i }
        return best
    }

    /// A local maximum of `r` near `lag`, if the largest value there is one.
    private func localPeak(_ r: [Double], near lag: Double, tolerance: Double) -> Int? {
        guard let i = localIndex(r, near: lag, tolerance: tolerance), i > 0, i < r.count - 1,
              r[i] >= r[i - 1], r[i] >= r[i + 1] else { return nil }
        return i
    }

    /// The peak's position between samples, from a parabola through it and its neighbours.
    private func refined(_ r: [Double], _ i: Int) -> Double {
        let a = r[i - 1], b = r[i], c = r[i + 1]
        let curvature = a - 2 * b + c
        guard curvature < 0 else { return Double(i) }
        return Double(i) + Swift.min(0.5, Swift.max(-0.5, 0.5 * (a - c) / curvature))
    }

    /// The periodicity at a period already followed, `base` seconds: the larger of |a|'s at
    /// the period, twice and half it, and (with three axes) the vector's at the period and
    /// twice it.
    func periodicity(magnitude: [Double], vector: [Double]?, at base: Double) -> Double {
        let lag = base * rateHz
        var best = Swift.max(peakValue(magnitude, near: lag), peakValue(magnitude, near: 2 * lag))
        if lag / 2 >= Double(shortestLag) { best = Swift.max(best, peakValue(magnitude, near: lag / 2)) }
        if let vector { best = Swift.max(best, peakValue(vector, near: lag), peakValue(vector, near: 2 * lag)) }
        return best
    }

    /// The stride near `expected` seconds (within ±30 %) in `r`, the autocorrelation of the
    /// last few seconds: the clearest repeat there (at least `periodicityToContinue`), or the
    /// one at two thirds of it when that nearly matches it (three steps against two), refined
    /// between samples; nil when there is none.
    func stride(near expected: Double, in r: [Double]) -> Double? {
        let lag = expected * rateHz
        let low = Swift.max(shortestLag, Int((lag * (1 - WalkTracker.resumedPaceTolerance)).rounded(.down)))
        let high = Swift.min(r.count - 2, Int((lag * (1 + WalkTracker.resumedPaceTolerance)).rounded(.up)))
        guard low < high else { return nil }
        func isPeak(_ i: Int) -> Bool { r[i] >= r[i - 1] && r[i] >= r[i + 1] && r[i] >= parameters.periodicityToContinue }
        var best = -1
        for i in low ... high where isPeak(i) && (best < 0 || r[i] > r[best]) { best = i }
        guard best > 0 else { return nil }
        // |a| repeats at every step: after a change of pace, three of the new steps can fall in
        // the range as well as two. Where a repeat at two thirds of the best nearly matches it
        // (`fundamentalShare`, as for the base period), that one is the stride.
        if let shorter = localPeak(r, near: 2 * Double(best) / 3, tolerance: Self.peakTolerance), shorter >= low, isPeak(shorter),
           r[shorter] >= parameters.fundamentalShare * r[best] {
            best = shorter
        }
        return refined(r, best) / rateHz
    }

    /// Whether a base period of `period` seconds is a stride rather than a step, as a vote in
    /// -3 ... 3 (positive: stride; -2 ... 2 with three axes, whose heel strikes do not vote):
    /// the evidence of the signal (three-axis correlation, or on |a| alone the strength of the
    /// step line against the stride line and the heel strikes), plus the prior that a walker's
    /// cadence is near the typical one, or during a mindful walk near the one the wearer is
    /// expected to walk at (`StepCounter.Context`).
    func strideVote(period: Double, vector: [Double]?, magnitudeSpectrumRatio: Double?, rmsG: Double,
                    heelStrikeEvidence: Double = 0, expectedStepsPerMinute: Double? = nil) -> Double {
        let stepRate = 60 / period, strideRate = 120 / period
        if strideRate > parameters.fastestCadenceStepsPerMinute { return -1 }
        if stepRate < parameters.slowestCadenceStepsPerMinute { return 1 }
        var evidence = 0.0
        if let vector {
            let lag = period * rateHz
            let once = peakValue(vector, near: lag), twice = peakValue(vector, near: 2 * lag)
            if twice > 0 {
                let share = parameters.strideCorrelationShare
                evidence = Swift.min(0, Swift.max(-2, (once / twice - 1) / (1 - share)))
            } else {
                // Twice the period is beyond the lags held, or the arm does not repeat there: a
                // period the arm repeats at and not at twice it is the arm's own, a stride.
                evidence = once > 0 ? 1 : 0
            }
        } else if let ratio = magnitudeSpectrumRatio, ratio > 0 {
            // The step line (twice the base rate) against the base line: stronger step line,
            // the base is a stride. Neutral at equal power; ±1 at `decisivePowerRatio`.
            evidence = Swift.min(1, Swift.max(-1, Double.log(ratio) / Double.log(Self.decisivePowerRatio)))
        }
        evidence += heelStrikeEvidence
        // A runner's cadence is the typical runner's whatever walk was planned; a walker's is
        // the one expected of this walk when the band knows it.
        let typical = rmsG > parameters.runningRMSG ? parameters.typicalRunningCadenceStepsPerMinute
            : expectedStepsPerMinute ?? parameters.typicalCadenceStepsPerMinute
        let prior = (abs(Double.log(stepRate / typical)) - abs(Double.log(strideRate / typical))) / Double.log(2)
        return evidence + prior
    }
}
