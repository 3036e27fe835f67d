#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware

/// The band's clock on Linux: CLOCK_MONOTONIC (the clock of GPIO edge timestamps), optionally
/// sped up for the simulated board. At speed 1 `nowSeconds` is CLOCK_MONOTONIC itself.
public final class SystemClock: BandClock {
    public let speed: Double
    private let originMonotonic: Double
    private let originUnix: Double

    public init(speed: Double = 1) {
        precondition(speed > 0, "speed must be positive")
        self.speed = speed
        originMonotonic = Self.read(CLOCK_MONOTONIC)
        originUnix = Self.read(CLOCK_REALTIME)
    }

    public var nowSeconds: Double {
        originMonotonic + (Self.read(CLOCK_MONOTONIC) - originMonotonic) * speed
    }

    public var unixSeconds: Double {
        originUnix + (nowSeconds - originMonotonic)
    }

    public func realSeconds(forBandSeconds seconds: Double) -> Double { seconds / speed }

    private static func read(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
