import RealModule

/// Removes from blocks of samples their least-squares fit on a set of columns (a constant,
/// sinusoids, any other regressor such as a delayed acceleration axis): the projection onto
/// the columns' span is taken away and everything else is left. For a sinusoid this is a
/// notch only about one frequency resolution (1 / block length) wide, much narrower than a
/// spectral mask.
///
/// The columns are set once per block layout (`begin`, `add...`, `factor`), then any number
/// of blocks are fitted against them (`removeFit`): the Gram matrix and its factor are shared.
/// The normal equations are scaled to a unit diagonal before the Cholesky factorisation
/// (columns in g and in counts are then alike), with a 1e-9 ridge so that a zero or
/// duplicated column gets a zero coefficient instead of stopping the fit.
///
/// Sized once for a maximum block length and number of columns; allocation-free after.
public struct LeastSquaresFit: Sendable {
    public let maximumCount: Int
    public let maximumColumns: Int
    /// Columns set so far.
    public private(set) var columnCount = 0
    private var count = 0
    private var basis: [Double]        // column-major: column j at j * maximumCount
    private var gram: [Double]         // lower triangle, then the Cholesky factor
    private var scale: [Double]        // 1 / sqrt(diagonal of the Gram matrix)
    private var coefficients: [Double]
    private var factored = false

    /// Relative ridge on the unit diagonal of the scaled normal equations.
    static let ridge = 1e-9

    public init(maximumCount: Int, maximumColumns: Int) {
        self.maximumCount = maximumCount
        self.maximumColumns = maximumColumns
        basis = Array(repeating: 0, count: maximumColumns * maximumCount)
        gram = Array(repeating: 0, count: maximumColumns * maximumColumns)
        scale = Array(repeating: 0, count: maximumColumns)
        coefficients = scale
    }

    /// Starts a new set of columns for blocks of `count` samples.
    public mutating func begin(count: Int) {
        precondition(count <= maximumCount, "LeastSquaresFit block longer than its maximum")
        self.count = count
        columnCount = 0
        factored = false
    }

    /// Adds a constant column.
    public mutating func addConstant() {
        addColumn { column, n in for i in 0..<n { column[i] = 1 } }
    }

    /// Adds cos and sin columns at `cyclesPerSample` (frequency / sample rate).
    public mutating func addSinusoid(cyclesPerSample: Double) {
        let w = 2 * Double.pi * cyclesPerSample
        let cw = Double.cos(w), sw = Double.sin(w)
        // Rotation recurrence, re-anchored every 64 samples to bound the rounding drift.
        addColumn { column, n in
            var c = 1.0, s = 0.0
            for i in 0..<n {
                if i & 63 == 0 { c = Double.cos(w * Double(i)); s = Double.sin(w * Double(i)) }
                column[i] = c
                let next = c * cw - s * sw
                s = s * cw + c * sw
                c = next
            }
        }
        addColumn { column, n in
            var c = 1.0, s = 0.0
            for i in 0..<n {
                if i & 63 == 0 { c = Double.cos(w * Double(i)); s = Double.sin(w * Double(i)) }
                column[i] = s
                let next = c * cw - s * sw
                s = s * cw + c * sw
                c = next
            }
        }
    }

    /// Adds `values[0..<count]` delayed by `lag` samples: column[i] = values[i - lag], held at
    /// the block's first and last value where i - lag falls outside it (no sample from
    /// outside the block is needed).
    public mutating func addDelayed(_ values: [Double], lag: Int) {
        addColumn { column, n in
            values.withUnsafeBufferPointer { v in
                for i in 0..<n { column[i] = v[min(n - 1, max(0, i - lag))] }
            }
        }
    }

    /// Adds a column written by `fill` into a buffer of `count` values.
    public mutating func addColumn(_ fill: (UnsafeMutablePointer<Double>, Int) -> Void) {
        precondition(columnCount < maximumColumns, "LeastSquaresFit has room for \(maximumColumns) columns")
        let n = count, base = columnCount * maximumCount
        basis.withUnsafeMutableBufferPointer { b in fill(b.baseAddress! + base, n) }
        columnCount += 1
        factored = false
    }

    /// Forms the Gram matrix of the columns and factors it. False when there is nothing to
    /// fit (no columns, or no more samples than columns): `removeFit` then leaves blocks alone.
    @discardableResult
    public mutating func factor() -> Bool {
        let p = columnCount, n = count, columnStride = maximumCount
        guard p > 0, n > p else { factored = false; return false }
        factored = basis.withUnsafeBufferPointer { b in
            gram.withUnsafeMutableBufferPointer { g in
                scale.withUnsafeMutableBufferPointer { d in
                    for i in 0..<p {
                        let ci = b.baseAddress! + i * columnStride
                        for j in 0...i {
                            let cj = b.baseAddress! + j * columnStride
                            var sum = 0.0
                            for k in 0..<n { sum += ci[k] * cj[k] }
                            g[i * p + j] = sum
                        }
                    }
                    for i in 0..<p { d[i] = g[i * p + i] > 0 ? 1 / g[i * p + i].squareRoot() : 0 }
                    for i in 0..<p {
                        for j in 0...i { g[i * p + j] *= d[i] * d[j] }
                        g[i * p + i] += Self.ridge
                    }
                    return Self.cholesky(g.baseAddress!, p)
                }
            }
        }
        return factored
    }

    /// Replaces `block[0..<count]` by its residual after the fit on the columns.
    public mutating func removeFit(from block: inout [Double]) {
        let p = columnCount, n = count, columnStride = maximumCount
        guard factored else { return }
        basis.withUnsafeBufferPointer { b in
            gram.withUnsafeBufferPointer { l in
                scale.withUnsafeBufferPointer { d in
                    coefficients.withUnsafeMutableBufferPointer { r in
                        block.withUnsafeMutableBufferPointer { y in
                            for i in 0..<p {
                                let c = b.baseAddress! + i * columnStride
                                var sum = 0.0
                                for k in 0..<n { sum += c[k] * y[k] }
                                r[i] = sum * d[i]
                            }
                            // Forward, then back substitution with L (L Lᵀ = scaled Gram).
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
                                let coefficient = r[i] * d[i]
                                let c = b.baseAddress! + i * columnStride
                                for k in 0..<n { y[k] -= coefficient * c[k] }
                            }
                        }
                    }
                }
            }
        }
    }

    /// In-place Cholesky factorisation of the p × p lower triangle at `g`; false when the
    /// matrix is not positive definite.
    private static func cholesky(_ g: UnsafeMutablePointer<Double>, _ p: Int) -> Bool {
        for j in 0..<p {
            var diagonal = g[j * p + j]
            for k in 0..<j { diagonal -= g[j * p + k] * g[j * p + k] }
            guard diagonal > 0 else { return false }
            let root = diagonal.squareRoot()
            g[j * p + j] = root
            for i in (j + 1)..<max(j + 1, p) {
                var v = g[i * p + j]
                for k in 0..<j { v -= g[i * p + k] * g[j * p + k] }
                g[i * p + j] = v / root
            }
        }
        return true
    }
}
