import RealModule

/// Finds the frequencies at which the wrist moves rhythmically (arm swing, steps) from a
/// window of band-passed acceleration, with their harmonics: the lines where walking or
/// running puts motion artefact into the PPG.
///
/// A line is a spectral peak of the 3-axis acceleration whose amplitude (as a sinusoid, in
/// g) is at least `minimumAmplitudeG` and at least `relativeAmplitude` of the strongest;
/// up to `maximumBaseLines` peaks, each with harmonics up to `harmonics`, inside
/// `searchBPM`. Frequencies are refined between FFT bins by parabolic interpolation.
///
/// A magnitude-only accelerometer hardly sees the arm swing (it tilts gravity, which keeps
/// |a| near 1 g) but the PPG does: then each peak is taken as a step rate and the lines are
/// the multiples of half of it (the stride), up to twice as many.
struct MotionLineDetector {
    var minimumAmplitudeG = 0.2
    var relativeAmplitude = 0.1
    var maximumBaseLines = 4
    var harmonics = 3
    /// Lines are kept in this range, in beats (cycles) per minute.
    var lineRangeBPM: ClosedRange<Double> = 35...225
    /// Peaks are searched in this range, in cycles per minute.
    var searchBPM: ClosedRange<Double> = 30...230
    /// At most this many lines are returned.
    let maximumLines: Int

    private let rateHz: Double
    private var fft: RealFFT
    private var window: [Double]
    private var windowSum: Double
    private var tapered: [Double]
    private var power: [Double]
    private var total: [Double]
    private var count: Int
    private var peaks: [(bin: Int, amplitude: Double)] = []

    init(windowCount: Int, rateHz: Double, fftSize: Int, maximumLines: Int = 8) {
        self.rateHz = rateHz
        self.maximumLines = maximumLines
        count = windowCount
        fft = RealFFT(size: fftSize)
        window = WindowFunction.hann(count: windowCount)
        windowSum = window.reduce(0, +)
        tapered = Array(repeating: 0, count: windowCount)
        power = Array(repeating: 0, count: fftSize / 2 + 1)
        total = Array(repeating: 0, count: fftSize / 2 + 1)
        peaks.reserveCapacity(maximumBaseLines + 1)
    }

    /// Writes the line frequencies in Hz into `lines` (sized `maximumLines`), strongest motion
    /// first; returns how many. `axes` holds the window of each axis (`windowCount` values).
    /// Also returns the strongest line amplitude in g (0 when there is none).
    mutating func detect(axes: [[Double]], magnitudeOnly: Bool, into lines: inout [Double]) -> (count: Int, strongestG: Double) {
        for k in total.indices { total[k] = 0 }
        for axis in axes {
            var mean = 0.0
            for i in 0..<count { mean += axis[i] }
            mean /= Double(count)
            for i in 0..<count { tapered[i] = (axis[i] - mean) * window[i] }
            fft.powerSpectrum(of: tapered, count: count, into: &power)
            for k in total.indices { total[k] += power[k] }
        }
        let binHz = rateHz / Double(fft.size)
        // Amplitude of an equivalent sinusoid, in g: |X| = a Σw / 2.
        let scale = 2 / windowSum
        let lo = max(1, Int((searchBPM.lowerBound / 60 / binHz).rounded(.up)))
        let hi = min(total.count - 2, Int((searchBPM.upperBound / 60 / binHz).rounded(.down)))
        guard hi > lo else { return (0, 0) }

        // The strongest few local maxima (kept sorted, strongest first).
        peaks.removeAll(keepingCapacity: true)
        var strongest = 0.0
        for k in lo...hi where total[k] > total[k - 1] && total[k] >= total[k + 1] {
            let amplitude = total[k].squareRoot() * scale
            strongest = max(strongest, amplitude)
            if peaks.count < maximumBaseLines || amplitude > peaks[peaks.count - 1].amplitude {
                var i = peaks.count
                while i > 0 && peaks[i - 1].amplitude < amplitude { i -= 1 }
                peaks.insert((k, amplitude), at: i)
                if peaks.count > maximumBaseLines { peaks.removeLast() }
            }
        }
        var n = 0
        for peak in peaks {
            guard peak.amplitude >= minimumAmplitudeG, peak.amplitude >= relativeAmplitude * strongest else { break }
            let k = peak.bin
            let y0 = Double.log(total[k - 1] + 1e-300), y1 = Double.log(total[k] + 1e-300), y2 = Double.log(total[k + 1] + 1e-300)
            let curvature = y0 - 2 * y1 + y2
            let offset = curvature < 0 ? max(-0.5, min(0.5, 0.5 * (y0 - y2) / curvature)) : 0
            let peakHz = (Double(k) + offset) * binHz
            let baseHz = magnitudeOnly ? peakHz / 2 : peakHz
            for h in 1...(magnitudeOnly ? 2 * harmonics : harmonics) {
                let f = baseHz * Double(h)
                let bpm = f * 60
                if bpm > lineRangeBPM.upperBound { break }
                guard bpm >= lineRangeBPM.lowerBound, n < maximumLines else { continue }
                var duplicate = false
                for j in 0..<n where abs(lines[j] - f) * 60 <= 1 { duplicate = true }
                if !duplicate { lines[n] = f; n += 1 }
            }
        }
        return (n, peaks.first.map { $0.amplitude } ?? 0)
    }
}
