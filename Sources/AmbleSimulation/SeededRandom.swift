import RealModule

/// A small deterministic random source (SplitMix64): the same seed gives the same signal.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

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
