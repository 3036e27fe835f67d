/// One bin of the fixed-rate stream the heart-rate code works on.
struct ResampledBin {
    /// Bin number: the bin holds the samples with ⌊time × rate⌋ == index.
    var index: Int
    /// Mean of each PPG channel over the bin (raw units); lanes past the channel count are 0.
    var ppg: SIMD4<Double>
    /// Mean acceleration over the bin in g (x, y, z, unused); valid when `hasAcceleration`.
    var acceleration: SIMD4<Double>
    var hasAcceleration: Bool
    /// Per channel: every sample of the bin equalled the sample before it (a stuck,
    /// saturated or clipped reading). Always false for interpolated bins.
    var stuck: SIMD4<Double>
    /// The bin had no samples and was filled by linear interpolation across a short gap.
    var interpolated: Bool
}

/// Converts PPG samples at any rate (12.5...125 Hz, irregular intervals allowed) to a fixed
/// rate by averaging the samples that fall in each bin of 1 / rate seconds: a boxcar
/// anti-alias filter, then decimation. Acceleration slower than the bins is held. Short gaps
/// are filled by linear interpolation; a longer gap, or time going backwards, is reported as
/// a discontinuity.
struct PPGResampler {
    let rateHz: Double
    /// Longest gap filled by interpolation, in bins.
    let maximumFilledGapBins: Int

    private var open: Int?
    private var lastClosed: Int?
    private var sum = SIMD4<Double>()
    private var accelerationSum = SIMD4<Double>()
    private var samples = 0
    private var accelerationSamples = 0
    private var stuckSoFar = SIMD4<Double>(repeating: 1)
    private var previousRaw: SIMD4<Double>?
    private var lastEmitted: ResampledBin?

    init(rateHz: Double, maximumFilledGapSeconds: Double) {
        self.rateHz = rateHz
        maximumFilledGapBins = max(1, Int((maximumFilledGapSeconds * rateHz).rounded(.down)))
        let empty = ResampledBin(index: 0, ppg: .init(), acceleration: .init(), hasAcceleration: false, stuck: .init(), interpolated: false)
        completed = Array(repeating: empty, count: maximumFilledGapBins + 1)
    }

    /// Forgets everything (after a discontinuity the next sample starts afresh).
    mutating func reset() {
        open = nil
        lastClosed = nil
        sum = .init(); accelerationSum = .init()
        samples = 0; accelerationSamples = 0
        stuckSoFar = .init(repeating: 1)
        previousRaw = nil
        lastEmitted = nil
    }

    /// Bins completed by the last `add` or `close`, in order: `completed[0..<completedCount]`.
    private(set) var completed: [ResampledBin]
    private(set) var completedCount = 0

    /// The bin a time falls in.
    func binIndex(timeSeconds: Double) -> Int {
        Int((timeSeconds * rateHz + 1e-9).rounded(.down))
    }

    /// Closes the open bin if it has ended by `timeSeconds` (no later sample can belong to
    /// it); the bin, if any, is left in `completed`.
    mutating func close(endedBy timeSeconds: Double) {
        completedCount = 0
        guard let index = open, Double(index + 1) / rateHz <= timeSeconds + 1e-9 else { return }
        completed[0] = closeBin(index: index)
        completedCount = 1
    }

    /// Whether a sample at `timeSeconds` or later would start a new stretch: the bins closed
    /// so far end more than the longest gap filled before its bin.
    func cannotBridge(to timeSeconds: Double) -> Bool {
        guard open == nil, let last = lastClosed else { return false }
        return binIndex(timeSeconds: timeSeconds) - last - 1 > maximumFilledGapBins
    }

    /// Adds one sample; the bins it completes are left in `completed`. Returns false when the
    /// sample starts a new stretch after a discontinuity (gap too long or time reversed): the
    /// caller should drop the history it built from earlier bins.
    mutating func add(timeSeconds: Double, ppg: SIMD4<Double>, acceleration: SIMD4<Double>?) -> Bool {
        var index = binIndex(timeSeconds: timeSeconds)
        var continuous = true
        completedCount = 0
        if let current = open, index > current {
            completed[0] = closeBin(index: current)
            completedCount = 1
        }
        if open == nil {
            if let last = lastClosed {
                let missing = index - last - 1
                if index < last || missing > maximumFilledGapBins {
                    // Backwards, or a gap too long to bridge.
                    reset()
                    completedCount = 0
                    continuous = false
                } else if index == last {
                    // Jitter into a bin already closed: the sample opens the next one.
                    index = last + 1
                } else if missing > 0, let previous = lastEmitted {
                    for k in 1...missing {
                        let f = Double(k) / Double(missing + 1)
                        var filled = previous
                        filled.index = last + k
                        filled.ppg = previous.ppg + (ppg - previous.ppg) * f
                        if let a = acceleration, previous.hasAcceleration {
                            filled.acceleration = previous.acceleration + (a - previous.acceleration) * f
                        }
                        filled.stuck = .init()
                        filled.interpolated = true
                        completed[completedCount] = filled
                        completedCount += 1
                    }
                    lastEmitted = completed[completedCount - 1]
                    lastClosed = index - 1
                }
            }
            open = index
        }
        // A sample behind the open bin (jitter across a boundary) is counted in it.
        if let previous = previousRaw {
            let same = SIMD4<Double>(
                ppg[0] == previous[0] ? 1 : 0, ppg[1] == previous[1] ? 1 : 0,
                ppg[2] == previous[2] ? 1 : 0, ppg[3] == previous[3] ? 1 : 0)
            stuckSoFar = stuckSoFar * same
        } else {
            stuckSoFar = .init()
        }
        previousRaw = ppg
        sum += ppg
        samples += 1
        if let a = acceleration {
            accelerationSum += a
            accelerationSamples += 1
        }
        return continuous
    }

    private mutating func closeBin(index: Int) -> ResampledBin {
        let n = Double(max(samples, 1))
        var bin = ResampledBin(index: index, ppg: sum / n, acceleration: .init(), hasAcceleration: false,
                               stuck: samples > 0 ? stuckSoFar : .init(), interpolated: false)
        if accelerationSamples > 0 {
            bin.acceleration = accelerationSum / Double(accelerationSamples)
            bin.hasAcceleration = true
        } else if let last = lastEmitted, last.hasAcceleration {
            // No acceleration in this bin: hold the last value so the filters see no step.
            bin.acceleration = last.acceleration
            bin.hasAcceleration = true
        }
        sum = .init(); accelerationSum = .init()
        samples = 0; accelerationSamples = 0
        stuckSoFar = .init(repeating: 1)
        lastEmitted = bin
        lastClosed = index
        open = nil
        return bin
    }
}
