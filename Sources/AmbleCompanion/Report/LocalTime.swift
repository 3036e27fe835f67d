/// Dates and clock times as the wearer reads them: in a time zone given as its offset from UTC
/// at each instant, so that tests pass a fixed one and the command passes the machine's
/// (`localUTCOffsetSeconds`, which follows `TZ` and daylight saving).
public struct LocalTime: Sendable {
    /// Seconds east of UTC at a Unix time (seconds since 1970-01-01T00:00:00Z).
    public let offsetSeconds: @Sendable (Double) -> Int

    public init(offsetSeconds: @escaping @Sendable (Double) -> Int) { self.offsetSeconds = offsetSeconds }

    static let utc = LocalTime { _ in 0 }
    static func fixed(offsetSeconds: Int) -> LocalTime { LocalTime { _ in offsetSeconds } }

    /// The local calendar day of an instant.
    public func day(_ unixSeconds: Double) -> CivilDay {
        let local = Int((unixSeconds + Double(offsetSeconds(unixSeconds))).rounded(.down))
        return CivilDay(daysSinceEpoch: floorDivide(local, 86_400))
    }

    /// Seconds since local midnight, 0..<86400.
    public func secondOfDay(_ unixSeconds: Double) -> Int {
        let local = Int((unixSeconds + Double(offsetSeconds(unixSeconds))).rounded(.down))
        return local - floorDivide(local, 86_400) * 86_400
    }

    /// The Unix time of a day's local midnight (the offset looked up twice, so that a day
    /// that starts in another offset than the instant 00:00 UTC is still right).
    public func startOfDay(_ day: CivilDay) -> Double {
        let guess = Double(day.daysSinceEpoch * 86_400)
        let first = guess - Double(offsetSeconds(guess))
        return guess - Double(offsetSeconds(first))
    }

    /// `14:03`.
    public func clock(_ unixSeconds: Double) -> String {
        let s = secondOfDay(unixSeconds)
        return two(s / 3600) + ":" + two((s % 3600) / 60)
    }

    /// `Thu 1 Jan 2026, 14:03`.
    public func dateAndClock(_ unixSeconds: Double) -> String {
        day(unixSeconds).long + ", " + clock(unixSeconds)
    }

    /// `UTC+01:00` (or `UTC`): the offset at an instant, said on the page next to local times.
    public func zoneLabel(_ unixSeconds: Double) -> String {
        let offset = offsetSeconds(unixSeconds)
        guard offset != 0 else { return "UTC" }
        let minutes = abs(offset) / 60
        return "UTC" + (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }
}

/// A calendar day (proleptic Gregorian), counted from 1970-01-01.
public struct CivilDay: Hashable, Comparable, Sendable {
    public var daysSinceEpoch: Int

    public init(daysSinceEpoch: Int) { self.daysSinceEpoch = daysSinceEpoch }

    /// From a year, month (1–12) and day (1–31); nil when no such day exists.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilDay.daysIn(year: year, month: month) else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        daysSinceEpoch = era * 146_097 + dayOfEra - 719_468
    }

    /// `2026-01-05` or `2026-01` (the month's first day); nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts[0].count == 4, parts.dropFirst().allSatisfy({ $0.count == 2 }),
              let year = Int(parts[0]), let month = Int(parts[1]) else { return nil }
        let day = parts.count == 3 ? Int(parts[2]) : 1
        guard let day else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public var components: (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil_from_days.
        let z = daysSinceEpoch + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// 0 Monday ... 6 Sunday.
    public var weekday: Int { floorModulo(daysSinceEpoch + 3, 7) }

    public func adding(days: Int) -> CivilDay { CivilDay(daysSinceEpoch: daysSinceEpoch + days) }

    /// The Monday of this day's week.
    public var startOfWeek: CivilDay { adding(days: -weekday) }

    public var startOfMonth: CivilDay {
        let c = components
        return CivilDay(year: c.year, month: c.month, day: 1)!
    }

    /// The first day of the next month.
    public var startOfNextMonth: CivilDay {
        let c = components
        return c.month == 12 ? CivilDay(year: c.year + 1, month: 1, day: 1)! : CivilDay(year: c.year, month: c.month + 1, day: 1)!
    }

    public static func < (a: CivilDay, b: CivilDay) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    public static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    public static let longMonthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// `2026-01-05`.
    public var iso: String {
        let c = components
        return String(c.year) + "-" + two(c.month) + "-" + two(c.day)
    }

    /// `Mon 5 Jan 2026`.
    public var long: String {
        let c = components
        return "\(CivilDay.weekdayNames[weekday]) \(c.day) \(CivilDay.monthNames[c.month - 1]) \(c.year)"
    }

    /// `Mon 5`.
    public var short: String { "\(CivilDay.weekdayNames[weekday]) \(components.day)" }

    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
func floorModulo(_ a: Int, _ b: Int) -> Int { a - floorDivide(a, b) * b }
private func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
