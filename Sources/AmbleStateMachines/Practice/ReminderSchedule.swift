import AmbleModel

/// When the band reminds its wearer to take a mindful walk: the wearer's own reminder (at a
/// time of day on chosen weekdays) and each study's (daily, while it asks for one), each again
/// after a snooze and never twice for the same day. The reminders are independent: snoozing or
/// dismissing one leaves the others. Pure: the band passes the time and its UTC offset, and
/// keeps `state` in its store so that the schedule survives a restart or a power cut.
public struct ReminderSchedule: Equatable, Sendable {
    /// One reminder: when it comes and what it says.
    public struct Reminder: Equatable, Sendable {
        /// Tells it apart in `State` ("wearer", or a study's time and text).
        public var id: String
        /// Minutes after midnight, band local time.
        public var minutes: Int
        public var days: Weekdays
        public var text: String

        public init(id: String, minutes: Int, days: Weekdays, text: String) {
            self.id = id
            self.minutes = minutes
            self.days = days
            self.text = text
        }
    }

    /// What must survive a restart, for one reminder.
    public struct ItemState: Equatable, Sendable, Codable {
        /// The local day (days since 1970-01-01) whose reminder was given (or dismissed).
        public var lastDay: Int?
        /// A snoozed reminder comes again at this time, seconds since 1970.
        public var snoozedUntilUnixSeconds: Double?

        public init(lastDay: Int? = nil, snoozedUntilUnixSeconds: Double? = nil) {
            self.lastDay = lastDay
            self.snoozedUntilUnixSeconds = snoozedUntilUnixSeconds
        }
    }

    /// What must survive a restart: each reminder's state by its id.
    public struct State: Equatable, Sendable, Codable {
        public var items: [String: ItemState]

        public init(items: [String: ItemState] = [:]) { self.items = items }
    }

    /// A reminder whose time passed while the band was off comes late only within this many
    /// seconds of its time (after a power cut in the evening, not at midnight).
    public static let latenessSeconds = 1800.0

    /// The reminders in force, earliest first.
    public private(set) var reminders: [Reminder]
    public private(set) var state: State

    public init(reminders: [Reminder] = [], state: State = State()) {
        self.reminders = reminders
        self.state = state
    }

    /// The wearer's reminder (when on) and the studies' (`StudyReminder`, daily), as the band's
    /// settings and its paired laptops give them.
    public init(settings: BandSettingValues, studies: [StudyReminder] = [], state: State = State()) {
        self.init(reminders: Self.reminders(settings: settings, studies: studies), state: state)
    }

    public static func reminders(settings: BandSettingValues, studies: [StudyReminder]) -> [Reminder] {
        var all = studies.map { Reminder(id: Reminder.studyID($0), minutes: $0.minutes, days: Weekdays(bits: 0x7F), text: $0.text) }
        if settings.reminders {
            all.append(Reminder(id: Reminder.wearerID, minutes: settings.reminderMinutes, days: settings.reminderDays, text: settings.reminderText))
        }
        return all.sorted { ($0.minutes, $0.id) < ($1.minutes, $1.id) }
    }

    /// The reminders change (a setting, a laptop's study): each keeps its state, the state of
    /// those gone is dropped.
    public mutating func update(settings: BandSettingValues, studies: [StudyReminder]) {
        reminders = Self.reminders(settings: settings, studies: studies)
        let ids = Set(reminders.map(\.id))
        state.items = state.items.filter { ids.contains($0.key) }
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

    /// The first reminder due now (and marks its day as given), or nil.
    public mutating func due(unixSeconds: Double, utcOffsetSeconds: Int) -> Reminder? {
        let now = Self.localTime(unixSeconds: unixSeconds, utcOffsetSeconds: utcOffsetSeconds)
        for reminder in reminders {
            var item = state.items[reminder.id] ?? ItemState()
            defer { state.items[reminder.id] = item == ItemState() ? nil : item }
            if let snoozed = item.snoozedUntilUnixSeconds {
                guard unixSeconds >= snoozed else { continue }
                item.snoozedUntilUnixSeconds = nil
                return reminder
            }
            guard item.lastDay != now.day, reminder.days.contains(day: now.weekday) else { continue }
            let late = Double(now.minute - reminder.minutes) * 60
            guard late >= 0 else { continue }
            item.lastDay = now.day
            if late <= Self.latenessSeconds { return reminder }
        }
        return nil
    }

    /// The wearer asked to be reminded of `id` again in `minutes`.
    public mutating func snooze(_ id: String, minutes: Int, unixSeconds: Double) {
        guard reminders.contains(where: { $0.id == id }) else { return }
        state.items[id, default: ItemState()].snoozedUntilUnixSeconds = unixSeconds + Double(minutes) * 60
    }

    /// The band's date moved by `seconds` (a laptop set it, or the system clock was stepped):
    /// a snooze lasts its minutes of elapsed time, so its end moves with the date.
    public mutating func dateMoved(bySeconds seconds: Double) {
        state.items = state.items.mapValues { item in
            var moved = item
            moved.snoozedUntilUnixSeconds = item.snoozedUntilUnixSeconds.map { $0 + seconds }
            return moved
        }
    }

    /// The wearer dismissed `id` (or took the walk): nothing more of it today.
    public mutating func dismiss(_ id: String) {
        state.items[id]?.snoozedUntilUnixSeconds = nil
    }
}

extension ReminderSchedule.Reminder {
    /// The wearer's own reminder (`reminders`, `reminder_time`, `reminder_days`, `reminder_text`).
    public static let wearerID = "wearer"

    /// A study's: its time and text, so that two laptops of one study asking for the same
    /// reminder share it.
    public static func studyID(_ study: StudyReminder) -> String { "study " + study.settingValue }
}
