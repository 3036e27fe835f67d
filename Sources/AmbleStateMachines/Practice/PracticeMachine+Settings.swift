import AmbleModel

/// The Settings menu: the list of settings and the link's entries, and a setting's values.
extension PracticeMachine {
    mutating func openSettings() -> [PracticeAction] {
        let first = SettingsMenu.entries[0]
        state = .settings(selected: first)
        return .tick(showing: settingsScreen(selected: first))
    }

    mutating func settingsPressed(_ press: Press, selected: SettingsMenu.Entry) -> [PracticeAction] {
        if press.isNext {
            let moved = SettingsMenu.entry(after: selected)
            state = .settings(selected: moved)
            return .tick(showing: settingsScreen(selected: moved))
        }
        if press.goesBack { return backToMenu(at: .settings) }
        guard press.isSelect else { return [] }
        switch selected {
        case .setting(let setting):
            let choices = setting.key.menuChoices(values)
            state = .editing(choices, entry: selected)
            return .tick(showing: .choice(choices))
        case .pairLaptop:
            state = .menu(selected: .settings)
            return [.link(.openPairing)]
        case .forgetLaptops:
            state = .menu(selected: .settings)
            return [.link(.confirmForgetLaptops)]
        case .back:
            return backToMenu(at: .settings)
        }
    }

    /// A setting's values: the one chosen goes into `values` typed, and its text to the store.
    mutating func editorPressed(_ press: Press, _ choices: SettingChoices, entry: SettingsMenu.Entry) -> [PracticeAction] {
        if press.isNext || press.event == .longPressed(.next) {
            // A long press of next jumps ten values (height, weight).
            var choices = choices
            choices.move(by: press.isNext ? 1 : 10)
            state = .editing(choices, entry: entry)
            return .tick(showing: .choice(choices))
        }
        if press.goesBack {
            state = .settings(selected: entry)
            return .tick(showing: settingsScreen(selected: entry))
        }
        guard press.isSelect else { return [] }
        let stored = choices.choose(into: &values)
        state = .settings(selected: entry)
        return [.saveSetting(choices.setting, stored)] + .confirm(showing: settingsScreen(selected: entry))
    }
}
