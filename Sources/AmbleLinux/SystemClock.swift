#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware

/// The band's clock on real hardware: CLOCK_MONOTONIC (the clock of GPIO edge timestamps)
/// for time, CLOCK_REALTIME for dates. A board without a real-time clock learns the date
/// from the network after boot; reading it each time keeps later sessions' dates right.
public final class SystemClock: BandClock {
    public init() {}

    public var nowSeconds: Double { Self.read(CLOCK_MONOTONIC) }

    public var unixSeconds: Double { Self.read(CLOCK_REALTIME) }

    private static func read(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The machine's local time zone's offset from UTC at `unixSeconds` (daylight saving
/// included), seconds east of Greenwich: what `localtime_r` says from `/etc/localtime` or `TZ`.
public func localUTCOffsetSeconds(atUnixSeconds unixSeconds: Double) -> Int {
    var time = time_t(unixSeconds.rounded(.down))
    var local = tm()
    guard localtime_r(&time, &local) != nil else { return 0 }
    return Int(local.tm_gmtoff)
}

/// The machine's time zone's name as `TZ` gives it (a leading `:` and a zoneinfo path
/// dropped), else as the `/etc/localtime` link names it (`Europe/Berlin`); nil when neither
/// says. It may be a POSIX rule such as `CET-1CEST`: callers check it.
public func localTimeZoneName() -> String? {
    func zoneName(_ path: Substring) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let name = parts.lastIndex(of: "zoneinfo").map { parts[($0 + 1)...].joined(separator: "/") } ?? String(path)
        return name.isEmpty || name.hasPrefix("/") ? nil : name
    }
    if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
        return zoneName(tz.hasPrefix(":") ? tz.dropFirst() : Substring(tz))
    }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/etc/localtime", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return zoneName(Substring(String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)))
}
