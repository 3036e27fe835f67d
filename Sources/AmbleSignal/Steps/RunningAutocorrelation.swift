/// The autocorrelation of a signal over a sliding window, for every lag up to `maximumLag`,
/// made robust by blocks: the window is cut into `blocks` equal parts, each part's
/// normalised autocorrelation is measured on its own, and the median over the parts is the
/// window's. A turn, a bump or a gesture spoils one part of a walk's window; the median
/// keeps the rhythm of the others.
///
/// With several channels (the three axes) the products are summed: the correlation of the
/// vector with itself, which a rotation of the sensor does not change. Each new sample costs
/// one multiplication per lag and channel: the products are summed per stretch of
/// `stretchLength` samples (the analysis hop), and a block is the sum of its stretches.
struct RunningAutocorrelation: Sendable {
    let channels: Int
    let maximumLag: Int
    let blocks: Int
    let stretchesPerBlock: Int
    let stretchLength: Int
    /// Samples in the window.
    var window: Int { blocks * blockLength }
    private var blockLength: Int { stretchesPerBlock * stretchLength }
    private var lagCount: Int { maximumLag + 1 }

    /// The history, channel after channel, each written twice (at i and i + capacity), newest
    /// first: the newest `capacity` values are always one contiguous stretch from `position`
    /// on, older ones at higher addresses (so the loops over lags run forwards).
    private var history: [Double]
    /// Sum over the channels of the squared values, kept like `history`: the energies.
    private var squares: [Double]
    private let capacity: Int
    private var position = 0
    /// Sums of x[n]·x[n-L] over each whole stretch (a ring of `blocks x stretchesPerBlock`
    /// stretches of `maximumLag + 1` lags), the stretch being filled, and its fill.
    private var stretchSums: [Double]
    private var current: [Double]
    private var filled = 0
    private var newestStretch = 0
    private(set) var completedStretches = 0
    /// Scratch: one block's products, and each block's normalised autocorrelation.
    private var blockProducts: [Double]
    private var blockR: [Double]

    init(channels: Int, maximumLag: Int, blocks: Int, stretchesPerBlock: Int, stretchLength: Int) {
        precondition(channels >= 1 && maximumLag >= 1 && blocks >= 1 && stretchesPerBlock >= 1 && stretchLength >= 1)
        self.channels = channels
        self.maximumLag = maximumLag
        self.blocks = blocks
        self.stretchesPerBlock = stretchesPerBlock
        self.stretchLength = stretchLength
        capacity = blocks * stretchesPerBlock * stretchLength + maximumLag + 1
        history = [Double](repeating: 0, count: channels * 2 * capacity)
        squares = [Double](repeating: 0, count: 2 * capacity)
        stretchSums = [Double](repeating: 0, count: blocks * stretchesPerBlock * (maximumLag + 1))
        current = [Double](repeating: 0, count: maximumLag + 1)
        blockProducts = [Double](repeating: 0, count: maximumLag + 1)
        blockR = [Double](repeating: 0, count: blocks * (maximumLag + 1))
    }

    /// Numbers held (constant memory).
    var bufferElementCount: Int { history.count + squares.count + stretchSums.count + current.count + blockProducts.count + blockR.count }

    /// Whether the window is full of whole stretches.
    var isFull: Bool { completedStretches >= blocks * stretchesPerBlock }

    /// Whether the last `append` completed a stretch (the time to measure the window).
    var completedStretchNow: Bool { filled == 0 && completedStretches > 0 }

    mutating func reset() {
        history.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        squares.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        stretchSums.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        current.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        position = 0
        filled = 0
        completedStretches = 0
    }

    /// Appends one value per channel (`values[0 ..< channels]`).
    mutating func append(_ values: SIMD4<Double>) {
        position = position == 0 ? capacity - 1 : position - 1
        let newest = position
        let lags = lagCount
        let span = 2 * capacity
        let channels = self.channels
        let position = self.position
        var energy = 0.0
        for c in 0 ..< channels { energy += values[c] * values[c] }
        squares[position] = energy
        squares[position + capacity] = energy
        history.withUnsafeMutableBufferPointer { h in
            current.withUnsafeMutableBufferPointer { sum in
                for c in 0 ..< channels {
                    let value = values[c]
                    let base = c * span
                    h[base + position] = value
                    h[base + position + capacity] = value
                    // Lag L pairs the newest value with the one L samples older.
                    let older = h.baseAddress! + base + newest
                    let total = sum.baseAddress!
                    for lag in 0 ..< lags { total[lag] += value * older[lag] }
                }
            }
        }
        filled += 1
        if filled == stretchLength {
            let stretches = blocks * stretchesPerBlock
            newestStretch = newestStretch + 1 == stretches ? 0 : newestStretch + 1
            let offset = newestStretch * lags
            stretchSums.withUnsafeMutableBufferPointer { s in
                current.withUnsafeMutableBufferPointer { c in
                    for lag in 0 ..< lags {
                        s[offset + lag] = c[lag]
                        c[lag] = 0
                    }
                }
            }
            filled = 0
            completedStretches += 1
        }
    }

    /// The value `age` samples before the newest (0 = newest) of `channel`; zero before the
    /// stream held it. `age < window + maximumLag + 1`.
    func value(age: Int, channel: Int = 0) -> Double {
        history[channel * 2 * capacity + position + age]
    }

    /// Energy of the window's whole stretches (all channels).
    var windowEnergy: Double {
        var total = 0.0
        for s in 0 ..< blocks * stretchesPerBlock { total += stretchSums[s * lagCount] }
        return Swift.max(total, 0)
    }

    /// The normalised autocorrelation at lags 0 ... maximumLag into `output`: for each block,
    /// its products over the geometric mean of the energies of the two stretches they pair;
    /// then the median over the blocks. Measured when a stretch has just completed
    /// (`completedStretchNow`).
    mutating func normalized(into output: inout [Double]) {
        precondition(output.count >= lagCount)
        let lags = lagCount
        let stretches = blocks * stretchesPerBlock
        let length = blockLength
        let newest = position + filled
        let blocks = self.blocks
        let stretchesPerBlock = self.stretchesPerBlock
        let newestStretch = self.newestStretch
        squares.withUnsafeBufferPointer { q in
            stretchSums.withUnsafeBufferPointer { sums in
                blockProducts.withUnsafeMutableBufferPointer { products in
                    blockR.withUnsafeMutableBufferPointer { r in
                        for b in 0 ..< blocks {
                            // The block's products: the sum of its stretches' rows.
                            for lag in 0 ..< lags { products[lag] = 0 }
                            for k in 0 ..< stretchesPerBlock {
                                var s = newestStretch - b * stretchesPerBlock - k
                                if s < 0 { s += stretches }
                                let row = sums.baseAddress! + s * lags
                                for lag in 0 ..< lags { products[lag] += row[lag] }
                            }
                            // Energy of the block, and of its copy `lag` samples older, slid
                            // one lag at a time.
                            let x = q.baseAddress! + newest + b * length
                            var energy = 0.0
                            for i in 0 ..< length { energy += x[i] }
                            var shifted = energy
                            let row = r.baseAddress! + b * lags
                            for lag in 0 ..< lags {
                                if lag > 0 { shifted += x[length - 1 + lag] - x[lag - 1] }
                                let denominator = (energy * Swift.max(shifted, 0)).squareRoot()
                                row[lag] = denominator > 1e-12 ? products[lag] / denominator : 0
                            }
                        }
                    }
                }
            }
        }
        blockR.withUnsafeBufferPointer { r in
            output.withUnsafeMutableBufferPointer { out in
                if blocks == 5 {
                    for lag in 0 ..< lags {
                        out[lag] = Self.medianOfFive(r[lag], r[lag + lags], r[lag + 2 * lags], r[lag + 3 * lags], r[lag + 4 * lags])
                    }
                } else {
                    for lag in 0 ..< lags {
                        out[lag] = Self.median(r, lag: lag, stride: lags, count: blocks)
                    }
                }
            }
        }
    }

    /// The mean of the newest `count` blocks' normalised autocorrelations (block 0 is the
    /// newest), as measured by the last `normalized`: the rhythm of the last few seconds.
    func newestBlocks(_ count: Int, into output: inout [Double]) {
        let lags = lagCount
        let n = Swift.min(Swift.max(count, 1), blocks)
        for lag in 0 ..< lags {
            var total = 0.0
            for b in 0 ..< n { total += blockR[b * lags + lag] }
            output[lag] = total / Double(n)
        }
    }

    /// The median of five values without sorting them (six comparisons).
    @inline(__always)
    static func medianOfFive(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double) -> Double {
        // Drop the smaller of the two pair minima and the larger of the two pair maxima: the
        // median of the five is the median of the three values left.
        let (lowAB, highAB) = a < b ? (a, b) : (b, a)
        let (lowCD, highCD) = c < d ? (c, d) : (d, c)
        let low = Swift.max(lowAB, lowCD)
        let high = Swift.min(highAB, highCD)
        return Swift.max(Swift.min(low, high), Swift.min(Swift.max(low, high), e))
    }

    /// The median of `count` values `stride` apart starting at `lag` (an insertion sort on the
    /// stack: the blocks are few).
    private static func median(_ r: UnsafeBufferPointer<Double>, lag: Int, stride: Int, count: Int) -> Double {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { v in
            for i in 0 ..< count {
                let x = r[lag + i * stride]
                var j = i
                while j > 0, v[j - 1] > x {
                    v[j] = v[j - 1]
                    j -= 1
                }
                v[j] = x
            }
            return count % 2 == 1 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2
        }
    }
}
