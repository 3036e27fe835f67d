import RealModule

/// Tapering windows for spectral analysis.
public enum WindowFunction {
    /// Hann window of `count` points without zero end points: the Hann window of `count + 2`
    /// points with its two zeros dropped (NumPy's `hanning(count + 2)[1:-1]`), so that every
    /// sample carries some weight: 0.5 - 0.5 cos(2π(n + 1) / (count + 1)).
    public static func hann(count: Int) -> [Double] {
        (0..<count).map { 0.5 - 0.5 * Double.cos(2 * .pi * Double($0 + 1) / Double(count + 1)) }
    }
}
