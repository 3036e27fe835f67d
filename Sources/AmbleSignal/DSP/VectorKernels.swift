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

    /// (Σ a[i] b0[i], Σ a[i] b1[i]) for i < n: two `dot`s in one pass over `a`, each summed in
    /// the same order as `dot` sums it, so the same to the last bit.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Double>, _ b0: UnsafePointer<Double>, _ b1: UnsafePointer<Double>, _ n: Int) -> SIMD2<Double> {
        let ra = UnsafeRawPointer(a), r0 = UnsafeRawPointer(b0), r1 = UnsafeRawPointer(b1)
        var s0 = SIMD2<Double>(), s1 = SIMD2<Double>(), s2 = SIMD2<Double>(), s3 = SIMD2<Double>()
        var t0 = SIMD2<Double>(), t1 = SIMD2<Double>(), t2 = SIMD2<Double>(), t3 = SIMD2<Double>()
        var offset = 0
        let end = (n & ~7) &* 8
        while offset < end {
            let a0 = ra.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            let a1 = ra.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
            let a2 = ra.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD2<Double>.self)
            let a3 = ra.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD2<Double>.self)
            s0 += a0 * r0.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            s1 += a1 * r0.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
            s2 += a2 * r0.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD2<Double>.self)
            s3 += a3 * r0.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD2<Double>.self)
            t0 += a0 * r1.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            t1 += a1 * r1.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD2<Double>.self)
            t2 += a2 * r1.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD2<Double>.self)
            t3 += a3 * r1.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD2<Double>.self)
            offset &+= 64
        }
        while offset &+ 16 <= n &* 8 {
            let a0 = ra.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            s0 += a0 * r0.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            t0 += a0 * r1.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            offset &+= 16
        }
        var sum = ((s0 + s1) + (s2 + s3)).sum(), other = ((t0 + t1) + (t2 + t3)).sum()
        var i = offset / 8
        while i < n {
            sum += a[i] * b0[i]
            other += a[i] * b1[i]
            i &+= 1
        }
        return SIMD2(sum, other)
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

    /// y[i] = (((y[i] - c[0] x0[i]) - c[1] x1[i]) - c[2] x2[i]) - c[3] x3[i] for i < n: four
    /// `subtractScaled` passes in one, the same to the last bit (each element takes the four
    /// products in the same order), reading and writing y once instead of four times.
    @inline(__always)
    static func subtractScaled(_ c: SIMD4<Double>, _ x0: UnsafePointer<Double>, _ x1: UnsafePointer<Double>, _ x2: UnsafePointer<Double>,
                               _ x3: UnsafePointer<Double>, from y: UnsafeMutablePointer<Double>, _ n: Int) {
        let r0 = UnsafeRawPointer(x0), r1 = UnsafeRawPointer(x1), r2 = UnsafeRawPointer(x2), r3 = UnsafeRawPointer(x3)
        let ry = UnsafeMutableRawPointer(y)
        let c0 = SIMD2<Double>(repeating: c[0]), c1 = SIMD2<Double>(repeating: c[1])
        let c2 = SIMD2<Double>(repeating: c[2]), c3 = SIMD2<Double>(repeating: c[3])
        var offset = 0
        let end = (n & ~1) &* 8
        while offset < end {
            var v = ry.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            v = v - c0 * r0.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            v = v - c1 * r1.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            v = v - c2 * r2.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            v = v - c3 * r3.loadUnaligned(fromByteOffset: offset, as: SIMD2<Double>.self)
            ry.storeBytes(of: v, toByteOffset: offset, as: SIMD2<Double>.self)
            offset &+= 16
        }
        if n & 1 == 1 {
            let i = n &- 1
            y[i] -= c[0] * x0[i]
            y[i] -= c[1] * x1[i]
            y[i] -= c[2] * x2[i]
            y[i] -= c[3] * x3[i]
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
