import RealModule

/// The median interval between a recording's samples, in fixed memory whatever its length:
/// each interval is counted in a bin 1 % wide on a log scale from 0.1 ms to 1,000 s (shorter
/// ones, repeated times included, in the first bin, longer ones in the last), and the median
/// is the mean of the intervals in the bin that holds it: exact for regular sampling, within
/// 1 % otherwise. The median is what a file's rate is judged by: dropped samples, jitter and
/// gaps move it little.
public struct SampleIntervals: Sendable {
    static let shortestSeconds = 1e-4
    static let binRatio = 1.01
    /// ln(1,000 s / 0.1 ms) / ln(1.01): 1,620 bins.
    static let binCount = Int((Double.log(1e7) / Double.log(binRatio)).rounded(.up))

    private var counts: [Int]
    private var sums: [Double]
    private var previous: Double?
    /// Intervals counted so far.
    public private(set) var count = 0

    public init() {
        counts = Array(repeating: 0, count: Self.binCount)
        sums = Array(repeating: 0, count: Self.binCount)
    }

    /// Adds the next sample's time (seconds, in time order).
    public mutating func add(timeSeconds: Double) {
        defer { previous = timeSeconds }
        guard let previous else { return }
        let interval = timeSeconds - previous
        guard interval.isFinite, interval >= 0 else { return }
        let position = interval > Self.shortestSeconds ? Double.log(interval / Self.shortestSeconds) / Double.log(Self.binRatio) : 0
        let bin = Int(min(position, Double(Self.binCount - 1)))
        counts[bin] += 1
        sums[bin] += interval
        count += 1
    }

    /// The median interval, seconds; nil before two samples.
    public var medianSeconds: Double? {
        guard count > 0 else { return nil }
        var seen = 0
        for bin in 0..<Self.binCount where counts[bin] > 0 {
            seen += counts[bin]
            if 2 * seen >= count { return sums[bin] / Double(counts[bin]) }
        }
        return nil
    }
}
