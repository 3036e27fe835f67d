/// The band's settings, each with its allowed values. Stored on the band as text, one row per
/// key; the wearer changes them in the band's Settings menu and a paired laptop with `amble
/// band settings`; the band applies them at once.
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

    /// The value a fresh band has.
    public var defaultValue: String {
        switch self {
        case .reductionPercent: return "20"
        case .reductionChoices: return "10,15,20,25,30,40"
        case .calibrationSeconds: return "60"
        case .alertStyle: return "firm"
        case .alertStrength: return "medium"
        case .metronome: return "off"
        case .consentHeartRate: return "on"
        case .consentRawCapture: return "off"
        case .reminders: return "off"
        case .reminderTime: return "18:00"
        case .reminderDays: return "daily"
        case .reminderText: return "Time for a mindful walk"
        case .heightCentimeters: return "170"
        case .weightKilograms: return "70"
        case .bandName: return "Amble band"
        case .retentionDays: return "30"
        case .goalProgress: return ""
        }
    }

    /// What may be set, in words (for errors and `--help`).
    public var allowed: String {
        switch self {
        case .reductionPercent: return "10, 15, 20, 25, 30, 35 or 40"
        case .reductionChoices: return "one to seven of 10, 15, 20, 25, 30, 35, 40, comma-separated"
        case .calibrationSeconds: return "a whole number of seconds from 30 to 300"
        case .alertStyle: return "firm, gentle or silent"
        case .alertStrength: return "low, medium or high"
        case .metronome, .consentHeartRate, .consentRawCapture, .reminders: return "on or off"
        case .reminderTime: return "a time of day as HH:MM (00:00 to 23:59)"
        case .reminderDays: return "daily, weekdays, weekends, or days such as mon,wed,fri"
        case .reminderText: return "1 to 40 characters"
        case .heightCentimeters: return "a whole number of centimetres from 100 to 230"
        case .weightKilograms: return "a whole number of kilograms from 25 to 250"
        case .bandName: return "1 to 32 characters that print (letters, digits, spaces, punctuation; no control characters)"
        case .retentionDays: return "a whole number of days from 1 to 365"
        case .goalProgress: return "0 to \(Self.goalProgressMaximumLength) printable ASCII characters (set by amble sync from the goals)"
        }
    }

    /// The value in its canonical form, or an error that says what is allowed.
    public func validate(_ raw: String) throws(BandSettingError) -> String {
        let value = raw.trimmingWhitespace()
        let fail = BandSettingError(setting: self, value: raw)
        func integer(_ range: ClosedRange<Int>) throws(BandSettingError) -> String {
            guard let n = Int(value), range.contains(n) else { throw fail }
            return String(n)
        }
        func oneOf(_ choices: [String]) throws(BandSettingError) -> String {
            guard choices.contains(value.lowercased()) else { throw fail }
            return value.lowercased()
        }
        switch self {
        case .reductionPercent:
            let text = try integer(10 ... 40)
            guard Int(text)! % 5 == 0 else { throw fail }
            return text
        case .reductionChoices:
            let parts = value.split(separator: ",").map { String($0).trimmingWhitespace() }
            let numbers = parts.compactMap { Int($0) }
            guard !parts.isEmpty, parts.count <= 7, numbers.count == parts.count,
                  numbers.allSatisfy({ (10 ... 40).contains($0) && $0 % 5 == 0 }), Set(numbers).count == numbers.count else { throw fail }
            return numbers.sorted().map(String.init).joined(separator: ",")
        case .calibrationSeconds: return try integer(30 ... 300)
        case .alertStyle: return try oneOf(["firm", "gentle", "silent"])
        case .alertStrength: return try oneOf(["low", "medium", "high"])
        case .metronome, .consentHeartRate, .consentRawCapture, .reminders: return try oneOf(["on", "off"])
        case .reminderTime:
            guard let minutes = Self.minutesOfDay(value) else { throw fail }
            return Self.clock(minutes)
        case .reminderDays:
            guard let days = Weekdays(parsing: value) else { throw fail }
            return days.description
        case .reminderText:
            guard (1 ... 40).contains(value.count), value.utf8.count <= 120,
                  value.unicodeScalars.allSatisfy({ !$0.properties.isNoncharacterCodePoint && $0.value >= 0x20 }) else { throw fail }
            return value
        case .heightCentimeters: return try integer(100 ... 230)
        case .weightKilograms: return try integer(25 ... 250)
        case .bandName:
            // What people type ("Ann's band", "Zoë – left"): every output escapes it (HTML,
            // CSV, JSON, XML). 32 characters and 64 UTF-8 bytes at most: the link carries
            // names up to 64 bytes.
            guard (1 ... 32).contains(value.count), value.utf8.count <= 64, isPrintable(value) else { throw fail }
            return value
        case .retentionDays: return try integer(1 ... 365)
        case .goalProgress:
            guard value.count <= Self.goalProgressMaximumLength, value.unicodeScalars.allSatisfy({ (0x20 ... 0x7E).contains($0.value) }) else { throw fail }
            return value
        }
    }

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

/// Every setting with its value, read once and typed: what the band's parts use.
public struct BandSettingValues: Equatable, Sendable {
    public var reductionPercent = 20
    public var reductionChoices = [10, 15, 20, 25, 30, 40]
    public var calibrationSeconds = 60
    public var alertStyle = "firm"
    public var alertStrength = "medium"
    public var metronome = false
    public var heartRateConsent = true
    public var rawCaptureConsent = false
    public var reminders = false
    /// Minutes after midnight, band local time.
    public var reminderMinutes = 18 * 60
    public var reminderDays = Weekdays(bits: 0x7F)
    public var reminderText = "Time for a mindful walk"
    public var heightCentimeters = 170
    public var weightKilograms = 70
    public var bandName = "Amble band"
    public var retentionDays = 30
    /// The laptop's line on the wearer's goals; empty: none.
    public var goalProgress = ""

    public init() {}

    /// From stored text; a value that does not parse (a damaged store) keeps the default.
    public init(_ stored: [BandSetting: String]) {
        for (setting, raw) in stored {
            guard let value = try? setting.validate(raw) else { continue }
            set(setting, value)
        }
    }

    /// Applies one validated value.
    public mutating func set(_ setting: BandSetting, _ value: String) {
        switch setting {
        case .reductionPercent: reductionPercent = Int(value) ?? reductionPercent
        case .reductionChoices: reductionChoices = value.split(separator: ",").compactMap { Int($0) }
        case .calibrationSeconds: calibrationSeconds = Int(value) ?? calibrationSeconds
        case .alertStyle: alertStyle = value
        case .alertStrength: alertStrength = value
        case .metronome: metronome = value == "on"
        case .consentHeartRate: heartRateConsent = value == "on"
        case .consentRawCapture: rawCaptureConsent = value == "on"
        case .reminders: reminders = value == "on"
        case .reminderTime: reminderMinutes = BandSetting.minutesOfDay(value) ?? reminderMinutes
        case .reminderDays: reminderDays = Weekdays(parsing: value) ?? reminderDays
        case .reminderText: reminderText = value
        case .heightCentimeters: heightCentimeters = Int(value) ?? heightCentimeters
        case .weightKilograms: weightKilograms = Int(value) ?? weightKilograms
        case .bandName: bandName = value
        case .retentionDays: retentionDays = Int(value) ?? retentionDays
        case .goalProgress: goalProgress = value
        }
    }

    /// The stored text of one setting.
    public func text(_ setting: BandSetting) -> String {
        switch setting {
        case .reductionPercent: return String(reductionPercent)
        case .reductionChoices: return reductionChoices.map(String.init).joined(separator: ",")
        case .calibrationSeconds: return String(calibrationSeconds)
        case .alertStyle: return alertStyle
        case .alertStrength: return alertStrength
        case .metronome: return metronome ? "on" : "off"
        case .consentHeartRate: return heartRateConsent ? "on" : "off"
        case .consentRawCapture: return rawCaptureConsent ? "on" : "off"
        case .reminders: return reminders ? "on" : "off"
        case .reminderTime: return BandSetting.clock(reminderMinutes)
        case .reminderDays: return reminderDays.description
        case .reminderText: return reminderText
        case .heightCentimeters: return String(heightCentimeters)
        case .weightKilograms: return String(weightKilograms)
        case .bandName: return bandName
        case .retentionDays: return String(retentionDays)
        case .goalProgress: return goalProgress
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
