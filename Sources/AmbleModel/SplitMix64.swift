/// SplitMix64 (Steele, Lea and Flood, 2014; the seeding generator of xoshiro): a 64-bit state
/// advanced by a constant, each output a mix of it. Small, fast, every seed good; a value, so
/// the caller owns its state: the same seed gives the same numbers on every machine and
/// release. The study's allocation (`BlockRandomisation`) and the simulation's signals
/// (`SeededRandom`) draw from it.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A whole number in `0 ..< bound`, uniform (rejection of the biased top: Lemire's
    /// multiply-shift), by this code rather than the standard library's, whose algorithm may
    /// change between releases.
    public mutating func next(below bound: Int) -> Int {
        precondition(bound > 0)
        let range = UInt64(bound)
        let threshold = (0 &- range) % range
        while true {
            let product = next().multipliedFullWidth(by: range)
            if product.low >= threshold { return Int(product.high) }
        }
    }
}
