import RealModule

/// A forward FFT of real input, sized once (a power of two, 4...65536) and then
/// allocation-free: a complex radix-2 FFT of half the size plus the usual split step.
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
    private let twiddleCos: [Double]   // exp(-2πik/half), k < half/2
    private let twiddleSin: [Double]
    private let splitCos: [Double]     // exp(-2πik/size), k <= half
    private let splitSin: [Double]
    private var re: [Double]
    private var im: [Double]

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
        twiddleCos = (0..<max(1, h / 2)).map { Double.cos(-2 * .pi * Double($0) / Double(h)) }
        twiddleSin = (0..<max(1, h / 2)).map { Double.sin(-2 * .pi * Double($0) / Double(h)) }
        splitCos = (0...h).map { Double.cos(-2 * .pi * Double($0) / Double(size)) }
        splitSin = (0...h).map { Double.sin(-2 * .pi * Double($0) / Double(size)) }
        re = Array(repeating: 0, count: h)
        im = Array(repeating: 0, count: h)
    }

    /// Writes |X[k]|² for k in 0...size/2 into `power` (resized to `binCount` if needed) for
    /// the first `count` values of `input`, zero-padded to `size`.
    public mutating func powerSpectrum(of input: [Double], count: Int, into power: inout [Double]) {
        precondition(count <= size && count <= input.count, "RealFFT input longer than its size")
        if power.count != binCount { power = Array(repeating: 0, count: binCount) }
        transform(input, count: count)
        let h = half
        re.withUnsafeBufferPointer { zr in
            im.withUnsafeBufferPointer { zi in
                splitCos.withUnsafeBufferPointer { sc in
                    splitSin.withUnsafeBufferPointer { ss in
                        power.withUnsafeMutableBufferPointer { out in
                            for k in 0...h {
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
                        for n in 0..<h {
                            let j = reversed[n]
                            let i0 = 2 * n, i1 = 2 * n + 1
                            zrBuffer[j] = i0 < count ? x[i0] : 0
                            ziBuffer[j] = i1 < count ? x[i1] : 0
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

    /// In-place radix-2 decimation-in-time passes over bit-reversed input of length `n`.
    private static func butterflies(_ zr: UnsafeMutablePointer<Double>, _ zi: UnsafeMutablePointer<Double>, _ n: Int,
                                    _ wc: UnsafePointer<Double>, _ ws: UnsafePointer<Double>) {
        var length = 2
        while length <= n {
            let halfLength = length / 2
            let stride = n / length
            var start = 0
            while start < n {
                var w = 0
                for k in start..<(start + halfLength) {
                    let c = wc[w], s = ws[w]
                    w += stride
                    let q = k + halfLength
                    let qr = zr[q], qi = zi[q]
                    let tr = qr * c - qi * s
                    let ti = qr * s + qi * c
                    let pr = zr[k], pi = zi[k]
                    zr[q] = pr - tr
                    zi[q] = pi - ti
                    zr[k] = pr + tr
                    zi[k] = pi + ti
                }
                start += length
            }
            length *= 2
        }
    }
}
