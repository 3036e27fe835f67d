import RealModule

/// Removes from blocks of samples their least-squares fit on a set of columns (a constant,
/// sinusoids, delayed copies of a regressor such as an acceleration axis, any other column):
/// the projection onto the columns' span is taken away and everything else is left. For a
/// sinusoid this is a notch only about one frequency resolution (1 / block length) wide,
/// much narrower than a spectral mask.
///
/// The columns are set once per block layout (`begin`, `add...`, `factor`), then any number
/// of blocks are fitted against them (`removeFit`): the Gram matrix and its factor are shared.
/// The normal equations are scaled to a unit diagonal before the Cholesky factorisation
/// (columns in g and in counts are then alike), with a 1e-9 ridge so that a zero or
/// duplicated column gets a zero coefficient instead of stopping the fit.
///
/// The Gram matrix knows its columns: products of the constant and sinusoids are sums of
/// cosines, in closed form; a delayed copy's product with a sinusoid is its undelayed copy's,
/// turned by the delay's phase, corrected at the block's edges. Only the rest are summed.
///
/// Sized once for a maximum block length and number of columns; allocation-free after.
public struct LeastSquaresFit: Sendable {
    public let maximumCount: Int
    public let maximumColumns: Int
    /// Columns set so far.
    public private(set) var columnCount = 0

    private enum Kind: Sendable {
        /// A column of ones: cos(0 n).
        case constant
        /// cos(ω n) or sin(ω n), with the index of its partner.
        case cosine(radiansPerSample: Double, sine: Int)
        case sine(radiansPerSample: Double, cosine: Int)
        /// values[n - lag] held at the edges; `undelayed` is the column with lag 0.
        case delayed(lag: Int, undelayed: Int)
        case general
    }

    private var count = 0
    private var kinds: [Kind]
    /// Per sinusoid column: e^{iω} and e^{iωn} (n = count); (1, 0) for the constant.
    private var unitTurn: [SIMD2<Double>]
    private var blockTurn: [SIMD2<Double>]
    private var basis: [Double]        // column-major: column j at j * maximumCount
    private var gram: [Double]         // full p × p, then the Cholesky factor in the lower triangle
    private var scale: [Double]        // 1 / sqrt(diagonal of the Gram matrix)
    private var coefficients: [Double]
    private var factored = false

    /// Values held, for tests of fixed memory (a turn counts two).
    var bufferElementCount: Int {
        kinds.count + 2 * unitTurn.count + 2 * blockTurn.count + basis.count + gram.count + scale.count + coefficients.count
    }

    /// Relative ridge on the unit diagonal of the scaled normal equations.
    static let ridge = 1e-9

    public init(maximumCount: Int, maximumColumns: Int) {
        precondition(maximumColumns <= 64, "LeastSquaresFit takes at most 64 columns")
        self.maximumCount = maximumCount
        self.maximumColumns = maximumColumns
        kinds = Array(repeating: .general, count: maximumColumns)
        unitTurn = Array(repeating: SIMD2(1, 0), count: maximumColumns)
        blockTurn = unitTurn
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
        unitTurn[columnCount] = SIMD2(1, 0)
        blockTurn[columnCount] = SIMD2(1, 0)
        addColumn(kind: .constant) { column, n in for i in 0..<n { column[i] = 1 } }
    }

    /// Adds cos and sin columns at `cyclesPerSample` (frequency / sample rate).
    public mutating func addSinusoid(cyclesPerSample: Double) {
        precondition(columnCount + 2 <= maximumColumns, "LeastSquaresFit has room for \(maximumColumns) columns")
        let w = 2 * Double.pi * cyclesPerSample
        let first = columnCount, n = count
        let turn = SIMD2(Double.cos(w), Double.sin(w))
        let whole = SIMD2(Double.cos(w * Double(n)), Double.sin(w * Double(n)))
        for j in first...(first + 1) { unitTurn[j] = turn; blockTurn[j] = whole }
        basis.withUnsafeMutableBufferPointer { b in
            let cosine = b.baseAddress! + first * maximumCount, sine = cosine + maximumCount
            // Rotation recurrence, re-anchored every 64 samples to bound the rounding drift.
            var c = 1.0, s = 0.0
            for i in 0..<n {
                if i & 63 == 0, i > 0 { c = Double.cos(w * Double(i)); s = Double.sin(w * Double(i)) }
                cosine[i] = c
                sine[i] = s
                let next = c * turn.x - s * turn.y
                s = s * turn.x + c * turn.y
                c = next
            }
        }
        kinds[first] = .cosine(radiansPerSample: w, sine: first + 1)
        kinds[first + 1] = .sine(radiansPerSample: w, cosine: first)
        columnCount += 2
        factored = false
    }

    /// Adds three columns: `values[0..<count]` delayed by -`lag`, 0 and +`lag` samples
    /// (column[i] = values[i - delay], held at the block's first and last value where i - delay
    /// falls outside it: no sample from outside the block is needed). `lag` > 0.
    public mutating func addDelayed(_ values: [Double], lag: Int) {
        precondition(lag > 0 && lag < count, "LeastSquaresFit delay out of range")
        let undelayed = columnCount + 1
        values.withUnsafeBufferPointer { v in
            let source = v.baseAddress!
            for tap in -1...1 {
                let delay = tap * lag
                addColumn(kind: delay == 0 ? .general : .delayed(lag: delay, undelayed: undelayed)) { column, n in
                    if delay >= 0 {
                        column.update(repeating: source[0], count: delay)
                        (column + delay).update(from: source, count: n - delay)
                    } else {
                        column.update(from: source - delay, count: n + delay)
                        (column + n + delay).update(repeating: source[n - 1], count: -delay)
                    }
                }
            }
        }
    }

    /// Adds a column written by `fill` into a buffer of `count` values.
    public mutating func addColumn(_ fill: (UnsafeMutablePointer<Double>, Int) -> Void) {
        addColumn(kind: .general, fill)
    }

    private mutating func addColumn(kind: Kind, _ fill: (UnsafeMutablePointer<Double>, Int) -> Void) {
        precondition(columnCount < maximumColumns, "LeastSquaresFit has room for \(maximumColumns) columns")
        let n = count, base = columnCount * maximumCount
        basis.withUnsafeMutableBufferPointer { b in fill(b.baseAddress! + base, n) }
        kinds[columnCount] = kind
        columnCount += 1
        factored = false
    }

    /// Forms the Gram matrix of the columns and factors it. False when there is nothing to
    /// fit (no columns, or no more samples than columns): `removeFit` then leaves blocks alone.
    @discardableResult
    public mutating func factor() -> Bool {
        let p = columnCount, n = count
        guard p > 0, n > p else { factored = false; return false }
        formGram()
        factored = gram.withUnsafeMutableBufferPointer { g in
            scale.withUnsafeMutableBufferPointer { d in
                for i in 0..<p { d[i] = g[i * p + i] > 0 ? 1 / g[i * p + i].squareRoot() : 0 }
                for i in 0..<p {
                    for j in 0...i { g[i * p + j] *= d[i] * d[j] }
                    g[i * p + i] += Self.ridge
                }
                return Self.cholesky(g.baseAddress!, p)
            }
        }
        return factored
    }

    /// The lower triangle of BᵀB (entry (i, j), i ≥ j, at i × p + j), from the columns' kinds
    /// where it can, by summing where it must.
    private mutating func formGram() {
        let p = columnCount, n = count, stride = maximumCount, kinds = self.kinds, turns = unitTurn, wholes = blockTurn
        basis.withUnsafeBufferPointer { b in
            gram.withUnsafeMutableBufferPointer { g in
                let base = b.baseAddress!
                // How each column's products are had: 0 summed, 1 closed form (the constant and
                // sinusoids), 2 turned from the undelayed column (delayed copies).
                var way = (UInt64(0), UInt64(0))   // bit i: column i is a sinusoid / delayed
                for i in 0..<p {
                    if Self.isSinusoid(kinds[i]) { way.0 |= 1 << UInt64(i) }
                    if case .delayed = kinds[i] { way.1 |= 1 << UInt64(i) }
                }
                func sinusoid(_ i: Int) -> Bool { way.0 & (1 << UInt64(i)) != 0 }
                func delayed(_ i: Int) -> Bool { way.1 & (1 << UInt64(i)) != 0 }
                // First the sums: pairs that have no closed form, and each undelayed column
                // with each sinusoid (the delayed copies are turned from these below).
                for i in 0..<p {
                    for j in 0...i {
                        if sinusoid(i) ? sinusoid(j) || delayed(j) : delayed(i) && sinusoid(j) { continue }
                        g[i * p + j] = VectorKernels.dot(base + i * stride, base + j * stride, n)
                    }
                }
                for i in 0..<p {
                    for j in 0...i {
                        if sinusoid(i) && sinusoid(j) {
                            g[i * p + j] = Self.sinusoidProduct(i, j, n, kinds, turns, wholes)
                        } else if delayed(i) && sinusoid(j) {
                            g[i * p + j] = Self.delayedProduct(delayed: i, sinusoid: j, kinds, p, n, stride, g, base)
                        } else if sinusoid(i) && delayed(j) {
                            g[i * p + j] = Self.delayedProduct(delayed: j, sinusoid: i, kinds, p, n, stride, g, base)
                        }
                    }
                }
            }
        }
    }

    private static func isSinusoid(_ kind: Kind) -> Bool {
        switch kind {
        case .constant, .cosine, .sine: true
        default: false
        }
    }

    private static func isSine(_ kind: Kind) -> Bool {
        if case .sine = kind { return true }
        return false
    }

    /// Σ z^k for k < n, given z and z^n: (1 - z^n) / (1 - z), or n when z = 1.
    @inline(__always)
    private static func geometricSum(_ z: SIMD2<Double>, _ zn: SIMD2<Double>, _ n: Int) -> SIMD2<Double> {
        let c = 1 - z.x, d = -z.y
        let magnitude = c * c + d * d
        guard magnitude > 1e-24 else { return SIMD2(Double(n), 0) }
        let a = 1 - zn.x, b = -zn.y
        return SIMD2(a * c + b * d, b * c - a * d) / magnitude
    }

    @inline(__always)
    private static func times(_ u: SIMD2<Double>, _ v: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(u.x * v.x - u.y * v.y, u.x * v.y + u.y * v.x)
    }

    /// Σ f(ωa k) g(ωb k) for two sinusoid (or constant) columns a and b, f and g each cos or
    /// sin: half the sum or difference of Σ e^{i(ωa ± ωb)k}, geometric sums.
    private static func sinusoidProduct(_ a: Int, _ b: Int, _ n: Int, _ kinds: [Kind],
                                        _ unitTurn: [SIMD2<Double>], _ blockTurn: [SIMD2<Double>]) -> Double {
        let conjugate = SIMD2<Double>(1, -1)
        let sum = geometricSum(times(unitTurn[a], unitTurn[b]), times(blockTurn[a], blockTurn[b]), n)
        let difference = geometricSum(times(unitTurn[a], unitTurn[b] * conjugate), times(blockTurn[a], blockTurn[b] * conjugate), n)
        switch (isSine(kinds[a]), isSine(kinds[b])) {
        case (false, false): return 0.5 * (difference.x + sum.x)     // cos a cos b
        case (true, true): return 0.5 * (difference.x - sum.x)       // sin a sin b
        case (true, false): return 0.5 * (sum.y + difference.y)      // sin a cos b
        case (false, true): return 0.5 * (sum.y - difference.y)      // cos a sin b
        }
    }

    /// Σ d[k] f(ωk) for the delayed column `delayed` (values[k - lag], held at the edges) and
    /// the sinusoid column `sinusoid` (f = cos or sin), from the undelayed column's products
    /// with cos(ωk) and sin(ωk), already in `g`.
    private static func delayedProduct(delayed: Int, sinusoid: Int, _ kinds: [Kind], _ p: Int, _ n: Int, _ stride: Int,
                                       _ g: UnsafeMutableBufferPointer<Double>, _ base: UnsafePointer<Double>) -> Double {
        guard case .delayed(let lag, let undelayed) = kinds[delayed] else { return 0 }
        let isSine = Self.isSine(kinds[sinusoid])
        // The columns holding cos(ωk) and sin(ωk) (the constant is cos(0k); sin(0k) is 0).
        var cosineColumn = sinusoid, sineColumn = -1
        switch kinds[sinusoid] {
        case .cosine(_, let partner): sineColumn = partner
        case .sine(_, let partner): cosineColumn = partner; sineColumn = sinusoid
        default: break
        }
        func product(_ column: Int) -> Double {
            column < 0 ? 0 : (undelayed >= column ? g[undelayed * p + column] : g[column * p + undelayed])
        }
        func turn(_ k: Int) -> (cos: Double, sin: Double) {
            (base[cosineColumn * stride + k], sineColumn < 0 ? 0 : base[sineColumn * stride + k])
        }
        // The undelayed column's A = Σ a[k] e^{iωk}.
        let a = base + undelayed * stride
        var re = product(cosineColumn), im = product(sineColumn)
        // T = e^{iωl} (A - Σ over the samples pushed out) + the held edge value × Σ e^{iωk}
        // over the samples it fills.
        if lag > 0 {
            for k in (n - lag)..<n { let e = turn(k); re -= a[k] * e.cos; im -= a[k] * e.sin }
        } else {
            for k in 0..<(-lag) { let e = turn(k); re -= a[k] * e.cos; im -= a[k] * e.sin }
        }
        // e^{iω lag}, read from the columns (cos and sin at k = |lag|).
        let turnBy = turn(abs(lag))
        let c = turnBy.cos, s = lag > 0 ? turnBy.sin : -turnBy.sin
        var tr = re * c - im * s, ti = re * s + im * c
        if lag > 0 {
            for k in 0..<lag { let e = turn(k); tr += a[0] * e.cos; ti += a[0] * e.sin }
        } else {
            for k in (n + lag)..<n { let e = turn(k); tr += a[n - 1] * e.cos; ti += a[n - 1] * e.sin }
        }
        return isSine ? ti : tr
    }

    /// Replaces `block[0..<count]` by its residual after the fit on the columns.
    public mutating func removeFit(from block: inout [Double]) {
        let p = columnCount, n = count, stride = maximumCount
        guard factored else { return }
        basis.withUnsafeBufferPointer { b in
            gram.withUnsafeBufferPointer { l in
                scale.withUnsafeBufferPointer { d in
                    coefficients.withUnsafeMutableBufferPointer { r in
                        block.withUnsafeMutableBufferPointer { y in
                            let base = b.baseAddress!, values = y.baseAddress!
                            for i in 0..<p { r[i] = VectorKernels.dot(base + i * stride, values, n) * d[i] }
                            // Forward, then back substitution with L (L Lᵀ = scaled Gram).
                            let factor = l.baseAddress!, solution = r.baseAddress!
                            for i in 0..<p {
                                r[i] = (r[i] - VectorKernels.dot(factor + i &* p, solution, i)) / l[i &* p &+ i]
                            }
                            for i in Swift.stride(from: p - 1, through: 0, by: -1) {
                                var v = r[i]
                                for k in (i + 1)..<max(i + 1, p) { v -= l[k * p + i] * r[k] }
                                r[i] = v / l[i * p + i]
                            }
                            for i in 0..<p { VectorKernels.subtractScaled(r[i] * d[i], base + i * stride, from: values, n) }
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
            let rowJ = g + j &* p
            let diagonal = rowJ[j] - VectorKernels.dot(rowJ, rowJ, j)
            guard diagonal > 0 else { return false }
            let root = diagonal.squareRoot()
            rowJ[j] = root
            var i = j &+ 1
            while i < p {
                let rowI = g + i &* p
                rowI[j] = (rowI[j] - VectorKernels.dot(rowI, rowJ, j)) / root
                i &+= 1
            }
        }
        return true
    }
}
