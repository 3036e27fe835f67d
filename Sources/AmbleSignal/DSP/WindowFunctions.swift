import RealModule

/// Tapering windows for spectral analysis (symmetric forms, as in NumPy and SciPy).
public enum WindowFunction {
    /// Hann window of `count` points: 0.5 - 0.5 cos(2πn / (count - 1)).
    public static func hann(count: Int) -> [Double] {
        guard count > 1 else { return Array(repeating: 1, count: count) }
        return (0..<count).map { 0.5 - 0.5 * Double.cos(2 * .pi * Double($0) / Double(count - 1)) }
    }

    /// Tukey (tapered cosine) window: flat in the middle, cosine tapers over the fraction
    /// `taper` (0 = rectangular, 1 = Hann) of its length, split between both ends.
    public static func tukey(count: Int, taper: Double) -> [Double] {
        guard count > 1, taper > 0 else { return Array(repeating: 1, count: count) }
        let width = taper * Double(count - 1) / 2
        return (0..<count).map { n in
            let x = Double(n), last = Double(count - 1)
            if x < width { return 0.5 * (1 + Double.cos(.pi * (x / width - 1))) }
            if x > last - width { return 0.5 * (1 + Double.cos(.pi * ((x - last + width) / width))) }
            return 1
        }
    }
}
