import RealModule

/// The evidence of one window for each heart rate on the grid, from 1...3 PPG channels with
/// the gait and the acceleration taken out, as a log-likelihood.
///
/// Per usable channel (`add`): the window (high-passed) is clipped at its median ± a few
/// robust standard deviations, its least-squares fit on the window's regressors (constant,
/// gait sinusoids, delayed acceleration axes) is removed, and the residual's power spectrum
/// (Hann window, zero-padded FFT) is divided by its noise floor, the median over the bins
/// from the lowest rate to twice the highest that lie outside the gait zones, so that noise
/// has a mean of about 1 whatever the channel's gain, DC or drift. The spectrum is read at
/// each rate g and at 2g (linear interpolation between bins) and averaged over the channels.
///
/// The evidence for g (`logLikelihood`): inside a gait zone the window says nothing either
/// way (the fit took the pulse there too, if it was there), so the spectrum is replaced by
/// `neutralEvidence` in proportion to the zone's weight; the second harmonic adds support;
/// log-likelihood = scale × evidence^exponent; while walking, rates below the walking floor
/// are made less likely.
struct PulseEvidence {
    let grid: HeartRateGrid
    private let parameters: HeartRateEstimator.Parameters
    private let count: Int
    private let binPerMinute: Double
    private let floorBins: ClosedRange<Int>
    /// The highest FFT bin read: for the noise floor or for 2g at the highest rate.
    private let lastBin: Int
    private var fft: RealFFT
    private let window: [Double]
    private var block: [Double]
    private var scratch: [Double]
    private var power: [Double]
    private var binZones: [Double]
    private var floorValues: [Double]
    /// Zone weights at g and at 2g.
    private var zones: [Double]
    private var harmonicZones: [Double]
    /// Channel spectra in noise-floor units at g and at 2g, summed over the channels added.
    private var fundamental: [Double]
    private var harmonic: [Double]
    private(set) var channelsAdded = 0
    /// Each channel's spectrum at g, in noise-floor units (channel c at c × grid.count).
    private var channelSpectra: [Double]
    /// Where the spectrum is read (linear between bins) for each g, then for each 2g.
    private let readAt: [(bin: Int, fraction: Double)]

    init(grid: HeartRateGrid, windowCount: Int, fftSize: Int, rateHz: Double, parameters: HeartRateEstimator.Parameters) {
        self.grid = grid
        self.parameters = parameters
        count = windowCount
        binPerMinute = rateHz / Double(fftSize) * 60
        let binCount = fftSize / 2 + 1
        let lo = Int((grid.lowerBPM / binPerMinute).rounded(.up))
        let hi = min(binCount - 1, Int((2 * grid.upperBPM / binPerMinute).rounded(.down)))
        floorBins = lo...max(lo, hi)
        lastBin = min(binCount - 1, max(hi, Int((2 * grid.upperBPM / binPerMinute).rounded(.up)) + 1))
        fft = RealFFT(size: fftSize)
        window = WindowFunction.hann(count: windowCount)
        block = Array(repeating: 0, count: windowCount)
        scratch = Array(repeating: 0, count: max(windowCount, binCount))
        power = Array(repeating: 0, count: binCount)
        binZones = power
        floorValues = power
        zones = Array(repeating: 0, count: grid.count)
        harmonicZones = zones
        fundamental = zones
        harmonic = zones
        channelSpectra = Array(repeating: 0, count: 3 * grid.count)
        readAt = [1.0, 2.0].flatMap { multiple in
            (0..<grid.count).map { g -> (bin: Int, fraction: Double) in
                let position = multiple * grid.bpm(g) * Double(fftSize) / rateHz / 60
                let bin = min(binCount - 2, Int(position))
                return (bin, position - Double(bin))
            }
        }
    }

    /// Values held, for tests of fixed memory (a reading place counts two).
    var bufferElementCount: Int {
        window.count + block.count + scratch.count + power.count + binZones.count + floorValues.count + zones.count
            + harmonicZones.count + fundamental.count + harmonic.count + channelSpectra.count + 2 * readAt.count
            + fft.bufferElementCount
    }

    /// Starts a window whose gait is `comb`.
    mutating func begin(comb: GaitComb) {
        comb.zoneWeights(first: 0, step: binPerMinute, count: binZones.count, into: &binZones)
        comb.zoneWeights(first: grid.lowerBPM, step: grid.stepBPM, count: grid.count, into: &zones)
        comb.zoneWeights(first: 2 * grid.lowerBPM, step: 2 * grid.stepBPM, count: grid.count, into: &harmonicZones)
        for g in 0..<grid.count { fundamental[g] = 0; harmonic[g] = 0 }
        channelsAdded = 0
    }

    /// Adds channel `channel`'s window (`windowCount` high-passed values, whose median and
    /// scaled MAD are `level`) with `fit`'s regressors removed; false (nothing added) when the
    /// window is flat.
    mutating func add(channel: Int, values: [Double], level: (center: Double, spread: Double), fit: inout LeastSquaresFit) -> Bool {
        guard level.spread > 0 else { return false }
        let reach = parameters.clipRobustSDs * level.spread
        let lo = level.center - reach, hi = level.center + reach
        for i in 0..<count { block[i] = min(hi, max(lo, values[i])) }
        fit.removeFit(from: &block)
        for i in 0..<count { block[i] *= window[i] }
        fft.powerSpectrum(of: block, count: count, into: &power, lastBin: lastBin)

        var n = 0
        for k in floorBins where binZones[k] < GaitComb.walkingWeight {
            floorValues[n] = power[k]
            n += 1
        }
        let noise = n > 0 ? RobustStatistics.median(of: floorValues, count: n, scratch: &scratch) : 0
        // Scaled so that the median of noise (exponential power) is ln 2: its mean is 1.
        let unit = Double.log(2) / max(noise, 1e-30)
        let m = grid.count
        power.withUnsafeBufferPointer { r in
            channelSpectra.withUnsafeMutableBufferPointer { spectra in
                fundamental.withUnsafeMutableBufferPointer { s1 in
                    harmonic.withUnsafeMutableBufferPointer { s2 in
                        readAt.withUnsafeBufferPointer { at in
                            for g in 0..<m {
                                let f = at[g], h = at[m &+ g]
                                let v1 = (r[f.bin] + (r[f.bin &+ 1] - r[f.bin]) * f.fraction) * unit
                                spectra[channel &* m &+ g] = v1
                                s1[g] += v1
                                s2[g] += (r[h.bin] + (r[h.bin &+ 1] - r[h.bin]) * h.fraction) * unit
                            }
                        }
                    }
                }
            }
        }
        channelsAdded += 1
        return true
    }

    /// Channel `channel`'s spectrum at grid point `index`, in noise-floor units (as added
    /// since `begin`).
    func channelSpectrum(_ channel: Int, at index: Int) -> Double {
        channelSpectra[channel * grid.count + index]
    }

    /// The channels' mean spectrum at `perMinute`, in noise-floor units, as added since
    /// `begin` (no gait zones): read at the nearest grid rate, or at twice the nearest one
    /// above the grid; nil below the grid or above twice its top.
    func meanSpectrum(atPerMinute perMinute: Double) -> Double? {
        guard channelsAdded > 0 else { return nil }
        let channels = Double(channelsAdded)
        let g = Int(((perMinute - grid.lowerBPM) / grid.stepBPM).rounded())
        if g >= 0, g < grid.count { return fundamental[g] / channels }
        let h = Int(((perMinute / 2 - grid.lowerBPM) / grid.stepBPM).rounded())
        return h >= 0 && h < grid.count ? harmonic[h] / channels : nil
    }

    /// Whether the line at `bpm` looks like gait rather than a pulse, from the PPG alone (for
    /// a window without acceleration, whose gait comb is empty): a line stands at half or one
    /// and a half times its rate (`strideLineEvidence`, and above the Hann window's leakage
    /// from the line itself: the stride beneath a step; a pulse has no power there), or its
    /// second harmonic reaches `pulseHarmonicShareLimit` of it (a pulse puts 10-50 % of its
    /// power at 2f; a stride line less than its step line).
    func looksLikeGait(atBPM bpm: Double) -> Bool {
        guard let line = meanSpectrum(atPerMinute: bpm) else { return false }
        let p = parameters
        let stride = max(p.strideLineEvidence, Self.leakageShare * line)
        if (meanSpectrum(atPerMinute: bpm / 2) ?? 0) >= stride || (meanSpectrum(atPerMinute: 1.5 * bpm) ?? 0) >= stride {
            return true
        }
        return (meanSpectrum(atPerMinute: 2 * bpm) ?? 0) >= p.pulseHarmonicShareLimit * line
    }

    /// A Hann window's sidelobes lie 31 dB or more below its line (0.1 % of the power); a
    /// hundredth of a line's power away from it is more than its own leakage.
    static let leakageShare = 0.01

    /// The window's log-likelihood of each rate (`grid.count` values, at most 0 + a constant)
    /// from the channels added since `begin`; `walking`: the comb's `isWalking`.
    func logLikelihood(walking: Bool, into logLikelihood: inout [Double]) {
        let p = parameters
        let channels = Double(max(1, channelsAdded))
        let floorPenalty = Double.log(p.walkingFloorOdds)
        let squareRoot = p.evidenceExponent == 0.5
        for g in 0..<grid.count {
            let z1 = zones[g], z2 = harmonicZones[g]
            let e1 = (1 - z1) * fundamental[g] / channels + z1 * p.neutralEvidence
            let e2 = (1 - z2) * harmonic[g] / channels + z2 * p.neutralEvidence
            let evidence = e1 + p.secondHarmonicWeight * e2
            var l = p.evidenceScale * (squareRoot ? evidence.squareRoot() : Double.pow(evidence, p.evidenceExponent))
            if walking, grid.bpm(g) < p.walkingFloorBPM { l += floorPenalty }
            logLikelihood[g] = l
        }
    }
}

/// Heart rates the estimator considers: `lowerBPM`, `lowerBPM + stepBPM`, ... `upperBPM`.
struct HeartRateGrid: Sendable {
    let lowerBPM: Double
    let upperBPM: Double
    let stepBPM: Double
    let count: Int

    init(lowerBPM: Double, upperBPM: Double, stepBPM: Double = 1) {
        self.lowerBPM = lowerBPM
        self.stepBPM = stepBPM
        count = Int(((upperBPM - lowerBPM) / stepBPM).rounded(.down)) + 1
        self.upperBPM = lowerBPM + Double(count - 1) * stepBPM
    }

    @inline(__always) func bpm(_ index: Int) -> Double { lowerBPM + Double(index) * stepBPM }
}
