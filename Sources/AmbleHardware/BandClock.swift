/// Where the band gets time. Everything pure takes `now` as an argument; only the band's
/// loop and the chip emulators read a clock.
public protocol BandClock: AnyObject {
    /// Monotonic seconds since an arbitrary origin.
    var nowSeconds: Double { get }
    /// Seconds since 1970-01-01T00:00:00Z, consistent with `nowSeconds` (for session times).
    var unixSeconds: Double { get }
}

/// A clock that moves only when told to: tests, and the simulated board, whose loop paces it
/// against real time.
public final class ManualClock: BandClock {
    public private(set) var nowSeconds: Double
    public private(set) var unixOriginSeconds: Double

    public init(startSeconds: Double = 0, unixOriginSeconds: Double = 1_767_225_600) {
        self.nowSeconds = startSeconds
        self.unixOriginSeconds = unixOriginSeconds
    }

    public var unixSeconds: Double { unixOriginSeconds + nowSeconds }

    public func advance(bySeconds seconds: Double) {
        precondition(seconds >= 0, "time only moves forward")
        nowSeconds += seconds
    }

    /// Steps the date by `seconds` (either way), as NTP or `date -s` steps a system clock;
    /// monotonic time goes on as it was.
    public func moveDate(bySeconds seconds: Double) {
        unixOriginSeconds += seconds
    }

}
