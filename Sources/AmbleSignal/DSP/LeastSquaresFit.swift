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
/// cosines, in closed form (for harmonics of one fundamental, from one table of geometric
/// sums); a delayed copy's product with a sinusoid is its undelayed copy's, turned by the
/// delay's phase, corrected at the block's edges. Only the rest are summed.
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
        case cosine(sine: Int)
        case sine(cosine: Int)
        /// values[n - lag] held at the edges; `undelayed` is the column with lag 0.
        case delayed(lag: Int, undelayed: Int)
        case general
    }

    private var count = 0
    private var kinds: [Kind]
    /// Per sinusoid column: e^{iω} and e^{iωn} (n = count); (1, 0) for the constant.
    private var unitTurn: [SIMD2<Double>]
    private var blockTurn: [SIMD2<Double>]
    /// Per column: its order as a harmonic of `fundamental` (0 for the constant), or -1.
    private var harmonicOrder: [Int]
    /// The fundamental of the harmonics (e^{iω}, e^{iωn}), and Σ_k e^{imωk} for m = 0, 1, ...
    private var fundamental: (unit: SIMD2<Double>, block: SIMD2<Double>)?
    private var harmonicSums: [SIMD2<Double>]
    /// Rows for generating harmonics: cos θ and two (cos, sin) pairs.
    private var recurrence: [Double]
    private var basis: [Double]        // column-major: column j at j * maximumCount
    private var gram: [Double]         // full p × p, then the Cholesky factor in the lower triangle
    private var scale: [Double]        // 1 / sqrt(diagonal of the Gram matrix)
    private var coefficients: [Double]
    private var factored = false

    /// Values held, for tests of fixed memory (a turn counts two).
    var bufferElementCount: Int {
        kinds.count + 2 * unitTurn.count + 2 * blockTurn.count + harmonicOrder.count + 2 * harmonicSums.count + recurrence.count
            + basis.count + gram.count + scale.count + coefficients.count
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
        harmonicOrder = Array(repeating: -1, count: maximumColumns)
        harmonicSums = Array(repeating: SIMD2(0, 0), count: 2 * maximumColumns + 1)
        recurrence = Array(repeating: 0, count: 5 * maximumCount)
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
        fundamental = nil
        factored = false
    }

    /// Adds a constant column.
    public mutating func addConstant() {
        unitTurn[columnCount] = SIMD2(1, 0)
        blockTurn[columnCount] = SIMD2(1, 0)
        harmonicOrder[columnCount] = 0
        addColumn(kind: .constant) { column, n in for i in 0..<n { column[i] = 1 } }
    }

    /// Adds cos and sin columns at `cyclesPerSample` (frequency / sample rate).
    public mutating func addSinusoid(cyclesPerSample: Double) {
        precondition(columnCount + 2 <= maximumColumns, "LeastSquaresFit has room for \(maximumColumns) columns")
        let w = 2 * Double.pi * cyclesPerSample
        let first = columnCount, n = count
        let turn = SIMD2(Double.cos(w), Double.sin(w))
        let whole = SIMD2(Double.cos(w * Double(n)), Double.sin(w * Double(n)))
        for j in first...(first + 1) { unitTurn[j] = turn; blockTurn[j] = whole; harmonicOrder[j] = -1 }
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
        kinds[first] = .cosine(sine: first + 1)
        kinds[first + 1] = .sine(cosine: first)
        columnCount += 2
        factored = false
    }

    /// Adds cos and sin columns at each of `orders` times `fundamentalCyclesPerSample` (the
    /// harmonics of one fundamental: the teeth of a gait comb), by the Chebyshev recurrence
    /// cos((k + 1)θ) = 2 cos θ cos kθ - cos (k - 1)θ (and the same for sin). One fundamental
    /// per set of columns; orders 1...`maximumColumns`.
    public mutating func addHarmonics(fundamentalCyclesPerSample: Double, orders: ClosedRange<Int>) {
        precondition(orders.lowerBound >= 1 && orders.upperBound <= maximumColumns, "LeastSquaresFit harmonic orders out of range")
        precondition(fundamental == nil, "LeastSquaresFit takes the harmonics of one fundamental per set of columns")
        precondition(columnCount + 2 * orders.count <= maximumColumns, "LeastSquaresFit has room for \(maximumColumns) columns")
        let w = 2 * Double.pi * fundamentalCyclesPerSample
        let n = count, stride = maximumCount, first = columnCount
        let unit = SIMD2(Double.cos(w), Double.sin(w)), whole = SIMD2(Double.cos(w * Double(n)), Double.sin(w * Double(n)))
        fundamental = (unit, whole)
        recurrence.withUnsafeMutableBufferPointer { r in
            basis.withUnsafeMutableBufferPointer { b in
                // Rows: cos θ (kept), then two (cos, sin) pairs: order k - 1 and order k.
                let cosine = r.baseAddress!
                var older = (c: cosine + stride, s: cosine + 2 * stride), newer = (c: cosine + 3 * stride, s: cosine + 4 * stride)
                older.c.update(repeating: 1, count: n)
                older.s.update(repeating: 0, count: n)
                // Order 1 by a rotation, re-anchored every 64 samples to bound the rounding drift.
                var c = 1.0, sn = 0.0
                for i in 0..<n {
                    if i & 63 == 0, i > 0 { c = Double.cos(w * Double(i)); sn = Double.sin(w * Double(i)) }
                    cosine[i] = c; newer.c[i] = c; newer.s[i] = sn
                    let next = c * unit.x - sn * unit.y
                    sn = sn * unit.x + c * unit.y
                    c = next
                }
                for order in 1...orders.upperBound {
                    if orders.contains(order) {
                        let column = b.baseAddress! + (first + 2 * (order - orders.lowerBound)) * stride
                        VectorKernels.copy(newer.c, to: column, n)
                        VectorKernels.copy(newer.s, to: column + stride, n)
                    }
                    guard order < orders.upperBound else { break }
                    for i in 0..<n {
                        older.c[i] = 2 * cosine[i] * newer.c[i] - older.c[i]
                        older.s[i] = 2 * cosine[i] * newer.s[i] - older.s[i]
                    }
                    swap(&older, &newer)
                }
            }
        }
        var turn = SIMD2<Double>(1, 0), blockTurn = SIMD2<Double>(1, 0)
        for order in 1...orders.upperBound {
            turn = Self.times(turn, unit)
            blockTurn = Self.times(blockTurn, whole)
            guard orders.contains(order) else { continue }
            let j = first + 2 * (order - orders.lowerBound)
            kinds[j] = .cosine(sine: j + 1)
            kinds[j + 1] = .sine(cosine: j)
            for column in j...(j + 1) {
                unitTurn[column] = turn
                self.blockTurn[column] = blockTurn
                harmonicOrder[column] = order
            }
        }
        columnCount += 2 * orders.count
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
                        VectorKernels.copy(source, to: column + delay, n - delay)
                    } else {
                        VectorKernels.copy(source - delay, to: column, n + delay)
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
        let p = columnCount, n = count, stride = maximumCount
        // Σ_k e^{imωk} for the harmonics' orders and their sums.
        var highestOrder = 0
        for i in 0..<p { highestOrder = max(highestOrder, harmonicOrder[i]) }
        if let fundamental {
            var z = SIMD2<Double>(1, 0), zn = SIMD2<Double>(1, 0)
            for m in 0...(2 * highestOrder) {
                harmonicSums[m] = Self.geometricSum(z, zn, n)
                z = Self.times(z, fundamental.unit)
                zn = Self.times(zn, fundamental.block)
            }
        }
        let kinds = self.kinds, orders = harmonicOrder, sums = harmonicSums, turns = unitTurn, wholes = blockTurn
        let harmonics = fundamental != nil
        basis.withUnsafeBufferPointer { b in
            gram.withUnsafeMutableBufferPointer { g in
                let base = b.baseAddress!
                var sinusoids = UInt64(0), delays = UInt64(0)   // bit i: column i is a sinusoid (or the constant) / delayed
                for i in 0..<p {
                    if Self.isSinusoid(kinds[i]) { sinusoids |= 1 << UInt64(i) }
                    if case .delayed = kinds[i] { delays |= 1 << UInt64(i) }
                }
                func sinusoid(_ i: Int) -> Bool { sinusoids & (1 << UInt64(i)) != 0 }
                func delayed(_ i: Int) -> Bool { delays & (1 << UInt64(i)) != 0 }
                // The sums: pairs that have no closed form, and each undelayed column with each
                // sinusoid (the delayed copies are turned from these below).
                // Two at a time (one pass over column i for both).
                for i in 0..<p {
                    let column = base + i * stride
                    var waiting = -1
                    for j in 0...i {
                        if sinusoid(i) ? sinusoid(j) || delayed(j) : delayed(i) && sinusoid(j) { continue }
                        guard waiting >= 0 else { waiting = j; continue }
                        let both = VectorKernels.dot(column, base + waiting * stride, base + j * stride, n)
                        g[i * p + waiting] = both.x
                        g[i * p + j] = both.y
                        waiting = -1
                    }
                    if waiting >= 0 { g[i * p + waiting] = VectorKernels.dot(column, base + waiting * stride, n) }
                }
                // Sinusoids with sinusoids: half the sum or difference of Σ e^{i(ωa ± ωb)k}.
                Self.sinusoidProducts(into: g, p, n, kinds: kinds, sinusoids: sinusoids, harmonics: harmonics, orders: orders, sums: sums, turns: turns, wholes: wholes)
                // Delayed copies with each cos/sin pair (and the constant), both at once.
                for d in 0..<p where delayed(d) {
                    for j in 0..<p {
                        switch kinds[j] {
                        case .constant:
                            let t = Self.delayedProducts(delayed: d, cosine: j, sine: -1, kinds, p, n, stride, g, base)
                            g[max(d, j) * p + min(d, j)] = t.x
                        case .cosine(let sine):
                            let t = Self.delayedProducts(delayed: d, cosine: j, sine: sine, kinds, p, n, stride, g, base)
                            g[max(d, j) * p + min(d, j)] = t.x
                            g[max(d, sine) * p + min(d, sine)] = t.y
                        default:
                            break
                        }
                    }
                }
            }
        }
    }

    /// The Gram entries of every pair of sinusoids (and the constant, a cosine of order 0):
    /// half the sum or difference of Σ e^{i(ωa ± ωb)k}, from the harmonics' sums when the
    /// columns are harmonics of one fundamental, else from each column's own turn.
    private static func sinusoidProducts(into g: UnsafeMutableBufferPointer<Double>, _ p: Int, _ n: Int, kinds: [Kind], sinusoids: UInt64,
                                         harmonics: Bool, orders: [Int], sums: [SIMD2<Double>], turns: [SIMD2<Double>], wholes: [SIMD2<Double>]) {
        var sines = UInt64(0)   // bit i: column i is a sine
        for i in 0..<p where Self.isSine(kinds[i]) { sines |= 1 << UInt64(i) }
        orders.withUnsafeBufferPointer { orders in
            sums.withUnsafeBufferPointer { sums in
                for i in 0..<p where sinusoids & (1 << UInt64(i)) != 0 {
                    let oi = orders[i], sineI = sines & (1 << UInt64(i)) != 0
                    for j in 0...i where sinusoids & (1 << UInt64(j)) != 0 {
                        let oj = orders[j]
                        let sum: SIMD2<Double>, difference: SIMD2<Double>
                        if harmonics, oi >= 0, oj >= 0 {
                            sum = sums[oi &+ oj]
                            let d = oi &- oj
                            difference = d >= 0 ? sums[d] : sums[-d] * SIMD2(1, -1)
                        } else {
                            let conjugate = SIMD2<Double>(1, -1)
                            sum = Self.geometricSum(Self.times(turns[i], turns[j]), Self.times(wholes[i], wholes[j]), n)
                            difference = Self.geometricSum(Self.times(turns[i], turns[j] * conjugate),
                                                           Self.times(wholes[i], wholes[j] * conjugate), n)
                        }
                        let value: Double
                        switch (sineI, sines & (1 << UInt64(j)) != 0) {
                        case (false, false): value = 0.5 * (difference.x + sum.x)     // cos a cos b
                        case (true, true): value = 0.5 * (difference.x - sum.x)       // sin a sin b
                        case (true, false): value = 0.5 * (sum.y + difference.y)      // sin a cos b
                        case (false, true): value = 0.5 * (sum.y - difference.y)      // cos a sin b
                        }
                        g[i &* p &+ j] = value
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

    /// (Σ d[k] cos ωk, Σ d[k] sin ωk) for the delayed column `delayed` (values[k - lag], held at
    /// the edges) and the columns holding cos ωk and sin ωk (`sine` -1 for the constant, whose
    /// sin is 0), from the undelayed column's products with them, already in `g`.
    private static func delayedProducts(delayed: Int, cosine: Int, sine: Int, _ kinds: [Kind], _ p: Int, _ n: Int, _ stride: Int,
                                        _ g: UnsafeMutableBufferPointer<Double>, _ base: UnsafePointer<Double>) -> SIMD2<Double> {
        guard case .delayed(let lag, let undelayed) = kinds[delayed] else { return SIMD2(0, 0) }
        let cos = base + cosine * stride
        let sin = sine < 0 ? nil : base + sine * stride
        let a = base + undelayed * stride
        // The undelayed column's A = Σ a[k] e^{iωk}.
        var re = g[max(undelayed, cosine) * p + min(undelayed, cosine)]
        var im = sine < 0 ? 0 : g[max(undelayed, sine) * p + min(undelayed, sine)]
        // T = e^{iω lag} (A - Σ over the samples pushed out) + the held edge value × Σ e^{iωk}
        // over the samples it fills.
        let pushedOut = lag > 0 ? (n - lag)..<n : 0..<(-lag)
        for k in pushedOut {
            re -= a[k] * cos[k]
            if let sin { im -= a[k] * sin[k] }
        }
        // e^{iω lag}, read from the columns (cos and sin at k = |lag|).
        let c = cos[abs(lag)], s = (sin?[abs(lag)] ?? 0) * (lag > 0 ? 1 : -1)
        var tr = re * c - im * s, ti = re * s + im * c
        let filled = lag > 0 ? 0..<lag : (n + lag)..<n
        let held = lag > 0 ? a[0] : a[n - 1]
        for k in filled {
            tr += held * cos[k]
            if let sin { ti += held * sin[k] }
        }
        return SIMD2(tr, ti)
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
                            var i = 0
                            while i &+ 1 < p {
                                let both = VectorKernels.dot(values, base + i * stride, base + (i + 1) * stride, n)
                                r[i] = both.x * d[i]
                                r[i &+ 1] = both.y * d[i &+ 1]
                                i &+= 2
                            }
                            if i < p { r[i] = VectorKernels.dot(base + i * stride, values, n) * d[i] }
                            // Forward, then back substitution with L (L Lᵀ = scaled Gram).
                            let factor = l.baseAddress!, solution = r.baseAddress!
                            for i in 0..<p {
                                r[i] = (r[i] - VectorKernels.dot(factor + i &* p, solution, i)) / l[i &* p &+ i]
                            }
                            // Lᵀ x = y by columns of Lᵀ (rows of L, contiguous).
                            for i in Swift.stride(from: p - 1, through: 0, by: -1) {
                                r[i] /= l[i * p + i]
                                VectorKernels.subtractScaled(r[i], factor + i * p, from: solution, i)
                            }
                            // Four columns a pass, then one at a time.
                            i = 0
                            while i &+ 3 < p {
                                let column = base + i * stride
                                VectorKernels.subtractScaled(SIMD4(r[i] * d[i], r[i + 1] * d[i + 1], r[i + 2] * d[i + 2], r[i + 3] * d[i + 3]),
                                                             column, column + stride, column + 2 * stride, column + 3 * stride, from: values, n)
                                i &+= 4
                            }
                            while i < p {
                                VectorKernels.subtractScaled(r[i] * d[i], base + i * stride, from: values, n)
                                i &+= 1
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
