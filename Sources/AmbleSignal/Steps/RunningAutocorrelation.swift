/// The autocorrelation of a signal over a sliding window, for every lag up to `maximumLag`,
/// made robust by blocks: the window is cut into five equal parts (`blocks`), each part's
/// normalised autocorrelation is measured on its own, and the median over the parts is the
/// window's. A turn, a bump or a gesture spoils one part of a walk's window; the median
/// keeps the rhythm of the others.
///
/// With several channels (the three axes) the products are summed: the correlation of the
/// vector with itself, which a rotation of the sensor does not change.
///
/// The work is done once per stretch of `stretchLength` samples (the analysis hop), not per
/// sample: when a stretch completes, its products x[n]·x[n-L] are summed for every lag (one
/// multiplication per sample, lag and channel), and the block ending with it is normalised.
/// A block is a run of whole stretches, so each block is measured once, when its last stretch
/// completes, and kept until it leaves the window; a window's median takes the blocks kept.
struct RunningAutocorrelation: Sendable {
    let channels: Int
    let maximumLag: Int
    /// Five blocks: two spoiled blocks of a walk's window still leave its rhythm, and the
    /// median of five is written out (`medianOfFive`), lane by lane.
    static let blocks = 5
    let stretchesPerBlock: Int
    let stretchLength: Int
    private var blockLength: Int { stretchesPerBlock * stretchLength }
    private var lagCount: Int { maximumLag + 1 }
    private var stretches: Int { Self.blocks * stretchesPerBlock }
    /// Lags are summed `Self.lanes` at a time: `lagCount` rounded up to a multiple of it (the
    /// lags beyond `maximumLag` are measured and never read).
    private let paddedLagCount: Int
    /// Lags summed together in vector registers (SIMD16: eight SSE2 or NEON registers of two; more
    /// accumulators than x86-64 has registers for spill, fewer repeat the loop overhead).
    private static let lanes = 16

    /// The history, channel after channel, each written twice (at i and i + capacity), newest
    /// first: the newest `capacity` values are always one contiguous stretch from `position`
    /// on, older ones at higher addresses (so the loops over lags run forwards). After the
    /// channels, kept the same way, the sum over them of the squared values: the energies
    /// (from `squaresStart` on; one array, so that a sample is written with one access).
    private var history: [Double]
    private var squaresStart: Int { channels * 2 * capacity }
    private let capacity: Int
    private var position = 0
    /// Sums of x[n]·x[n-L] over each whole stretch: a ring of `blocks x stretchesPerBlock`
    /// rows of `paddedLagCount` lags, the newest at `newestStretch`. `filled`: samples of the
    /// stretch under way.
    private var stretchSums: [Double]
    private var filled = 0
    private var newestStretch = 0
    private(set) var completedStretches = 0
    /// The normalised autocorrelation of the block ending with each stretch of the ring
    /// (`lagCount` lags a row, measured when that stretch completed).
    private var blockR: [Double]
    /// The energy of the block ending with each stretch of the ring (all channels).
    private var blockEnergies: [Double]

    init(channels: Int, maximumLag: Int, stretchesPerBlock: Int, stretchLength: Int) {
        precondition(channels >= 1 && maximumLag >= 1 && stretchesPerBlock >= 1 && stretchLength >= 1)
        self.channels = channels
        self.maximumLag = maximumLag
        self.stretchesPerBlock = stretchesPerBlock
        self.stretchLength = stretchLength
        paddedLagCount = (maximumLag + Self.lanes) / Self.lanes * Self.lanes
        capacity = Self.blocks * stretchesPerBlock * stretchLength + paddedLagCount
        history = [Double](repeating: 0, count: (channels + 1) * 2 * capacity)
        stretchSums = [Double](repeating: 0, count: Self.blocks * stretchesPerBlock * paddedLagCount)
        blockR = [Double](repeating: 0, count: Self.blocks * stretchesPerBlock * (maximumLag + 1))
        blockEnergies = [Double](repeating: 0, count: Self.blocks * stretchesPerBlock)
    }

    /// Numbers held (constant memory).
    var bufferElementCount: Int { history.count + stretchSums.count + blockR.count + blockEnergies.count }

    /// Whether the window is full of whole stretches.
    var isFull: Bool { completedStretches >= stretches }

    /// Whether the last `append` completed a stretch (the time to measure the window).
    var completedStretchNow: Bool { filled == 0 && completedStretches > 0 }

    mutating func reset() {
        history.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        stretchSums.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        blockEnergies.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        position = 0
        filled = 0
        completedStretches = 0
    }

    /// Appends one value per channel (`values[0 ..< channels]`).
    mutating func append(_ values: SIMD4<Double>) {
        position = position == 0 ? capacity - 1 : position - 1
        let (position, capacity, channels) = (self.position, self.capacity, self.channels)
        history.withUnsafeMutableBufferPointer { h in
            let newest = h.baseAddress! + position
            // The channel count spelled out, so that the loop over channels unrolls.
            switch channels {
            case 1: Self.write(values, channels: 1, to: newest, capacity: capacity)
            case 3: Self.write(values, channels: 3, to: newest, capacity: capacity)
            default: Self.write(values, channels: channels, to: newest, capacity: capacity)
            }
        }
        filled += 1
        if filled == stretchLength {
            newestStretch = newestStretch + 1 == stretches ? 0 : newestStretch + 1
            sumNewestStretch()
            measureNewestBlock()
            filled = 0
            completedStretches += 1
        }
    }

    /// Writes a sample's values and their energy (each twice) at `newest`.
    @inline(__always)
    private static func write(_ values: SIMD4<Double>, channels: Int, to newest: UnsafeMutablePointer<Double>, capacity: Int) {
        var energy = 0.0
        for c in 0 ..< channels {
            energy += values[c] * values[c]
            newest[c * 2 * capacity] = values[c]
            newest[c * 2 * capacity + capacity] = values[c]
        }
        newest[channels * 2 * capacity] = energy
        newest[channels * 2 * capacity + capacity] = energy
    }

    /// The stretch just completed: for every lag L, the sum of x[n]·x[n-L] over its samples,
    /// oldest first, the channels in turn (the order a running sum would take), into its row
    /// of `stretchSums`. Sixteen lags at a time, in vector registers, the last few lags eight at a
    /// time when eight are enough (103 lags: six runs of sixteen and one of eight, not seven of
    /// sixteen).
    private mutating func sumNewestStretch() {
        let span = 2 * capacity, position = self.position, channels = self.channels, length = stretchLength
        let lanes = Self.lanes, lags = paddedLagCount, lagsRead = lagCount
        history.withUnsafeBufferPointer { h in
            stretchSums.withUnsafeMutableBufferPointer { s in
                let row = s.baseAddress! + newestStretch * lags
                // The stretch's oldest value (of the first channel); newer ones at lower addresses.
                let oldest = h.baseAddress! + position + length - 1
                var firstLag = 0
                while firstLag < lags {
                    // The channel count spelled out, so that the loop over channels unrolls.
                    if lagsRead - firstLag <= lanes / 2 {
                        let total: SIMD8<Double> = switch channels {
                        case 1: Self.products(oldest: oldest, length: length, firstLag: firstLag, channels: 1, span: span)
                        case 3: Self.products(oldest: oldest, length: length, firstLag: firstLag, channels: 3, span: span)
                        default: Self.products(oldest: oldest, length: length, firstLag: firstLag, channels: channels, span: span)
                        }
                        UnsafeMutableRawPointer(row + firstLag).storeBytes(of: total, as: SIMD8<Double>.self)
                        break
                    }
                    let total: SIMD16<Double> = switch channels {
                    case 1: Self.products(oldest: oldest, length: length, firstLag: firstLag, channels: 1, span: span)
                    case 3: Self.products(oldest: oldest, length: length, firstLag: firstLag, channels: 3, span: span)
                    default: Self.products(oldest: oldest, length: length, firstLag: firstLag, channels: channels, span: span)
                    }
                    UnsafeMutableRawPointer(row + firstLag).storeBytes(of: total, as: SIMD16<Double>.self)
                    firstLag += lanes
                }
            }
        }
    }

    /// For the sixteen (or eight) lags from `firstLag` on: the sum over `length` samples (from
    /// `oldest` on, newer ones at lower addresses) and the channels (`span` apart) of x[n]·x[n-L].
    @inline(__always)
    private static func products<V: SIMD>(oldest: UnsafePointer<Double>, length: Int, firstLag: Int, channels: Int, span: Int) -> V
    where V.Scalar == Double {
        var total = V(repeating: 0)
        var x = oldest
        for _ in 0 ..< length {
            var channel = x
            for _ in 0 ..< channels {
                // x[n] and the sixteen values `firstLag`... samples older.
                let older = UnsafeRawPointer(channel + firstLag).loadUnaligned(as: V.self)
                total += V(repeating: channel.pointee) * older
                channel += span
            }
            x -= 1
        }
        return total
    }

    /// The normalised autocorrelation of the block ending with the stretch just completed: its
    /// products over the geometric mean of the energies of the two runs of samples they pair
    /// (the block, and its copy `lag` samples older), into the stretch's row of `blockR`.
    private mutating func measureNewestBlock() {
        let lags = lagCount, paddedLags = paddedLagCount, stretches = self.stretches, length = blockLength
        let newestStretch = self.newestStretch, stretchesPerBlock = self.stretchesPerBlock
        let start = squaresStart + position
        var blockEnergy = 0.0
        history.withUnsafeBufferPointer { h in
            stretchSums.withUnsafeBufferPointer { sums in
                blockR.withUnsafeMutableBufferPointer { r in
                    let row = r.baseAddress! + newestStretch * lags
                    func products(_ k: Int) -> UnsafePointer<Double> {
                        var s = newestStretch - k
                        if s < 0 { s += stretches }
                        return sums.baseAddress! + s * paddedLags
                    }
                    // The block's products: the sum of its stretches' rows (two, spelled out, in
                    // one pass with the normalisation).
                    let (first, second) = (products(0), stretchesPerBlock > 1 ? products(1) : products(0))
                    if stretchesPerBlock != 2 {
                        for lag in 0 ..< lags { row[lag] = 0 }
                        for k in 0 ..< stretchesPerBlock {
                            let p = products(k)
                            for lag in 0 ..< lags { row[lag] += p[lag] }
                        }
                    }
                    // Energy of the block, and of its copy `lag` samples older, slid one lag at
                    // a time.
                    let x = h.baseAddress! + start
                    var energy = 0.0
                    for i in 0 ..< length { energy += x[i] }
                    blockEnergy = energy
                    // At each lag one energy slides in (`entering[lag]`) and one out (`leaving[lag]`).
                    let entering = x + (length - 1), leaving = x - 1
                    var shifted = energy
                    func normalise(_ sum: Double, _ shifted: Double) -> Double {
                        let denominator = (energy * Swift.max(shifted, 0)).squareRoot()
                        return denominator > 1e-12 ? sum / denominator : 0
                    }
                    if stretchesPerBlock == 2 {
                        row[0] = normalise(0 + first[0] + second[0], shifted)
                        for lag in 1 ..< lags {
                            shifted += entering[lag] - leaving[lag]
                            row[lag] = normalise(0 + first[lag] + second[lag], shifted)
                        }
                    } else {
                        row[0] = normalise(row[0], shifted)
                        for lag in 1 ..< lags {
                            shifted += entering[lag] - leaving[lag]
                            row[lag] = normalise(row[lag], shifted)
                        }
                    }
                }
            }
        }
        blockEnergies[newestStretch] = blockEnergy
    }

    /// Which of the window's five blocks hold movement, as bits (bit b: block b, 0 the newest):
    /// those whose mean energy per sample (all channels) is at least `floor`.
    func movingBlocks(energyPerSampleAtLeast floor: Double) -> Int {
        var moving = 0
        for b in 0 ..< Self.blocks {
            var s = newestStretch - b * stretchesPerBlock
            while s < 0 { s += stretches }
            if blockEnergies[s] >= floor * Double(blockLength) { moving |= 1 << b }
        }
        return moving
    }

    /// The value `age` samples before the newest (0 = newest) of the first channel; zero before
    /// the stream held it. `age < capacity`.
    func value(age: Int) -> Double {
        history[position + age]
    }

    /// Energy of the window's whole stretches (all channels).
    var windowEnergy: Double {
        var total = 0.0
        for s in 0 ..< stretches { total += stretchSums[s * paddedLagCount] }
        return Swift.max(total, 0)
    }

    /// The row of `blockR` of block `b` of the window (0: the newest).
    private func blockRow(_ b: Int) -> Int {
        var s = newestStretch - b * stretchesPerBlock
        while s < 0 { s += stretches }
        return s * lagCount
    }

    /// The normalised autocorrelation at lags 0 ... maximumLag into `output`: the median over
    /// the window's five blocks of each block's, four lags at a time in vector registers, the
    /// rest one by one. Measured when a stretch has just completed (`completedStretchNow`).
    ///
    /// `moving` (bits as `movingBlocks` gives them): when three or four of the five blocks hold
    /// movement, in one run, the median is taken over those alone. A block in which the wrist
    /// is still says nothing about the rhythm of the movement around it: a bout of 6-8 s in a
    /// 10-s window would otherwise be judged by its still seconds' noise. In one run, because a
    /// bout's still seconds lie before or after it; movement that stops and starts again within
    /// the window (a hand scrubbing in bursts) is judged on all five.
    func normalized(into output: inout [Double], moving: Int = (1 << blocks) - 1) {
        precondition(output.count >= lagCount)
        let lags = lagCount
        let count = moving.nonzeroBitCount
        // One run of moving blocks: a bout's still seconds lie before or after it.
        let oneRun = moving != 0 && (moving >> moving.trailingZeroBitCount) == (1 << count) - 1
        if oneRun, count == 3 || count == 4 {
            let rows = (0 ..< Self.blocks).filter { moving & (1 << $0) != 0 }.map(blockRow)
            blockR.withUnsafeBufferPointer { r in
                for lag in 0 ..< lags {
                    let a = r[rows[0] + lag], b = r[rows[1] + lag], c = r[rows[2] + lag]
                    if count == 3 {
                        output[lag] = Swift.max(Swift.min(a, b), Swift.min(Swift.max(a, b), c))
                    } else {
                        // The mean of the middle two of four.
                        let d = r[rows[3] + lag]
                        let low = Swift.max(Swift.min(a, b), Swift.min(c, d)), high = Swift.min(Swift.max(a, b), Swift.max(c, d))
                        output[lag] = (low + high) / 2
                    }
                }
            }
            return
        }
        blockR.withUnsafeBufferPointer { r in
            output.withUnsafeMutableBufferPointer { out in
                let r0 = r.baseAddress! + blockRow(0), r1 = r.baseAddress! + blockRow(1), r2 = r.baseAddress! + blockRow(2)
                let r3 = r.baseAddress! + blockRow(3), r4 = r.baseAddress! + blockRow(4)
                func load(_ p: UnsafePointer<Double>, _ lag: Int) -> SIMD4<Double> {
                    UnsafeRawPointer(p + lag).loadUnaligned(as: SIMD4<Double>.self)
                }
                var lag = 0
                while lag + 4 <= lags {
                    let m = Self.medianOfFive(load(r0, lag), load(r1, lag), load(r2, lag), load(r3, lag), load(r4, lag))
                    UnsafeMutableRawPointer(out.baseAddress! + lag).storeBytes(of: m, as: SIMD4<Double>.self)
                    lag += 4
                }
                while lag < lags {
                    out[lag] = Self.medianOfFive(r0[lag], r1[lag], r2[lag], r3[lag], r4[lag])
                    lag += 1
                }
            }
        }
    }

    /// The mean of the newest `count` blocks' normalised autocorrelations (block 0 is the
    /// newest): the rhythm of the last few seconds.
    func newestBlocks(_ count: Int, into output: inout [Double]) {
        precondition(output.count >= lagCount)
        let lags = lagCount
        let n = Swift.min(Swift.max(count, 1), Self.blocks)
        blockR.withUnsafeBufferPointer { r in
            output.withUnsafeMutableBufferPointer { out in
                // Block by block into the output (the same sums, in the same order, as lag by lag).
                let first = r.baseAddress! + blockRow(0)
                for lag in 0 ..< lags { out[lag] = 0 + first[lag] }
                for b in 1 ..< n {
                    let row = r.baseAddress! + blockRow(b)
                    for lag in 0 ..< lags { out[lag] += row[lag] }
                }
                let scale = Double(n)
                for lag in 0 ..< lags { out[lag] /= scale }
            }
        }
    }

    /// The median of five values lane by lane, as `medianOfFive` of scalars. The minimum and
    /// maximum are written as the SSE2 and NEON instructions take them (`x < y ? x : y`): on
    /// finite values they choose what `Swift.min` and `Swift.max` choose.
    @inline(__always)
    static func medianOfFive(_ a: SIMD4<Double>, _ b: SIMD4<Double>, _ c: SIMD4<Double>, _ d: SIMD4<Double>, _ e: SIMD4<Double>) -> SIMD4<Double> {
        typealias V = SIMD4<Double>
        func min(_ x: V, _ y: V) -> V { y.replacing(with: x, where: x .< y) }
        func max(_ x: V, _ y: V) -> V { y.replacing(with: x, where: x .> y) }
        let lowAB = min(a, b), highAB = max(a, b)
        let lowCD = min(c, d), highCD = max(c, d)
        let low = max(lowAB, lowCD)
        let high = min(highAB, highCD)
        return max(min(low, high), min(max(low, high), e))
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
}
