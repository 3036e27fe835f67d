import AmbleModel

/// The band's Settings menu: what it lists, what each entry offers, and how values read.
/// The same values a laptop sets with `amble band settings`.
public enum SettingsMenu {
    public enum Entry: Equatable, Sendable {
        case setting(BandSetting)
        case pairLaptop
        case forgetLaptops
        case back
    }

    public static let entries: [Entry] = [
        .setting(.reductionPercent), .setting(.reductionChoices), .setting(.calibrationSeconds), .setting(.alertStyle),
        .setting(.alertStrength), .setting(.metronome), .setting(.consentHeartRate), .setting(.consentRawCapture),
        .setting(.reminders), .setting(.heightCentimeters), .setting(.weightKilograms), .pairLaptop, .forgetLaptops, .back,
    ]

    public static func title(_ setting: BandSetting) -> String {
        switch setting {
        case .reductionPercent: return "Reduction"
        case .reductionChoices: return "Reductions offered"
        case .calibrationSeconds: return "Calibration length"
        case .alertStyle: return "Alert style"
        case .alertStrength: return "Alert strength"
        case .metronome: return "Metronome"
        case .consentHeartRate: return "Heart rate"
        case .consentRawCapture: return "Raw capture"
        case .reminders: return "Reminders"
        case .reminderTime: return "Reminder time"
        case .reminderDays: return "Reminder days"
        case .reminderText: return "Reminder text"
        case .heightCentimeters: return "Height"
        case .weightKilograms: return "Weight"
        case .bandName: return "Band name"
        case .retentionDays: return "Keep synced"
        case .goalProgress: return "Goal progress"
        }
    }

    /// A value as the menu shows it: "20 %", "60 s", "170 cm".
    public static func label(_ setting: BandSetting, _ value: String) -> String {
        switch setting {
        case .reductionPercent: return "\(value) %"
        case .reductionChoices: return value.replacingCommas() + " %"
        case .calibrationSeconds: return "\(value) s"
        case .heightCentimeters: return "\(value) cm"
        case .weightKilograms: return "\(value) kg"
        case .retentionDays: return "\(value) days"
        default: return value
        }
    }

    /// The entry as a line of the menu: "Reduction: 20 %".
    public static func line(_ entry: Entry, values: BandSettingValues) -> String {
        switch entry {
        case .setting(let setting): return "\(title(setting)): \(label(setting, values.text(setting)))"
        case .pairLaptop: return "Pair laptop"
        case .forgetLaptops: return "Forget laptops"
        case .back: return "Back"
        }
    }

    /// The values a setting offers on the band, in order, with the current one included.
    public static func options(_ setting: BandSetting, current: String) -> [String] {
        var options: [String]
        switch setting {
        case .reductionPercent: options = stride(from: 10, through: 40, by: 5).map(String.init)
        case .reductionChoices: options = ["10,20,30", "10,15,20,25,30", "10,15,20,25,30,40", "10,15,20,25,30,35,40", "20,25,30,35,40"]
        case .calibrationSeconds: options = ["30", "45", "60", "90", "120", "180", "240", "300"]
        case .alertStyle: options = ["firm", "gentle", "silent"]
        case .alertStrength: options = ["low", "medium", "high"]
        case .metronome, .consentHeartRate, .consentRawCapture, .reminders: options = ["on", "off"]
        case .heightCentimeters: options = stride(from: 140, through: 210, by: 2).map(String.init)
        case .weightKilograms: options = stride(from: 40, through: 150, by: 2).map(String.init)
        case .retentionDays: options = ["7", "14", "30", "60", "90", "180", "365"]
        case .reminderTime, .reminderDays, .reminderText, .bandName, .goalProgress: options = []   // set from the laptop
        }
        if !options.contains(current) {
            options.append(current)
            let numbers = options.compactMap { Int($0) }
            if numbers.count == options.count { options = numbers.sorted().map(String.init) }
        }
        return options
    }
}

extension String {
    func replacingCommas() -> String { split(separator: ",").joined(separator: ", ") }
}
