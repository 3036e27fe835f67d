import RealModule

/// A forward FFT of real input, sized once (a power of two, 4...65536) and then
/// allocation-free: a complex FFT of half the size (radix-4 passes, one radix-2 pass first
/// when the half size is an odd power of two) plus the usual split step.
///
/// Input shorter than `size` is zero-padded. Bin `k` of the output is at `k / size` times the
/// sample rate, for k in 0...size/2.
public struct RealFFT: Sendable {
    /// Transform length (number of input points after zero padding).
    public let size: Int
    /// Number of output bins: size / 2 + 1 (DC to Nyquist).
    public var binCount: Int { size / 2 + 1 }

    private let half: Int
    private let bitReversed: [Int]
    private let twiddleCos: [Double]   // exp(-2πik/half), k < half
    private let twiddleSin: [Double]
    private let splitCos: [Double]     // exp(-2πik/size), k <= half
    private let splitSin: [Double]
    private var re: [Double]
    private var im: [Double]

    /// Values held (tables and scratch), for tests of fixed memory.
    var bufferElementCount: Int {
        bitReversed.count + twiddleCos.count + twiddleSin.count + splitCos.count + splitSin.count + re.count + im.count
    }

    public init(size: Int) {
        precondition(size >= 4 && size <= 65536 && size & (size - 1) == 0, "RealFFT size must be a power of two in 4...65536")
        self.size = size
        half = size / 2
        var bits = 0
        while 1 << bits < half { bits += 1 }
        bitReversed = (0..<half).map { i in
            var r = 0, v = i
            for _ in 0..<bits { r = (r << 1) | (v & 1); v >>= 1 }
            return r
        }
        let h = half
        twiddleCos = (0..<h).map { Double.cos(-2 * .pi * Double($0) / Double(h)) }
        twiddleSin = (0..<h).map { Double.sin(-2 * .pi * Double($0) / Double(h)) }
        splitCos = (0...h).map { Double.cos(-2 * .pi * Double($0) / Double(size)) }
        splitSin = (0...h).map { Double.sin(-2 * .pi * Double($0) / Double(size)) }
        re = Array(repeating: 0, count: h)
        im = Array(repeating: 0, count: h)
    }

    /// Writes |X[k]|² for k in 0...`lastBin` (default size/2) into `power` (resized to
    /// `binCount` if needed; bins past `lastBin` are left as they were) for the first `count`
    /// values of `input`, zero-padded to `size`.
    public mutating func powerSpectrum(of input: [Double], count: Int, into power: inout [Double], lastBin: Int? = nil) {
        precondition(count <= size && count <= input.count, "RealFFT input longer than its size")
        if power.count != binCount { power = Array(repeating: 0, count: binCount) }
        transform(input, count: count)
        let h = half
        let last = min(h, max(0, lastBin ?? h))
        re.withUnsafeBufferPointer { zr in
            im.withUnsafeBufferPointer { zi in
                splitCos.withUnsafeBufferPointer { sc in
                    splitSin.withUnsafeBufferPointer { ss in
                        power.withUnsafeMutableBufferPointer { out in
                            for k in 0...last {
                                let a = k == h ? 0 : k
                                let b = k == 0 ? 0 : h - k
                                let er = 0.5 * (zr[a] + zr[b]), ei = 0.5 * (zi[a] - zi[b])
                                let or = 0.5 * (zi[a] + zi[b]), oi = -0.5 * (zr[a] - zr[b])
                                let c = sc[k], s = ss[k]
                                let xr = er + c * or - s * oi
                                let xi = ei + c * oi + s * or
                                out[k] = xr * xr + xi * xi
                            }
                        }
                    }
                }
            }
        }
    }

    /// Complex FFT of the packed input z[n] = x[2n] + i x[2n+1], left in `re`, `im`.
    private mutating func transform(_ input: [Double], count: Int) {
        let h = half
        re.withUnsafeMutableBufferPointer { zrBuffer in
            im.withUnsafeMutableBufferPointer { ziBuffer in
                input.withUnsafeBufferPointer { x in
                    bitReversed.withUnsafeBufferPointer { reversed in
                        // Pairs of values, then a last odd value, then zeros.
                        let pairs = count / 2
                        for n in 0..<pairs {
                            let j = reversed[n]
                            zrBuffer[j] = x[2 &* n]
                            ziBuffer[j] = x[2 &* n &+ 1]
                        }
                        for n in pairs..<h {
                            let j = reversed[n]
                            zrBuffer[j] = 2 &* n < count ? x[2 &* n] : 0
                            ziBuffer[j] = 0
                        }
                    }
                }
                twiddleCos.withUnsafeBufferPointer { wc in
                    twiddleSin.withUnsafeBufferPointer { ws in
                        Self.butterflies(zrBuffer.baseAddress!, ziBuffer.baseAddress!, h, wc.baseAddress!, ws.baseAddress!)
                    }
                }
            }
        }
    }

    /// In-place decimation-in-time passes over bit-reversed input of length `n` (a power of
    /// two): a radix-2 pass when log2(n) is odd, then radix-4 passes, each doing the work of
    /// two radix-2 passes with three twiddle products instead of four.
    private static func butterflies(_ zr: UnsafeMutablePointer<Double>, _ zi: UnsafeMutablePointer<Double>, _ n: Int,
                                    _ wc: UnsafePointer<Double>, _ ws: UnsafePointer<Double>) {
        var m = 1   // length of the transforms already done
        if n.trailingZeroBitCount & 1 == 1 {
            var k = 0
            while k < n {
                let ar = zr[k], ai = zi[k], br = zr[k &+ 1], bi = zi[k &+ 1]
                zr[k] = ar + br; zi[k] = ai + bi
                zr[k &+ 1] = ar - br; zi[k &+ 1] = ai - bi
                k &+= 2
            }
            m = 2
        } else if n >= 4 {
            // The first radix-4 pass: every twiddle is 1.
            var i0 = 0
            while i0 < n {
                let i1 = i0 &+ 1, i2 = i0 &+ 2, i3 = i0 &+ 3
                let p0r = zr[i0] + zr[i1], p0i = zi[i0] + zi[i1]
                let p1r = zr[i0] - zr[i1], p1i = zi[i0] - zi[i1]
                let q0r = zr[i2] + zr[i3], q0i = zi[i2] + zi[i3]
                let q1r = zr[i2] - zr[i3], q1i = zi[i2] - zi[i3]
                zr[i0] = p0r + q0r; zi[i0] = p0i + q0i
                zr[i2] = p0r - q0r; zi[i2] = p0i - q0i
                zr[i1] = p1r + q1i; zi[i1] = p1i - q1r
                zr[i3] = p1r - q1i; zi[i3] = p1i + q1r
                i0 &+= 4
            }
            m = 4
        }
        // Two butterflies at a time (k and k + 1: m is even from here on), each lane doing what
        // one butterfly did alone, so the result is the same to the last bit.
        let rr = UnsafeMutableRawPointer(zr), ri = UnsafeMutableRawPointer(zi)
        while m < n {
            let length = m &* 4
            let stride = n / length   // twiddle step: V^k = exp(-2πik/length) = w[k stride]
            var start = 0
            while start < n {
                var k = 0
                while k < m {
                    let i0 = start &+ k, i1 = i0 &+ m, i2 = i1 &+ m, i3 = i2 &+ m
                    // Inputs in bit-reversed halves: x[i1] belongs with V², x[i2] with V.
                    let t = k &* stride, u = t &+ stride
                    let c1 = SIMD2(wc[t], wc[u]), s1 = SIMD2(ws[t], ws[u])
                    let c2 = SIMD2(wc[t &* 2], wc[u &* 2]), s2 = SIMD2(ws[t &* 2], ws[u &* 2])
                    let c3 = SIMD2(wc[t &* 3], wc[u &* 3]), s3 = SIMD2(ws[t &* 3], ws[u &* 3])
                    let a0r = rr.loadUnaligned(fromByteOffset: i0 &* 8, as: SIMD2<Double>.self)
                    let a0i = ri.loadUnaligned(fromByteOffset: i0 &* 8, as: SIMD2<Double>.self)
                    let x1r = rr.loadUnaligned(fromByteOffset: i1 &* 8, as: SIMD2<Double>.self)
                    let x1i = ri.loadUnaligned(fromByteOffset: i1 &* 8, as: SIMD2<Double>.self)
                    let x2r = rr.loadUnaligned(fromByteOffset: i2 &* 8, as: SIMD2<Double>.self)
                    let x2i = ri.loadUnaligned(fromByteOffset: i2 &* 8, as: SIMD2<Double>.self)
                    let x3r = rr.loadUnaligned(fromByteOffset: i3 &* 8, as: SIMD2<Double>.self)
                    let x3i = ri.loadUnaligned(fromByteOffset: i3 &* 8, as: SIMD2<Double>.self)
                    let a1r = x1r * c2 - x1i * s2, a1i = x1r * s2 + x1i * c2
                    let a2r = x2r * c1 - x2i * s1, a2i = x2r * s1 + x2i * c1
                    let a3r = x3r * c3 - x3i * s3, a3i = x3r * s3 + x3i * c3
                    let p0r = a0r + a1r, p0i = a0i + a1i
                    let p1r = a0r - a1r, p1i = a0i - a1i
                    let q0r = a2r + a3r, q0i = a2i + a3i
                    let q1r = a2r - a3r, q1i = a2i - a3i
                    rr.storeBytes(of: p0r + q0r, toByteOffset: i0 &* 8, as: SIMD2<Double>.self)
                    ri.storeBytes(of: p0i + q0i, toByteOffset: i0 &* 8, as: SIMD2<Double>.self)
                    rr.storeBytes(of: p0r - q0r, toByteOffset: i2 &* 8, as: SIMD2<Double>.self)
                    ri.storeBytes(of: p0i - q0i, toByteOffset: i2 &* 8, as: SIMD2<Double>.self)
                    // -i (q1r + i q1i) = q1i - i q1r
                    rr.storeBytes(of: p1r + q1i, toByteOffset: i1 &* 8, as: SIMD2<Double>.self)
                    ri.storeBytes(of: p1i - q1r, toByteOffset: i1 &* 8, as: SIMD2<Double>.self)
                    rr.storeBytes(of: p1r - q1i, toByteOffset: i3 &* 8, as: SIMD2<Double>.self)
                    ri.storeBytes(of: p1i + q1r, toByteOffset: i3 &* 8, as: SIMD2<Double>.self)
                    k &+= 2
                }
                start &+= length
            }
            m = length
        }
    }
}
