/// The band's settings by key (the key each is stored and sent under). Stored on the band as
/// text, one row per key; the wearer changes them in the band's Settings menu and a paired
/// laptop with `amble band settings`; the band applies them at once. Each is declared once, with
/// its type, default, allowed values and menu text, in `SettingKeys` (`key`).
public enum BandSetting: String, CaseIterable, Sendable, Codable {
    /// How much slower than the calibrated pace a mindful walk asks for by default, per cent.
    case reductionPercent = "reduction_percent"
    /// The reductions offered when a walk starts, per cent, comma-separated.
    case reductionChoices = "reduction_choices"
    /// How long a calibration walk measures, seconds.
    case calibrationSeconds = "calibration_seconds"
    /// How the band says "too fast": three firm pulses, one gentle pulse, or the screen only.
    case alertStyle = "alert_style"
    /// How strongly the alert vibrates (it is raised further while the wrist moves a lot).
    case alertStrength = "alert_strength"
    /// A gentle tick at the limit pace during mindful walks: on or off.
    case metronome
    /// Consent to heart rate: off puts the PPG sensor in shutdown and stores nothing of it.
    case consentHeartRate = "consent_heart_rate"
    /// Consent to raw sensor capture (a session's accelerometer and PPG samples, for research).
    case consentRawCapture = "consent_raw_capture"
    /// Reminders to take a mindful walk: on or off.
    case reminders
    /// When a reminder comes, band local time, HH:MM.
    case reminderTime = "reminder_time"
    /// On which days: daily, weekdays, weekends, or days like mon,wed,fri.
    case reminderDays = "reminder_days"
    /// What the reminder says ("after lunch I walk mindfully").
    case reminderText = "reminder_text"
    /// The wearer's height, cm (step length before calibration).
    case heightCentimeters = "height_cm"
    /// The wearer's weight, kg (active energy).
    case weightKilograms = "weight_kg"
    /// The band's name, shown by `amble bands` and in sessions.
    case bandName = "band_name"
    /// Synced sessions older than this many days are removed from the band.
    case retentionDays = "retention_days"
    /// A line the laptop computes from the wearer's goals after a sync ("Today 64% walks 1/3"),
    /// shown on the band's menu; empty shows nothing.
    case goalProgress = "goal_progress"

    /// The most characters `goal_progress` holds (printable ASCII; the OLED shows 21).
    public static let goalProgressMaximumLength = 32

    /// "HH:MM" as minutes after midnight, or nil.
    public static func minutesOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1 ... 2).contains(parts[0].count), parts[1].count == 2,
              let h = Int(parts[0]), let m = Int(parts[1]), (0 ... 23).contains(h), (0 ... 59).contains(m) else { return nil }
        return h * 60 + m
    }

    /// Minutes after midnight as "HH:MM".
    public static func clock(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }
}

// MARK: Who may change what

/// Who owns a setting, and so who may change it: what keeps two laptops syncing one band from
/// undoing each other's work, or the wearer's.
public enum SettingOwner: String, Sendable {
    /// The wearer: the band's Settings menu, or the wearer at a paired laptop (`amble band
    /// settings set`). A sync never changes it; a study's reminder is its own (`LaptopSetting`).
    case wearer
    /// The syncs of paired laptops, from what each laptop keeps (the goals' line). The latest
    /// sync's value is shown; no one sets it by hand.
    case laptopSync = "laptop sync"
}

extension BandSetting {
    /// Who may change this setting.
    public var owner: SettingOwner { self == .goalProgress ? .laptopSync : .wearer }
}

/// A setting each paired laptop keeps on the band for itself, apart from the wearer's
/// settings and from every other laptop's: a laptop's sync sets its own, and sees only its own.
/// The band keeps each until the laptop is forgotten (the menu's Forget laptops, a wipe).
public enum LaptopSetting: String, CaseIterable, Sendable {
    /// The daily reminder a study joined on this laptop asks for while a questionnaire is due
    /// (`StudyReminder`): "off", or "HH:MM TEXT". The wearer's own reminder is never touched;
    /// the band gives both.
    case studyReminder = "study_reminder"

    public var defaultValue: String { "off" }

    public var allowed: String {
        "off, or a time of day and a text of 1 to 40 characters: HH:MM TEXT (set by amble sync from a joined study)"
    }

    /// The value in its canonical form, or an error that says what is allowed.
    public func validate(_ raw: String) throws(LaptopSettingError) -> String {
        let value = raw.trimmingWhitespace()
        if value.lowercased() == "off" { return "off" }
        guard let reminder = StudyReminder(settingValue: value) else { throw LaptopSettingError(setting: self, value: raw) }
        return reminder.settingValue
    }
}

public struct LaptopSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var setting: LaptopSetting
    public var value: String
    public var description: String {
        "\(setting.rawValue): \"\(value)\" is not allowed; expected \(setting.allowed)"
    }
}

/// A study's daily reminder on the band (`LaptopSetting.studyReminder`): at `minutes` after
/// local midnight, saying `text`.
public struct StudyReminder: Hashable, Comparable, Sendable {
    /// Minutes after midnight, band local time.
    public var minutes: Int
    /// 1 to 40 characters, as `reminder_text` allows.
    public var text: String

    public init(minutes: Int, text: String) {
        self.minutes = minutes
        self.text = text
    }

    /// From "HH:MM TEXT"; nil when the time or the text is not allowed.
    public init?(settingValue: String) {
        let value = settingValue.trimmingWhitespace()
        guard let space = value.firstIndex(of: " "), let minutes = BandSetting.minutesOfDay(String(value[..<space])),
              let text = try? BandSetting.reminderText.validate(String(value[value.index(after: space)...])) else { return nil }
        self.init(minutes: minutes, text: text)
    }

    public var settingValue: String { BandSetting.clock(minutes) + " " + text }

    public static func < (a: StudyReminder, b: StudyReminder) -> Bool { (a.minutes, a.text) < (b.minutes, b.text) }
}

/// Days of the week a reminder comes on, Monday first.
public struct Weekdays: Equatable, Sendable, CustomStringConvertible {
    static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    /// Bit 0 is Monday, bit 6 Sunday.
    public var bits: UInt8

    public init(bits: UInt8) { self.bits = bits & 0x7F }

    public init?(parsing text: String) {
        switch text.lowercased() {
        case "daily": bits = 0x7F
        case "weekdays": bits = 0x1F
        case "weekends": bits = 0x60
        default:
            var bits: UInt8 = 0
            for word in text.lowercased().split(separator: ",") {
                guard let index = Self.names.firstIndex(of: word.trimmingCharacters()) else { return nil }
                bits |= 1 << index
            }
            guard bits != 0 else { return nil }
            self.bits = bits
        }
    }

    /// Whether the reminder comes on `day` (0 = Monday ... 6 = Sunday).
    public func contains(day: Int) -> Bool { bits & (1 << UInt8(day % 7)) != 0 }

    public var description: String {
        switch bits {
        case 0x7F: return "daily"
        case 0x1F: return "weekdays"
        case 0x60: return "weekends"
        default: return (0 ..< 7).filter { contains(day: $0) }.map { Self.names[$0] }.joined(separator: ",")
        }
    }
}

public struct BandSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var setting: BandSetting
    public var value: String
    public var description: String {
        "\(setting.rawValue): \"\(value)\" is not allowed; expected \(setting.allowed)"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

extension Substring {
    func trimmingCharacters() -> String { String(self).trimmingWhitespace() }
}
