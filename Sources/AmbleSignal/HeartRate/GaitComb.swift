import RealModule

/// The wrist's gait rhythm, and the comb of rates at which it puts artefact into the PPG.
///
/// **Cadence.** The step rate is the peak of the spectrum of |a| (Hann window, zero-padded
/// FFT) between the slowest and the fastest cadence, refined between bins by a parabola on
/// the log power; the spectrum, scaled to unit power over the rhythm band (30-240 /min), is
/// averaged with the previous window's. When |a| shows no walking rhythm (weight below
/// `walkingWeight`) while the step counter, run on the same accelerometer, says the wearer
/// walks, the counter's cadence is taken with full weight: it hears the landings of a walk
/// whose arm barely moves (the hands held in a mindful walk), and steps put the stride into
/// the PPG however still the arm. |a| is used because every accelerometer gives it,
/// whatever its orientation on the wrist, and because the body's bounce at each step is in
/// it even when the arm is still.
///
/// **Weight** (0...1): how rhythmic the motion is (the share of the band's power in the step
/// peak) times whether the wrist moves at all (the RMS of |a| against the sensor's noise),
/// each a linear ramp between two physical levels, not a threshold on an amplitude.
///
/// **Teeth** at k × cadence / 2 (k = 1, 2, ...: the stride, the step and all their harmonics)
/// from the high-pass edge to `highestToothPerMinute`, each with a zone of half-width
/// `toothHalfWidthBPM` + `toothHalfWidthShare` × its rate and the weight above.
struct GaitComb {
    /// Steps per minute of the newest window (0 before the first, or without acceleration).
    private(set) var cadenceStepsPerMinute = 0.0
    /// 0 (no gait rhythm) ... 1 (steady walking or running).
    private(set) var weight = 0.0
    /// The teeth, per minute, lowest first: `teeth[0..<toothCount]`.
    private(set) var teeth: [Double]
    private(set) var toothCount = 0
    /// The first tooth's order: teeth[j] = (firstToothOrder + j) × cadence / 2.
    private(set) var firstToothOrder = 1

    private let parameters: HeartRateEstimator.Parameters
    private let count: Int
    private let binPerMinute: Double
    private let rhythmBins: ClosedRange<Int>
    private let searchBins: ClosedRange<Int>
    private var fft: RealFFT
    private let window: [Double]
    private var tapered: [Double]
    private var power: [Double]
    private var average: [Double]
    private var hasAverage = false

    /// Values held, for tests of fixed memory.
    var bufferElementCount: Int {
        teeth.count + window.count + tapered.count + power.count + average.count + fft.bufferElementCount
    }

    /// From this weight on the wrist walks (or runs): the rhythm is at least half-way from
    /// noise to steady walking. Then the lowest teeth are fitted as sinusoids, the walking
    /// floor applies, and the wearer is not at rest.
    static let walkingWeight = 0.5
    var isWalking: Bool { weight >= Self.walkingWeight }

    /// Half-width, bins either side of the step peak, of the share that measures the rhythm:
    /// the core of the peak (±6 /min at 2.9 /min per bin).
    static let peakHalfWidthBins = 2

    init(windowCount: Int, fftSize: Int, rateHz: Double, parameters: HeartRateEstimator.Parameters) {
        self.parameters = parameters
        count = windowCount
        let perBin = rateHz / Double(fftSize) * 60
        binPerMinute = perBin
        let binCount = fftSize / 2 + 1
        func bins(_ range: ClosedRange<Double>) -> ClosedRange<Int> {
            let lo = max(1, Int((range.lowerBound / perBin).rounded(.up)))
            let hi = min(binCount - 2, Int((range.upperBound / perBin).rounded(.down)))
            return lo...max(lo, hi)
        }
        rhythmBins = bins(parameters.rhythmBandPerMinute)
        searchBins = bins(parameters.slowestCadenceStepsPerMinute...parameters.fastestCadenceStepsPerMinute)
        fft = RealFFT(size: fftSize)
        window = WindowFunction.hann(count: windowCount)
        tapered = Array(repeating: 0, count: windowCount)
        power = Array(repeating: 0, count: binCount)
        average = power
        let lowestStride = parameters.slowestCadenceStepsPerMinute / 2
        teeth = Array(repeating: 0, count: Int(parameters.highestToothPerMinute / lowestStride) + 1)
    }

    /// Forgets the averaged spectrum (after a break in the samples).
    mutating func forget() {
        hasAverage = false
    }

    /// No acceleration over the window: no rhythm, no teeth (the averaged spectrum is kept).
    mutating func clear() {
        cadenceStepsPerMinute = 0
        weight = 0
        toothCount = 0
    }

    /// Measures the window of high-passed |a| (`windowCount` values, g) and sets the
    /// cadence, the weight and the teeth. `stepCadence`: the step counter's cadence while it
    /// says the wearer walks, steps per minute; 0 when it says not.
    mutating func measure(magnitude: [Double], stepCadence: Double) {
        var mean = 0.0
        for i in 0..<count { mean += magnitude[i] }
        mean /= Double(count)
        var squares = 0.0
        for i in 0..<count {
            let v = magnitude[i] - mean
            squares += v * v
            tapered[i] = v * window[i]
        }
        let rms = (squares / Double(count)).squareRoot()
        fft.powerSpectrum(of: tapered, count: count, into: &power, lastBin: rhythmBins.upperBound + 1)
        var total = 0.0
        for k in rhythmBins { total += power[k] }
        let scale = 1 / max(total, 1e-30)
        let memory = parameters.cadenceSpectrumMemory
        for k in 0...(rhythmBins.upperBound + 1) {
            let v = power[k] * scale
            average[k] = hasAverage ? memory * average[k] + (1 - memory) * v : v
        }
        hasAverage = true

        var peak = searchBins.lowerBound
        for k in searchBins where average[k] > average[peak] { peak = k }
        var bandPower = 0.0, peakPower = 0.0
        for k in rhythmBins { bandPower += average[k] }
        for k in max(0, peak - Self.peakHalfWidthBins)...min(average.count - 1, peak + Self.peakHalfWidthBins) {
            peakPower += average[k]
        }
        let share = peakPower / max(bandPower, 1e-30)
        let y0 = Double.log(average[peak - 1] + 1e-30), y1 = Double.log(average[peak] + 1e-30)
        let y2 = Double.log(average[peak + 1] + 1e-30)
        let curvature = y0 - 2 * y1 + y2
        let offset = curvature < 0 ? max(-0.5, min(0.5, 0.5 * (y0 - y2) / curvature)) : 0
        cadenceStepsPerMinute = (Double(peak) + offset) * binPerMinute

        let rhythmic = Self.ramp(share, from: parameters.rhythmShareNone, to: parameters.rhythmShareFull)
        let moving = Self.ramp(rms, from: parameters.stillWristRMSG, to: 2 * parameters.stillWristRMSG)
        weight = rhythmic * moving
        if stepCadence > 0, weight < Self.walkingWeight {
            // The counter hears steps that |a|'s rhythm does not show (hands held still in a
            // mindful walk): its cadence, and the wrist walks.
            cadenceStepsPerMinute = min(max(stepCadence, parameters.slowestCadenceStepsPerMinute), parameters.fastestCadenceStepsPerMinute)
            weight = 1
        }
        placeTeeth()
    }

    /// The teeth at k × cadence / 2 from the rhythm band's lower edge up, when the weight is not 0.
    private mutating func placeTeeth() {
        toothCount = 0
        guard weight > 0 else { return }
        let stride = cadenceStepsPerMinute / 2
        let lowest = parameters.rhythmBandPerMinute.lowerBound
        var k = 1
        while Double(k) * stride <= parameters.highestToothPerMinute, toothCount < teeth.count {
            let f = Double(k) * stride
            if f >= lowest {
                if toothCount == 0 { firstToothOrder = k }
                teeth[toothCount] = f
                toothCount += 1
            }
            k += 1
        }
    }

    /// Half-width of the zone around a tooth at `f` per minute.
    func halfWidth(ofToothAt f: Double) -> Double {
        parameters.toothHalfWidthBPM + parameters.toothHalfWidthShare * f
    }

    /// For the rates `first + i × step` (i < `count`): the weight of the strongest zone that
    /// holds each (0 outside every zone), into `zones[0..<count]`.
    func zoneWeights(first: Double, step: Double, count n: Int, into zones: inout [Double]) {
        for i in 0..<n { zones[i] = 0 }
        for j in 0..<toothCount {
            let f = teeth[j], half = halfWidth(ofToothAt: f)
            let lo = max(0, Int(((f - half - first) / step).rounded(.down)))
            let hi = min(n - 1, Int(((f + half - first) / step).rounded(.up)))
            guard lo <= hi else { continue }
            for i in lo...hi where abs(first + Double(i) * step - f) <= half {
                zones[i] = max(zones[i], weight)
            }
        }
    }

    /// 0 below `from`, 1 above `to`, linear in between.
    static func ramp(_ x: Double, from: Double, to: Double) -> Double {
        min(1, max(0, (x - from) / (to - from)))
    }
}
