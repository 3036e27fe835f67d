import AmbleModel

/// The band's Settings menu: what it lists. Each setting's title, values and how they read come
/// from its declaration (`SettingKeys`), the same the laptop's `amble band settings` reads.
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

    /// The entry `next` moves to (after the last, the first).
    static func entry(after entry: Entry) -> Entry {
        entries[((entries.firstIndex(of: entry) ?? 0) + 1) % entries.count]
    }

    public static func title(_ setting: BandSetting) -> String { setting.key.title }

    /// The entry as a line of the menu: "Reduction: 20 %".
    public static func line(_ entry: Entry, values: BandSettingValues) -> String {
        switch entry {
        case .setting(let setting): return "\(setting.key.title): \(setting.key.label(in: values))"
        case .pairLaptop: return "Pair laptop"
        case .forgetLaptops: return "Forget laptops"
        case .back: return "Back"
        }
    }

    /// The values a setting offers on the band, in order, with the current one included, as
    /// stored text.
    public static func options(_ setting: BandSetting, current: String) -> [String] {
        var values = BandSettingValues()
        values.set(setting, current)
        return setting.key.menuChoices(values).storedTexts
    }
}

extension Screen {
    /// A setting's values on screen, the selected one highlighted.
    static func choice(_ choices: SettingChoices) -> Screen {
        .choice(title: choices.title, options: choices.labels, selected: choices.selected)
    }
}
