import RealModule

/// The last `capacity` values of a fixed-rate signal, addressed by absolute sample index (the
/// `RingBuffer` that holds them and the number of values ever written), and the normalised
/// correlation of a stretch of it with itself shifted by a lag (how well it repeats with that
/// period).
struct SignalHistory: Sendable {
    private var values: RingBuffer<Double>
    /// Index of the next value written, counted from the first value ever written.
    private(set) var count = 0

    init(capacity: Int) {
        values = RingBuffer(capacity: max(capacity, 1), filling: 0)
    }

    var capacity: Int { values.capacity }

    mutating func append(_ value: Double) {
        values.append(value)
        count += 1
    }

    /// The value at absolute index `index`, or nil when it is not (or no longer) held.
    func value(at index: Int) -> Double? {
        guard index >= 0, index < count, index >= count - values.capacity else { return nil }
        return values[age: count - 1 - index]
    }

    /// Copies the newest `n` values, oldest first, into `output[0..<n]`.
    func copyNewest(_ n: Int, into output: inout [Double]) {
        values.copyNewest(n, into: &output)
    }

    /// Pearson correlation of x[i] with x[i + lagSamples] for i in start ..< end - lag, with
    /// `start` and `end` absolute indices (end exclusive). The stretch is clipped to what is
    /// still held. Returns 0 when fewer than 4 pairs remain.
    func correlation(start: Int, end: Int, lagSamples lag: Int) -> Double {
        let first = max(start, count - values.capacity, 0)
        let last = min(end, count)
        let pairs = last - first - lag
        guard lag > 0, pairs >= 4 else { return 0 }
        var sumA = 0.0, sumB = 0.0, sumAA = 0.0, sumBB = 0.0, sumAB = 0.0
        let n = values.capacity
        var ia = values.slot(age: count - 1 - first)
        var ib = values.slot(age: count - 1 - first - lag)
        for _ in 0 ..< pairs {
            let a = values[slot: ia], b = values[slot: ib]
            sumA += a; sumB += b
            sumAA += a * a; sumBB += b * b; sumAB += a * b
            ia += 1; if ia == n { ia = 0 }
            ib += 1; if ib == n { ib = 0 }
        }
        let p = Double(pairs)
        let covariance = sumAB - sumA * sumB / p
        let varianceA = sumAA - sumA * sumA / p
        let varianceB = sumBB - sumB * sumB / p
        let denominator = (varianceA * varianceB).squareRoot()
        return denominator > 1e-12 ? covariance / denominator : 0
    }
}
