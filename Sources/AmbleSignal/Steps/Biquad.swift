import RealModule

/// A second-order IIR section (transposed direct form II) with Butterworth designs.
///
/// Coefficients follow R. Bristow-Johnson, "Cookbook formulae for audio EQ biquad filter
/// coefficients" (low-pass and high-pass with Q = 1/sqrt(2), i.e. Butterworth).
struct Biquad: Sendable {
    private let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    private var z1 = 0.0, z2 = 0.0
    /// Q of a second-order Butterworth section: 1/sqrt(2).
    private static let butterworthQ = 0.5.squareRoot()

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    /// Second-order Butterworth low-pass: `cutoffHz` (-3 dB) at `sampleRateHz`.
    static func lowPass(cutoffHz: Double, sampleRateHz: Double) -> Biquad {
        let w = 2 * Double.pi * cutoffHz / sampleRateHz
        let alpha = Double.sin(w) / (2 * butterworthQ)
        let c = Double.cos(w)
        return Biquad(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    /// Second-order Butterworth high-pass: `cutoffHz` (-3 dB) at `sampleRateHz`.
    static func highPass(cutoffHz: Double, sampleRateHz: Double) -> Biquad {
        let w = 2 * Double.pi * cutoffHz / sampleRateHz
        let alpha = Double.sin(w) / (2 * butterworthQ)
        let c = Double.cos(w)
        return Biquad(b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    /// Filters one sample.
    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}
