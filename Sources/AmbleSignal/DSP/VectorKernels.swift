/// The inner loops of least squares and convolution, two lanes at a time (SSE2 on x86-64,
/// NEON on AArch64): a dot product and a scaled subtraction over raw buffers.
enum VectorKernels {
    /// Σ a[i] b[i] for i < n.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Double>, _ b: UnsafePointer<Double>, _ n: Int) -> Double {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var s0 = SIMD2<Double>(), s1 = SIMD2<Double>(), s2 = SIMD2<Double>(), s3 = SIMD2<Double>()
        var offset = 0
        let end = (n & ~7) &* 8
        while offset < end {
            s0 += ra.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
                * rb.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            s1 += ra.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
                * rb.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
            s2 += ra.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD2<Double>.self)
                * rb.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD2<Double>.self)
            s3 += ra.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD2<Double>.self)
                * rb.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD2<Double>.self)
            offset &+= 64
        }
        while offset &+ 16 <= n &* 8 {
            s0 += ra.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
                * rb.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            offset &+= 16
        }
        var sum = ((s0 + s1) + (s2 + s3)).sum()
        var i = offset / 8
        while i < n {
            sum += a[i] * b[i]
            i &+= 1
        }
        return sum
    }

    /// y[i] -= c × x[i] for i < n.
    @inline(__always)
    static func subtractScaled(_ c: Double, _ x: UnsafePointer<Double>, from y: UnsafeMutablePointer<Double>, _ n: Int) {
        let rx = UnsafeRawPointer(x), ry = UnsafeMutableRawPointer(y)
        let scale = SIMD2<Double>(repeating: c)
        var offset = 0
        let end = (n & ~3) &* 8
        while offset < end {
            let v0 = ry.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
                - scale * rx.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            let v1 = ry.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
                - scale * rx.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
            ry.storeBytes(of: v0, toByteOffset: offset, as: SIMD2<Double>.self)
            ry.storeBytes(of: v1, toByteOffset: offset &+ 16, as: SIMD2<Double>.self)
            offset &+= 32
        }
        var i = n & ~3
        while i < n {
            y[i] -= c * x[i]
            i &+= 1
        }
    }
    /// y[i] = x[i] for i < n (the buffers do not overlap): a memcpy in the ordinary build. Embedded
    /// Swift (the cost on the band's processor, scripts/bench-pipeline-aarch64) makes
    /// `update(from:count:)` a call per element, so there it is a loop.
    @inline(__always)
    static func copy(_ x: UnsafePointer<Double>, to y: UnsafeMutablePointer<Double>, _ n: Int) {
        #if hasFeature(Embedded)
        var i = 0
        while i < n {
            y[i] = x[i]
            i &+= 1
        }
        #else
        y.update(from: x, count: n)
        #endif
    }
}
