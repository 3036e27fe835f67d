/// The last few values of a quantity in a fixed-size ring, with their median.
struct RecentValues: Sendable {
    private var values: [Double]
    private var scratch: [Double]
    private var next = 0
    private(set) var count = 0

    init(capacity: Int) {
        values = [Double](repeating: 0, count: max(capacity, 1))
        scratch = values
    }

    var capacity: Int { values.count + scratch.count }

    mutating func removeAll() {
        count = 0
        next = 0
    }

    mutating func append(_ value: Double) {
        values[next] = value
        next = (next + 1) % values.count
        count = min(count + 1, values.count)
    }

    /// Forgets the newest value (the one before it stays; a value the ring dropped is not back).
    mutating func removeLast() {
        guard count > 0 else { return }
        next = (next + values.count - 1) % values.count
        count -= 1
    }

    /// The `index`-th value held (0 ..< count), in no particular order.
    func value(at index: Int) -> Double { values[index] }

    var sum: Double {
        var total = 0.0
        for i in 0 ..< count { total += values[i] }
        return total
    }

    /// The smallest value held; 0 when empty.
    var minimum: Double {
        guard count > 0 else { return 0 }
        var m = values[0]
        for i in 1 ..< count { m = min(m, values[i]) }
        return m
    }

    /// The mean of the values within `tolerance` of `center`; 0 when there are none.
    func mean(within tolerance: Double, of center: Double) -> Double {
        var total = 0.0, n = 0
        for i in 0 ..< count where abs(values[i] - center) <= tolerance {
            total += values[i]
            n += 1
        }
        return n > 0 ? total / Double(n) : 0
    }

    /// The median (the mean of the middle two for an even count); 0 when empty.
    mutating func median() -> Double {
        guard count > 0 else { return 0 }
        for i in 0 ..< count {
            let v = values[i]
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
