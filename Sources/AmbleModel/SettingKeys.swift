/// How the band says "too fast".
public enum AlertStyle: String, CaseIterable, Sendable {
    /// Three firm pulses.
    case firm
    /// One long soft pulse.
    case gentle
    /// The screen only.
    case silent
}

/// How strongly the pace alert vibrates, before the band raises it on a moving wrist.
public enum AlertStrengthLevel: String, CaseIterable, Sendable {
    case low, medium, high
}

/// Every band setting, declared once: key, type, default, allowed values and their text, and
/// the menu's words. `BandSetting.key` finds a declaration by its key.
public enum SettingKeys {
    public static let reductionPercent: SettingKey<Int> = SettingKey(.reductionPercent, \.reductionPercent, default: 20,
        .integer(10 ... 40, multipleOf: 5, allowed: "10, 15, 20, 25, 30, 35 or 40"),
        menu: .init(title: "Reduction", unit: "%", offered: Array(stride(from: 10, through: 40, by: 5))))

    public static let reductionChoices: SettingKey<[Int]> = SettingKey(.reductionChoices, \.reductionChoices, default: [10, 15, 20, 25, 30, 40],
        reductionList,
        menu: .init(title: "Reductions offered", label: { $0.map(String.init).joined(separator: ", ") + " %" },
                    offered: [[10, 20, 30], [10, 15, 20, 25, 30], [10, 15, 20, 25, 30, 40], [10, 15, 20, 25, 30, 35, 40], [20, 25, 30, 35, 40]]))

    public static let calibrationSeconds: SettingKey<Int> = SettingKey(.calibrationSeconds, \.calibrationSeconds, default: 60,
        .integer(30 ... 300, allowed: "a whole number of seconds from 30 to 300"),
        menu: .init(title: "Calibration length", unit: "s", offered: [30, 45, 60, 90, 120, 180, 240, 300]))

    public static let alertStyle: SettingKey<AlertStyle> = SettingKey(.alertStyle, \.alertStyle, default: AlertStyle.firm, .oneOf,
        menu: .init(title: "Alert style", label: \.rawValue, offered: AlertStyle.allCases))

    public static let alertStrength: SettingKey<AlertStrengthLevel> = SettingKey(.alertStrength, \.alertStrength, default: AlertStrengthLevel.medium, .oneOf,
        menu: .init(title: "Alert strength", label: \.rawValue, offered: AlertStrengthLevel.allCases))

    public static let metronome: SettingKey<Bool> = onOff(.metronome, \.metronome, default: false, title: "Metronome")
    public static let consentHeartRate: SettingKey<Bool> = onOff(.consentHeartRate, \.heartRateConsent, default: true, title: "Heart rate")
    public static let consentRawCapture: SettingKey<Bool> = onOff(.consentRawCapture, \.rawCaptureConsent, default: false, title: "Raw capture")
    public static let reminders: SettingKey<Bool> = onOff(.reminders, \.reminders, default: false, title: "Reminders")

    public static let reminderTime: SettingKey<Int> = SettingKey(.reminderTime, \.reminderMinutes, default: 18 * 60,
        SettingCodec(allowed: "a time of day as HH:MM (00:00 to 23:59)", parse: BandSetting.minutesOfDay, format: BandSetting.clock),
        menu: laptopOnly("Reminder time", BandSetting.clock))

    public static let reminderDays: SettingKey<Weekdays> = SettingKey(.reminderDays, \.reminderDays, default: Weekdays(bits: 0x7F),
        SettingCodec(allowed: "daily, weekdays, weekends, or days such as mon,wed,fri", parse: Weekdays.init(parsing:), format: \.description),
        menu: laptopOnly("Reminder days", \.description))

    public static let reminderText: SettingKey<String> = SettingKey(.reminderText, \.reminderText, default: "Time for a mindful walk",
        .text(allowed: "1 to 40 characters") { value in
            (1 ... 40).contains(value.count) && value.utf8.count <= 120
                && value.unicodeScalars.allSatisfy { !$0.properties.isNoncharacterCodePoint && $0.value >= 0x20 }
        }, menu: laptopOnly("Reminder text", { $0 }))

    public static let heightCentimeters: SettingKey<Int> = SettingKey(.heightCentimeters, \.heightCentimeters, default: 170,
        .integer(100 ... 230, allowed: "a whole number of centimetres from 100 to 230"),
        menu: .init(title: "Height", unit: "cm", offered: Array(stride(from: 140, through: 210, by: 2))))

    public static let weightKilograms: SettingKey<Int> = SettingKey(.weightKilograms, \.weightKilograms, default: 70,
        .integer(25 ... 250, allowed: "a whole number of kilograms from 25 to 250"),
        menu: .init(title: "Weight", unit: "kg", offered: Array(stride(from: 40, through: 150, by: 2))))

    /// What people type ("Ann's band", "Zoë – left"): every output escapes it (HTML, CSV, JSON,
    /// XML). 32 characters and 64 UTF-8 bytes at most: the link carries names up to 64 bytes.
    public static let bandName: SettingKey<String> = SettingKey(.bandName, \.bandName, default: "Amble band",
        .text(allowed: "1 to 32 characters that print (letters, digits, spaces, punctuation; no control characters)") { value in
            (1 ... 32).contains(value.count) && value.utf8.count <= 64 && isPrintable(value)
        }, menu: laptopOnly("Band name", { $0 }))

    public static let retentionDays: SettingKey<Int> = SettingKey(.retentionDays, \.retentionDays, default: 30,
        .integer(1 ... 365, allowed: "a whole number of days from 1 to 365"),
        menu: .init(title: "Keep synced", unit: "days", offered: [7, 14, 30, 60, 90, 180, 365]))

    public static let goalProgress: SettingKey<String> = SettingKey(.goalProgress, \.goalProgress, default: "",
        .text(allowed: "0 to \(BandSetting.goalProgressMaximumLength) printable ASCII characters (set by amble sync from the goals)") { value in
            value.count <= BandSetting.goalProgressMaximumLength && value.unicodeScalars.allSatisfy { (0x20 ... 0x7E).contains($0.value) }
        }, menu: laptopOnly("Goal progress", { $0 }))

    /// "10,20,30": one to seven reductions, sorted, each once.
    private static let reductionList = SettingCodec<[Int]>(allowed: "one to seven of 10, 15, 20, 25, 30, 35, 40, comma-separated", parse: { text in
        let parts = text.split(separator: ",").map { String($0).trimmingWhitespace() }
        let numbers = parts.compactMap { Int($0) }
        guard !parts.isEmpty, parts.count <= 7, numbers.count == parts.count,
              numbers.allSatisfy({ (10 ... 40).contains($0) && $0 % 5 == 0 }), Set(numbers).count == numbers.count else { return nil }
        return numbers.sorted()
    }, format: { $0.map(String.init).joined(separator: ",") })

    private static func onOff(_ setting: BandSetting, _ path: WritableKeyPath<BandSettingValues, Bool> & Sendable, default value: Bool,
                              title: String) -> SettingKey<Bool> {
        SettingKey(setting, path, default: value, .onOff,
                   menu: .init(title: title, label: SettingCodec.onOff.format, offered: [true, false]))
    }

    /// A setting set from a laptop: the menu lists no values for it.
    private static func laptopOnly<Value>(_ title: String, _ label: @escaping @Sendable (Value) -> String) -> SettingMenuText<Value> {
        SettingMenuText(title: title, label: label, options: { [$0] })
    }
}

extension BandSetting {
    /// This setting's declaration.
    public var key: any AnySettingKey {
        switch self {
        case .reductionPercent: return SettingKeys.reductionPercent
        case .reductionChoices: return SettingKeys.reductionChoices
        case .calibrationSeconds: return SettingKeys.calibrationSeconds
        case .alertStyle: return SettingKeys.alertStyle
        case .alertStrength: return SettingKeys.alertStrength
        case .metronome: return SettingKeys.metronome
        case .consentHeartRate: return SettingKeys.consentHeartRate
        case .consentRawCapture: return SettingKeys.consentRawCapture
        case .reminders: return SettingKeys.reminders
        case .reminderTime: return SettingKeys.reminderTime
        case .reminderDays: return SettingKeys.reminderDays
        case .reminderText: return SettingKeys.reminderText
        case .heightCentimeters: return SettingKeys.heightCentimeters
        case .weightKilograms: return SettingKeys.weightKilograms
        case .bandName: return SettingKeys.bandName
        case .retentionDays: return SettingKeys.retentionDays
        case .goalProgress: return SettingKeys.goalProgress
        }
    }

    /// The text a fresh band has.
    public var defaultValue: String { key.defaultText }

    /// What may be set, in words (for errors and `--help`).
    public var allowed: String { key.allowed }

    /// The value in its canonical form, or an error that says what is allowed.
    public func validate(_ raw: String) throws(BandSettingError) -> String {
        guard let text = key.validate(raw) else { throw BandSettingError(setting: self, value: raw) }
        return text
    }
}

/// Every setting with its value, read once and typed: what the band's parts use. Each starts
/// at its declaration's default (`SettingKeys`).
public struct BandSettingValues: Equatable, Sendable {
    public var reductionPercent: Int = SettingKeys.reductionPercent.defaultValue
    public var reductionChoices: [Int] = SettingKeys.reductionChoices.defaultValue
    public var calibrationSeconds: Int = SettingKeys.calibrationSeconds.defaultValue
    public var alertStyle: AlertStyle = SettingKeys.alertStyle.defaultValue
    public var alertStrength: AlertStrengthLevel = SettingKeys.alertStrength.defaultValue
    public var metronome: Bool = SettingKeys.metronome.defaultValue
    public var heartRateConsent: Bool = SettingKeys.consentHeartRate.defaultValue
    public var rawCaptureConsent: Bool = SettingKeys.consentRawCapture.defaultValue
    public var reminders: Bool = SettingKeys.reminders.defaultValue
    /// Minutes after midnight, band local time.
    public var reminderMinutes: Int = SettingKeys.reminderTime.defaultValue
    public var reminderDays: Weekdays = SettingKeys.reminderDays.defaultValue
    public var reminderText: String = SettingKeys.reminderText.defaultValue
    public var heightCentimeters: Int = SettingKeys.heightCentimeters.defaultValue
    public var weightKilograms: Int = SettingKeys.weightKilograms.defaultValue
    public var bandName: String = SettingKeys.bandName.defaultValue
    public var retentionDays: Int = SettingKeys.retentionDays.defaultValue
    /// The laptop's line on the wearer's goals; empty: none.
    public var goalProgress: String = SettingKeys.goalProgress.defaultValue

    public init() {}

    /// From stored text; a value that does not parse (a damaged store) keeps the default.
    public init(_ stored: [BandSetting: String]) {
        for (setting, text) in stored { setting.key.set(text, in: &self) }
    }

    public subscript<Value>(key: SettingKey<Value>) -> Value {
        get { self[keyPath: key.path] }
        set { self[keyPath: key.path] = newValue }
    }

    /// Applies one value from its text (the store's, a laptop's); text not allowed changes nothing.
    public mutating func set(_ setting: BandSetting, _ text: String) {
        setting.key.set(text, in: &self)
    }

    /// The stored text of one setting.
    public func text(_ setting: BandSetting) -> String { setting.key.text(in: self) }
}
