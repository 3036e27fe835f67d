import AmbleModel

/// A setting's values on the band's screen, one selected.
struct SettingEditor {
    let setting: BandSetting
    /// The values offered, as stored text.
    let options: [String]
    var index: Int

    init(_ setting: BandSetting, values: BandSettingValues) {
        self.setting = setting
        options = SettingsMenu.options(setting, current: values.text(setting))
        index = options.firstIndex(of: values.text(setting)) ?? 0
    }

    /// Moves the selection `steps` on (after the last, the first).
    mutating func move(by steps: Int) { index = (index + steps) % options.count }

    var screen: Screen {
        .choice(title: SettingsMenu.title(setting), options: options.map { SettingsMenu.label(setting, $0) }, selected: index)
    }

    /// Puts the selected value in `values`; returns its stored text.
    func choose(into values: inout BandSettingValues) -> String {
        values.set(setting, options[index])
        return options[index]
    }
}

extension SettingsMenu {
    /// The entry `next` moves to (after the last, the first).
    static func entry(after entry: Entry) -> Entry {
        entries[((entries.firstIndex(of: entry) ?? 0) + 1) % entries.count]
    }
}
