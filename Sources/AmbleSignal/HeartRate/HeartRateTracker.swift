import RealModule

/// Tracks the heart rate over time as a hidden Markov model on a grid of rates (forward
/// filtering only, so each estimate uses the past alone).
///
/// Between two observations the rate diffuses (Gaussian, `driftBPM` standard deviation per
/// `referenceStepSeconds`, growing with the square root of the elapsed time) and may jump
/// anywhere with a small probability (to recover after a wrong lock). Each observation is a
/// likelihood on the grid; one made after a shorter time than `referenceStepSeconds` counts
/// proportionally less (its window overlaps the previous one more).
struct HeartRateTracker {
    var driftBPM = 5.0
    var jumpProbability = 0.001
    var referenceStepSeconds = 2.0

    let grid: HeartRateGrid
    private(set) var posterior: [Double]
    private(set) var started = false
    private var prior: [Double]
    private var kernel: [Double]
    private var kernelSigma = -1.0

    init(grid: HeartRateGrid) {
        self.grid = grid
        posterior = Array(repeating: 1 / Double(grid.count), count: grid.count)
        prior = posterior
        kernel = []
        kernel.reserveCapacity(2 * Int(4 * 40 / grid.stepBPM) + 1)
    }

    /// Back to no knowledge (uniform over the grid).
    mutating func reset() {
        for i in posterior.indices { posterior[i] = 1 / Double(grid.count) }
        started = false
    }

    /// Lets `elapsedSeconds` pass without an observation.
    mutating func predict(elapsedSeconds: Double) {
        guard started, elapsedSeconds > 0 else { return }
        let steps = elapsedSeconds / referenceStepSeconds
        let sigma = min(40, driftBPM * steps.squareRoot())
        if sigma != kernelSigma { buildKernel(sigma: sigma) }
        let half = kernel.count / 2
        let n = grid.count
        var total = 0.0
        posterior.withUnsafeBufferPointer { p in
            prior.withUnsafeMutableBufferPointer { q in
                kernel.withUnsafeBufferPointer { k in
                    for i in 0..<n {
                        var acc = 0.0
                        let lo = max(0, i - half), hi = min(n - 1, i + half)
                        for j in lo...hi { acc += p[j] * k[j - i + half] }
                        q[i] = acc
                        total += acc
                    }
                }
            }
        }
        let jump = 1 - Double.pow(1 - jumpProbability, steps)
        let uniform = jump / Double(n)
        let keep = total > 0 ? (1 - jump) / total : 0
        for i in 0..<n { posterior[i] = prior[i] * keep + uniform }
    }

    /// Multiplies in an observation's likelihood (`likelihood[i]` > 0 for each grid rate),
    /// tempered by `weight` (0...1) as likelihood^weight.
    mutating func update(likelihood: [Double], weight: Double) {
        var total = 0.0
        for i in 0..<grid.count {
            let l = weight == 1 ? likelihood[i] : Double.pow(likelihood[i], weight)
            posterior[i] *= l
            total += posterior[i]
        }
        if total > 0 && total.isFinite {
            for i in posterior.indices { posterior[i] /= total }
        } else {
            reset()
        }
        started = true
    }

    /// The most probable rate, refined as the posterior mean over ±`refineBins` grid points
    /// around it, and the posterior mass within ±`massBPM` of it.
    func mostProbable(refineBins: Int = 3, massBPM: Double = 5) -> (bpm: Double, mass: Double, index: Int) {
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
