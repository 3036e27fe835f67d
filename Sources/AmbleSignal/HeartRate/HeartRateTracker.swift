import RealModule

/// Tracks the heart rate over time on a grid of rates: a forward filter (the past alone
/// decides each estimate).
///
/// Before the first window the rate is that of a population at the start of a session.
/// Between two windows it diffuses (Gaussian, `driftBPM` standard deviation per
/// `referenceStepSeconds`, growing with the square root of the elapsed time) and may jump
/// anywhere with a small probability (to recover from a wrong lock). Each window multiplies in
/// its likelihood; a window that comes sooner than `referenceStepSeconds` after the previous
/// one shares more of its samples with it and counts proportionally less (likelihood^weight).
struct HeartRateTracker {
    let grid: HeartRateGrid
    private let parameters: HeartRateEstimator.Parameters
    private(set) var posterior: [Double]
    private(set) var started = false
    private var prior: [Double]
    private var kernel: [Double]
    private var kernelSigma = -1.0
    /// The widest drift kernel, bpm standard deviation (after a long gap: nearly uniform).
    static let widestDriftBPM = 40.0

    init(grid: HeartRateGrid, parameters: HeartRateEstimator.Parameters) {
        self.grid = grid
        self.parameters = parameters
        posterior = Array(repeating: 1 / Double(grid.count), count: grid.count)
        prior = posterior
        kernel = []
        kernel.reserveCapacity(2 * Int((4 * Self.widestDriftBPM / grid.stepBPM).rounded(.up)) + 1)
    }

    /// Values held, for tests of fixed memory.
    var bufferElementCount: Int { posterior.count + prior.count + kernel.capacity }

    /// Lets `elapsedSeconds` pass without an observation.
    mutating func predict(elapsedSeconds: Double) {
        guard started, elapsedSeconds > 0 else { return }
        let steps = elapsedSeconds / parameters.referenceStepSeconds
        let sigma = min(Self.widestDriftBPM, parameters.driftBPM * steps.squareRoot())
        if sigma != kernelSigma { buildKernel(sigma: sigma) }
        let half = kernel.count / 2, taps = kernel.count
        let n = grid.count
        var total = 0.0
        posterior.withUnsafeBufferPointer { p in
            prior.withUnsafeMutableBufferPointer { q in
                kernel.withUnsafeBufferPointer { k in
                    // Output by output, eight at a time where every tap falls on the grid; the
                    // kernel is cut at the grid's ends, as the rate cannot leave it. Each output
                    // sums its taps in tap order, one product at a time: the same to the last bit
                    // as passing over the grid once per tap, which reads and writes each output
                    // once per tap (half as many instructions again).
                    let source = UnsafeRawPointer(p.baseAddress!)
                    var i = 0
                    while i < n {
                        if i >= half, i &+ 7 &+ half < n {
                            var s0 = SIMD2<Double>(), s1 = SIMD2<Double>(), s2 = SIMD2<Double>(), s3 = SIMD2<Double>()
                            var offset = (i &- half) &* 8
                            for t in 0..<taps {
                                let w = SIMD2(repeating: k[t])
                                s0 += w * source.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
                                s1 += w * source.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
                                s2 += w * source.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD2<Double>.self)
                                s3 += w * source.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD2<Double>.self)
                                offset &+= 8
                            }
                            q[i] = s0.x; q[i &+ 1] = s0.y; q[i &+ 2] = s1.x; q[i &+ 3] = s1.y
                            q[i &+ 4] = s2.x; q[i &+ 5] = s2.y; q[i &+ 6] = s3.x; q[i &+ 7] = s3.y
                            i &+= 8
                        } else {
                            var sum = 0.0
                            for t in max(0, half &- i)..<min(taps, n &+ half &- i) { sum += k[t] * p[i &+ t &- half] }
                            q[i] = sum
                            i &+= 1
                        }
                    }
                    for i in 0..<n { total += q[i] }
                }
            }
        }
        let jump = 1 - Double.pow(1 - parameters.jumpProbability, steps)
        let uniform = jump / Double(n)
        let keep = total > 0 ? (1 - jump) / total : 0
        for i in 0..<n { posterior[i] = prior[i] * keep + uniform }
    }

    /// Multiplies in a window's log-likelihood (`grid.count` values), tempered by `weight`
    /// (0...1).
    mutating func update(logLikelihood: [Double], weight: Double) {
        if !started {
            for i in 0..<grid.count {
                let z = (grid.bpm(i) - parameters.startBPM) / parameters.startSpreadBPM
                posterior[i] = Double.exp(-0.5 * z * z) + parameters.startFloor
            }
            started = true
        }
        var peak = -Double.infinity
        for v in logLikelihood where v > peak { peak = v }
        var total = 0.0
        for i in 0..<grid.count {
            posterior[i] *= Double.exp(weight * (logLikelihood[i] - peak))
            total += posterior[i]
        }
        if total > 0 && total.isFinite {
            for i in posterior.indices { posterior[i] /= total }
        } else {
            for i in posterior.indices { posterior[i] = 1 / Double(grid.count) }
        }
    }

    /// The most probable rate, refined as the posterior mean over ±`refineBins` grid points
    /// around it, and the posterior mass within ±`massBPM` of it.
    func mostProbable(refineBins: Int, massBPM: Double) -> (bpm: Double, mass: Double, index: Int) {
        var best = 0
        for i in 1..<grid.count where posterior[i] > posterior[best] { best = i }
        var weight = 0.0, sum = 0.0
        for i in max(0, best - refineBins)...min(grid.count - 1, best + refineBins) {
            weight += posterior[i]
            sum += posterior[i] * grid.bpm(i)
        }
        let bpm = weight > 0 ? sum / weight : grid.bpm(best)
        let reach = Int((massBPM / grid.stepBPM).rounded())
        var mass = 0.0
        for i in max(0, best - reach)...min(grid.count - 1, best + reach) { mass += posterior[i] }
        return (bpm, mass, best)
    }

    private mutating func buildKernel(sigma: Double) {
        kernelSigma = sigma
        let half = max(1, Int((4 * sigma / grid.stepBPM).rounded(.up)))
        kernel.removeAll(keepingCapacity: true)
        var total = 0.0
        for k in -half...half {
            let x = Double(k) * grid.stepBPM / sigma
            let v = Double.exp(-0.5 * x * x)
            kernel.append(v)
            total += v
        }
        for i in kernel.indices { kernel[i] /= total }
    }
}
