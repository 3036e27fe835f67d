import AmbleModel

/// When the band reminds its wearer to take a mindful walk: at a time of day on chosen
/// weekdays (band local time), again after a snooze, never twice for the same day. Pure: the
/// band passes the time and its UTC offset, and keeps `state` in its store so that the
/// schedule survives a restart or a power cut.
public struct ReminderSchedule: Equatable, Sendable {
    /// What must survive a restart.
    public struct State: Equatable, Sendable, Codable {
        /// The local day (days since 1970-01-01) whose reminder was given (or dismissed).
        public var lastDay: Int?
        /// A snoozed reminder comes again at this time, seconds since 1970.
        public var snoozedUntilUnixSeconds: Double?

        public init(lastDay: Int? = nil, snoozedUntilUnixSeconds: Double? = nil) {
            self.lastDay = lastDay
            self.snoozedUntilUnixSeconds = snoozedUntilUnixSeconds
        }
    }

    /// A reminder whose time passed while the band was off comes late only within this many
    /// seconds of its time (after a power cut in the evening, not at midnight).
    public static let latenessSeconds = 1800.0

    public var settings: BandSettingValues
    public private(set) var state: State

    public init(settings: BandSettingValues, state: State = State()) {
        self.settings = settings
        self.state = state
    }

    /// Local day number and minute of the day at `unixSeconds`.
    public static func localTime(unixSeconds: Double, utcOffsetSeconds: Int) -> (day: Int, minute: Int, weekday: Int) {
        let local = unixSeconds + Double(utcOffsetSeconds)
        let day = Int((local / 86_400).rounded(.down))
        let minute = Int(((local - Double(day) * 86_400) / 60).rounded(.down))
        // 1970-01-01 was a Thursday: Monday-based weekday 3.
        let weekday = ((day + 3) % 7 + 7) % 7
        return (day, minute, weekday)
    }

    /// The reminder's text when one is due now (and marks today's as given); nil otherwise.
    public mutating func due(unixSeconds: Double, utcOffsetSeconds: Int) -> String? {
        guard settings.reminders else { return nil }
        if let snoozed = state.snoozedUntilUnixSeconds {
            guard unixSeconds >= snoozed else { return nil }
            state.snoozedUntilUnixSeconds = nil
            return settings.reminderText
        }
        let now = Self.localTime(unixSeconds: unixSeconds, utcOffsetSeconds: utcOffsetSeconds)
        guard state.lastDay != now.day, settings.reminderDays.contains(day: now.weekday) else { return nil }
        let late = Double(now.minute - settings.reminderMinutes) * 60
        guard late >= 0 else { return nil }
        state.lastDay = now.day
        return late <= Self.latenessSeconds ? settings.reminderText : nil
    }

    /// The wearer asked to be reminded again in `minutes`.
    public mutating func snooze(minutes: Int, unixSeconds: Double) {
        state.snoozedUntilUnixSeconds = unixSeconds + Double(minutes) * 60
    }

    /// The band's date moved by `seconds` (a laptop set it, or the system clock was stepped):
    /// a snooze lasts its minutes of elapsed time, so its end moves with the date.
    public mutating func dateMoved(bySeconds seconds: Double) {
        state.snoozedUntilUnixSeconds = state.snoozedUntilUnixSeconds.map { $0 + seconds }
    }

    /// The wearer dismissed it (or took the walk): nothing more today.
    public mutating func dismiss() {
        state.snoozedUntilUnixSeconds = nil
    }
}
