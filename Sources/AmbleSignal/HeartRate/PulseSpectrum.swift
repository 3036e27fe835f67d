/// The spectrum of the pulse on a grid of heart rates, from 1...3 PPG channels with the
/// motion lines taken out.
///
/// Per channel: outliers clipped at the median ± `clipMADs` robust standard deviations (a
/// transient from a DC jump cannot dominate), the constant and the motion-line sinusoids
/// removed by least squares, a Tukey taper, zero-padded FFT power, read on the grid by linear
/// interpolation and scaled to a maximum of 1; the channels are summed.
struct PulseSpectrum {
    /// Clip at the median ± this many robust standard deviations.
    var clipMADs = 4.0
    /// Fraction of the window tapered by the Tukey window.
    var taper = 0.25

    let grid: HeartRateGrid
    private let rateHz: Double
    private let count: Int
    private var fft: RealFFT
    private var window: [Double]
    private var block: [Double]
    private var power: [Double]
    private var remover: SinusoidRemover
    private(set) var channelSpectrum: [Double]

    init(grid: HeartRateGrid, windowCount: Int, rateHz: Double, fftSize: Int, maximumLines: Int) {
        self.grid = grid
        self.rateHz = rateHz
        count = windowCount
        fft = RealFFT(size: fftSize)
        window = WindowFunction.tukey(count: windowCount, taper: taper)
        block = Array(repeating: 0, count: windowCount)
        power = Array(repeating: 0, count: fftSize / 2 + 1)
        remover = SinusoidRemover(maximumCount: windowCount, maximumSinusoids: maximumLines)
        channelSpectrum = Array(repeating: 0, count: grid.count)
    }

    /// Sets the motion lines (Hz) removed from every channel until the next call.
    mutating func setLines(_ lines: [Double], count lineCount: Int) {
        remover.prepare(count: count, sampleRateHz: rateHz, frequenciesHz: lines, frequencyCount: lineCount)
    }

    /// Adds one channel's normalised spectrum (maximum 1) to `sum`; false if the channel is
    /// flat within the window (nothing added). Also leaves it in `channelSpectrum`. `level`
    /// is the channel's median and scaled MAD over the window
    /// (`RobustStatistics.centerAndSpread`).
    mutating func accumulate(channel values: [Double], level: (center: Double, spread: Double), into sum: inout [Double]) -> Bool {
        for i in 0..<count { block[i] = values[i] }
        if level.spread > 0 {
            let lo = level.center - clipMADs * level.spread, hi = level.center + clipMADs * level.spread
            for i in 0..<count { block[i] = min(hi, max(lo, block[i])) }
        }
        remover.removeFit(from: &block)
        var mean = 0.0
        for i in 0..<count { mean += block[i] }
        mean /= Double(count)
        for i in 0..<count { block[i] = (block[i] - mean) * window[i] }
        fft.powerSpectrum(of: block, count: count, into: &power)
        let binsPerBPM = Double(fft.size) / rateHz / 60
        var peak = 0.0
        for g in 0..<grid.count {
            let position = grid.bpm(g) * binsPerBPM
            let k = Int(position)
            let f = position - Double(k)
            let value = k + 1 < power.count ? power[k] * (1 - f) + power[k + 1] * f : 0
            channelSpectrum[g] = value
            peak = max(peak, value)
        }
        guard peak > 0, peak.isFinite else { return false }
        for g in 0..<grid.count {
            channelSpectrum[g] /= peak
            sum[g] += channelSpectrum[g]
        }
        return true
    }
}

/// Heart rates the estimator considers: `lowerBPM`, `lowerBPM + stepBPM`, ... `upperBPM`.
struct HeartRateGrid: Sendable {
    let lowerBPM: Double
    let stepBPM: Double
    let count: Int

    init(lowerBPM: Double, upperBPM: Double, stepBPM: Double = 1) {
        self.lowerBPM = lowerBPM
        self.stepBPM = stepBPM
        count = Int(((upperBPM - lowerBPM) / stepBPM).rounded(.down)) + 1
    }

    @inline(__always) func bpm(_ index: Int) -> Double { lowerBPM + Double(index) * stepBPM }

    /// Nearest grid index to `bpm`, clamped to the grid.
    func index(nearest bpm: Double) -> Int {
        max(0, min(count - 1, Int(((bpm - lowerBPM) / stepBPM).rounded())))
    }
}
