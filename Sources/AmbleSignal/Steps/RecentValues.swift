/// The last few values of a quantity (a `RingBuffer`), with the statistics the step channels
/// ask of them.
struct RecentValues: Sendable {
    private var values: RingBuffer<Double>
    private var scratch: [Double]

    init(capacity: Int) {
        values = RingBuffer(capacity: max(capacity, 1), filling: 0)
        scratch = [Double](repeating: 0, count: max(capacity, 1))
    }

    var capacity: Int { values.capacity + scratch.count }

    var count: Int { values.count }

    mutating func removeAll() { values.removeAll() }

    mutating func append(_ value: Double) { values.append(value) }

    /// Forgets the newest value (the one before it stays; a value the ring dropped is not back).
    mutating func removeLast() { values.removeNewest() }

    /// The `index`-th value held (0 ..< count), newest first.
    func value(at index: Int) -> Double { values[age: index] }

    var sum: Double {
        var total = 0.0
        for age in 0 ..< count { total += values[age: age] }
        return total
    }

    /// The smallest value held; 0 when empty.
    var minimum: Double {
        guard count > 0 else { return 0 }
        var m = values[age: 0]
        for age in 1 ..< count { m = min(m, values[age: age]) }
        return m
    }

    /// The mean of the values within `tolerance` of `center`; 0 when there are none.
    func mean(within tolerance: Double, of center: Double) -> Double {
        var total = 0.0, n = 0
        for age in 0 ..< count where abs(values[age: age] - center) <= tolerance {
            total += values[age: age]
            n += 1
        }
        return n > 0 ? total / Double(n) : 0
    }

    /// Steps per minute from step intervals: 60 over their mean after dropping those more than
    /// `fraction` from their median (a missed or doubled step); 0 when empty.
    mutating func stepsPerMinute(droppingBeyond fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let median = median()
        let mean = mean(within: fraction * median, of: median)
        return mean > 0 ? 60 / mean : 0
    }

    /// The median (the mean of the middle two for an even count); 0 when empty. An insertion
    /// sort into the scratch: the rings hold at most a few dozen values.
    mutating func median() -> Double {
        guard count > 0 else { return 0 }
        for i in 0 ..< count {
            let v = values[age: i]
            var j = i
            while j > 0, scratch[j - 1] > v {
                scratch[j] = scratch[j - 1]
                j -= 1
            }
            scratch[j] = v
        }
        let mid = count / 2
        return count % 2 == 1 ? scratch[mid] : (scratch[mid - 1] + scratch[mid]) / 2
    }
}
