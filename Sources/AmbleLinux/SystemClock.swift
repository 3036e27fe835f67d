#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware

/// The band's clock on real hardware: CLOCK_MONOTONIC, the clock of GPIO edge timestamps.
public final class SystemClock: BandClock {
    private let originMonotonic: Double
    private let originUnix: Double

    public init() {
        originMonotonic = Self.read(CLOCK_MONOTONIC)
        originUnix = Self.read(CLOCK_REALTIME)
    }

    public var nowSeconds: Double { Self.read(CLOCK_MONOTONIC) }

    public var unixSeconds: Double { originUnix + (nowSeconds - originMonotonic) }

    private static func read(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
