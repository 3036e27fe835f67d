import RealModule

/// A second-order IIR section (transposed direct form II), with Butterworth designs.
///
/// Coefficients are normalised so that a0 = 1:
/// y[n] = b0 x[n] + b1 x[n-1] + b2 x[n-2] - a1 y[n-1] - a2 y[n-2].
public struct Biquad: Sendable, Equatable {
    public var b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    private var s1 = 0.0, s2 = 0.0

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.a1 = a1; self.a2 = a2
    }

    /// Second-order Butterworth low-pass, -3 dB at `cutoffHz` (0 < cutoff < rate / 2).
    public static func butterworthLowPass(cutoffHz: Double, sampleRateHz: Double) -> Biquad {
        let (cosW, alpha) = prewarped(cutoffHz, sampleRateHz)
        let a0 = 1 + alpha
        return Biquad(b0: (1 - cosW) / 2 / a0, b1: (1 - cosW) / a0, b2: (1 - cosW) / 2 / a0,
                      a1: -2 * cosW / a0, a2: (1 - alpha) / a0)
    }

    /// Second-order Butterworth high-pass, -3 dB at `cutoffHz` (0 < cutoff < rate / 2).
    public static func butterworthHighPass(cutoffHz: Double, sampleRateHz: Double) -> Biquad {
        let (cosW, alpha) = prewarped(cutoffHz, sampleRateHz)
        let a0 = 1 + alpha
        return Biquad(b0: (1 + cosW) / 2 / a0, b1: -(1 + cosW) / a0, b2: (1 + cosW) / 2 / a0,
                      a1: -2 * cosW / a0, a2: (1 - alpha) / a0)
    }

    private static func prewarped(_ cutoffHz: Double, _ rateHz: Double) -> (cosW: Double, alpha: Double) {
        precondition(cutoffHz > 0 && cutoffHz < rateHz / 2, "cutoff must lie between 0 and the Nyquist frequency")
        let w = 2 * Double.pi * cutoffHz / rateHz
        let butterworthQ = 0.5.squareRoot()
        return (Double.cos(w), Double.sin(w) / (2 * butterworthQ))
    }

    /// Gain at 0 Hz.
    public var dcGain: Double { (b0 + b1 + b2) / (1 + a1 + a2) }

    /// Filters one sample.
    @inline(__always)
    public mutating func process(_ x: Double) -> Double {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        return y
    }

    /// Puts the state where a constant input `x` has been applied forever: no start-up
    /// transient, however large the input's DC level. Returns the steady output.
    @discardableResult
    public mutating func settle(onConstantInput x: Double) -> Double {
        let y = dcGain * x
        s2 = b2 * x - a2 * y
        s1 = y - b0 * x
        return y
    }
}

/// A band-pass as a Butterworth high-pass followed by a Butterworth low-pass (each second
/// order): flat in the pass band, 12 dB/octave on each side.
public struct BandPassFilter: Sendable, Equatable {
    private var highPass: Biquad
    private var lowPass: Biquad

    public init(lowCutoffHz: Double, highCutoffHz: Double, sampleRateHz: Double) {
        highPass = .butterworthHighPass(cutoffHz: lowCutoffHz, sampleRateHz: sampleRateHz)
        lowPass = .butterworthLowPass(cutoffHz: highCutoffHz, sampleRateHz: sampleRateHz)
    }

    @inline(__always)
    public mutating func process(_ x: Double) -> Double {
        lowPass.process(highPass.process(x))
    }

    /// Starts from steady state on a constant input (output 0): a large DC offset in the first
    /// sample causes no transient.
    public mutating func settle(onConstantInput x: Double) {
        lowPass.settle(onConstantInput: highPass.settle(onConstantInput: x))
    }
}

/// `BandPassFilter` on four signals at once (SIMD4 lanes: |a| and the three axes). Each lane
/// does exactly the arithmetic of a `BandPassFilter` of its own, in the same order, so the
/// results are the same to the last bit; the four share the instructions.
struct BandPassFilter4: Sendable {
    private var highPass: Biquad4
    private var lowPass: Biquad4

    init(lowCutoffHz: Double, highCutoffHz: Double, sampleRateHz: Double) {
        highPass = Biquad4(.butterworthHighPass(cutoffHz: lowCutoffHz, sampleRateHz: sampleRateHz))
        lowPass = Biquad4(.butterworthLowPass(cutoffHz: highCutoffHz, sampleRateHz: sampleRateHz))
    }

    @inline(__always)
    mutating func process(_ x: SIMD4<Double>) -> SIMD4<Double> {
        lowPass.process(highPass.process(x))
    }

    /// As `BandPassFilter.settle`, each lane on its own constant input.
    mutating func settle(onConstantInput x: SIMD4<Double>) {
        lowPass.settle(onConstantInput: highPass.settle(onConstantInput: x))
    }

    /// `Biquad` on four lanes.
    private struct Biquad4: Sendable {
        let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double, dcGain: Double
        var s1 = SIMD4<Double>(), s2 = SIMD4<Double>()

        init(_ biquad: Biquad) {
            (b0, b1, b2, a1, a2, dcGain) = (biquad.b0, biquad.b1, biquad.b2, biquad.a1, biquad.a2, biquad.dcGain)
        }

        @inline(__always)
        mutating func process(_ x: SIMD4<Double>) -> SIMD4<Double> {
            let y = x * b0 + s1
            s1 = x * b1 - y * a1 + s2
            s2 = x * b2 - y * a2
            return y
        }

        @discardableResult
        mutating func settle(onConstantInput x: SIMD4<Double>) -> SIMD4<Double> {
            let y = x * dcGain
            s2 = x * b2 - y * a2
            s1 = y - x * b0
            return y
        }
    }
}
