/// Order statistics on a scratch buffer (no allocation once the scratch is sized).
public enum RobustStatistics {
    /// The median of `values[0..<count]`; reorders `scratch` (which must hold `count`).
    public static func median(of values: [Double], count: Int, scratch: inout [Double]) -> Double {
        precondition(count > 0 && count <= values.count && count <= scratch.count)
        for i in 0..<count { scratch[i] = values[i] }
        return select(&scratch, count: count, rank: count / 2, even: count % 2 == 0)
    }

    /// Median absolute deviation from `center`, scaled by 1.4826 so that it estimates the
    /// standard deviation of normally distributed values.
    public static func scaledMAD(of values: [Double], count: Int, center: Double, scratch: inout [Double]) -> Double {
        precondition(count > 0 && count <= values.count && count <= scratch.count)
        for i in 0..<count { scratch[i] = abs(values[i] - center) }
        return 1.4826 * select(&scratch, count: count, rank: count / 2, even: count % 2 == 0)
    }

    /// The median of `values[0..<count]` and the scaled MAD around it, in one call.
    public static func centerAndSpread(of values: [Double], count: Int, scratch: inout [Double]) -> (center: Double, spread: Double) {
        let center = median(of: values, count: count, scratch: &scratch)
        return (center, scaledMAD(of: values, count: count, center: center, scratch: &scratch))
    }

    /// Quickselect (Hoare partition); for an even count, the mean of the two middle values.
    private static func select(_ values: inout [Double], count: Int, rank: Int, even: Bool) -> Double {
        values.withUnsafeMutableBufferPointer { buffer in
            let a = buffer.baseAddress!
            var lo = 0, hi = count - 1
            while lo < hi {
                let pivot = a[(lo + hi) / 2]
                var i = lo, j = hi
                while i <= j {
                    while a[i] < pivot { i &+= 1 }
                    while a[j] > pivot { j &-= 1 }
                    if i <= j {
                        let t = a[i]; a[i] = a[j]; a[j] = t
                        i &+= 1; j &-= 1
                    }
                }
                if rank <= j { hi = j } else if rank >= i { lo = i } else { break }
            }
            let upper = a[rank]
            guard even else { return upper }
            // The largest value below rank: all of a[0..<rank] are <= a[rank] after selection.
            var lower = a[0]
            var k = 1
            while k < rank {
                if a[k] > lower { lower = a[k] }
                k &+= 1
            }
            return 0.5 * (lower + upper)
        }
    }
}
