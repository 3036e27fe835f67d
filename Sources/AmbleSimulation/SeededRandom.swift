import AmbleModel
import RealModule

/// A small deterministic random source (SplitMix64): the same seed gives the same signal.
public typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Normally distributed with mean 0 and the given standard deviation (Box-Muller).
    public mutating func gaussian(standardDeviation: Double = 1) -> Double {
        let u1 = max(unit(), 1e-300), u2 = unit()
        return standardDeviation * (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * .pi * u2)
    }
}
