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
            let editor = SettingEditor(setting, values: values)
            state = .editing(editor, entry: selected)
            return .tick(showing: editor.screen)
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

    mutating func editorPressed(_ press: Press, _ editor: SettingEditor, entry: SettingsMenu.Entry) -> [PracticeAction] {
        if press.isNext || press.event == .longPressed(.next) {
            // A long press of next jumps ten values (height, weight).
            var editor = editor
            editor.move(by: press.isNext ? 1 : 10)
            state = .editing(editor, entry: entry)
            return .tick(showing: editor.screen)
        }
        if press.goesBack {
            state = .settings(selected: entry)
            return .tick(showing: settingsScreen(selected: entry))
        }
        guard press.isSelect else { return [] }
        let stored = editor.choose(into: &values)
        state = .settings(selected: entry)
        return [.saveSetting(editor.setting, stored)] + .confirm(showing: settingsScreen(selected: entry))
    }
}
