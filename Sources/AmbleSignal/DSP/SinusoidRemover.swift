import RealModule

/// Removes a constant and sinusoids of given frequencies from a block of samples by linear
/// least squares (a projection), leaving everything else: a notch only about one frequency
/// resolution (1 / block length) wide, much narrower than a spectral mask.
///
/// Sized once for a maximum block length and number of sinusoids; allocation-free after.
public struct SinusoidRemover: Sendable {
    public let maximumCount: Int
    public let maximumSinusoids: Int
    private var basis: [Double]        // columns, column-major: (1 + 2 * sinusoids) x count
    private var gram: [Double]
    private var rhs: [Double]
    private var columns = 0
    private var count = 0
    private var factored = false

    public init(maximumCount: Int, maximumSinusoids: Int) {
        self.maximumCount = maximumCount
        self.maximumSinusoids = maximumSinusoids
        let p = 1 + 2 * maximumSinusoids
        basis = Array(repeating: 0, count: p * maximumCount)
        gram = Array(repeating: 0, count: p * p)
        rhs = Array(repeating: 0, count: p)
    }

    /// Prepares the basis for blocks of `count` samples at `sampleRateHz` and sinusoids at
    /// `frequenciesHz` (at most `maximumSinusoids`; extra ones are ignored).
    public mutating func prepare(count: Int, sampleRateHz: Double, frequenciesHz: [Double], frequencyCount: Int) {
        precondition(count <= maximumCount)
        self.count = count
        let m = min(frequencyCount, maximumSinusoids)
        columns = 1 + 2 * m
        for n in 0..<count { basis[n] = 1 }
        for j in 0..<m {
            let w = 2 * Double.pi * frequenciesHz[j] / sampleRateHz
            // Rotation recurrence, re-anchored every 64 samples to bound rounding drift.
            let cosBase = (1 + 2 * j) * count, sinBase = (2 + 2 * j) * count
            let cw = Double.cos(w), sw = Double.sin(w)
            var c = 1.0, s = 0.0
            for n in 0..<count {
                if n & 63 == 0 { c = Double.cos(w * Double(n)); s = Double.sin(w * Double(n)) }
                basis[cosBase + n] = c
                basis[sinBase + n] = s
                let nc = c * cw - s * sw
                s = s * cw + c * sw
                c = nc
            }
        }
        factored = factor()
    }

    /// Replaces `block[0..<count]` by its residual after the fit prepared above.
    public mutating func removeFit(from block: inout [Double]) {
        let p = columns, n = count
        guard factored, p > 0, n > p else { return }
        basis.withUnsafeBufferPointer { b in
            gram.withUnsafeBufferPointer { l in
                rhs.withUnsafeMutableBufferPointer { r in
                    block.withUnsafeMutableBufferPointer { y in
                        for i in 0..<p {
                            var acc = 0.0
                            for k in 0..<n { acc += b[i * n + k] * y[k] }
                            r[i] = acc
                        }
                        // Forward then back substitution with the Cholesky factor L (L Lᵀ = G).
                        for i in 0..<p {
                            var v = r[i]
                            for k in 0..<i { v -= l[i * p + k] * r[k] }
                            r[i] = v / l[i * p + i]
                        }
                        for i in stride(from: p - 1, through: 0, by: -1) {
                            var v = r[i]
                            for k in (i + 1)..<max(i + 1, p) { v -= l[k * p + i] * r[k] }
                            r[i] = v / l[i * p + i]
                        }
                        for i in 0..<p {
                            let coefficient = r[i]
                            for k in 0..<n { y[k] -= coefficient * b[i * n + k] }
                        }
                    }
                }
            }
        }
    }

    /// Forms the Gram matrix of the basis and factors it (Cholesky, lower triangle, with a
    /// tiny ridge for near-coincident frequencies). False when it is not positive definite.
    private mutating func factor() -> Bool {
        let p = columns, n = count
        guard n > p else { return false }
        return basis.withUnsafeBufferPointer { b in
            gram.withUnsafeMutableBufferPointer { g in
                for i in 0..<p {
                    for j in 0...i {
                        var gij = 0.0
                        for k in 0..<n { gij += b[i * n + k] * b[j * n + k] }
                        g[i * p + j] = gij
                    }
                }
                var trace = 0.0
                for i in 0..<p { trace += g[i * p + i] }
                let ridge = 1e-9 * trace / Double(p)
                for i in 0..<p { g[i * p + i] += ridge }
                for j in 0..<p {
                    var d = g[j * p + j]
                    for k in 0..<j { d -= g[j * p + k] * g[j * p + k] }
                    guard d > 0 else { return false }
                    let diagonal = d.squareRoot()
                    g[j * p + j] = diagonal
                    for i in (j + 1)..<max(j + 1, p) {
                        var v = g[i * p + j]
                        for k in 0..<j { v -= g[i * p + k] * g[j * p + k] }
                        g[i * p + j] = v / diagonal
                    }
                }
                return true
            }
        }
    }
}
