@testable import AmbleBand
import AmbleModel
import AmbleStateMachines
import Testing

/// The simulated band's own menus in a terminal: the status line shows the selected entry at
/// any width, and keys typed quickly each become a press.
struct SimulatedBandMenuTests {
    /// Every list the band's menus show, with the cursor on each entry in turn: the main menu
    /// (before and after a calibration, with the goals' line), the Settings list and each
    /// setting's values, as the practice machine draws them.
    static func listScreens() -> [Screen] {
        var screens: [Screen] = []
        func press(_ machine: inout PracticeMachine, _ button: ButtonEvent) {
            for case .show(let screen) in machine.handle(.button(button)) { screens.append(screen) }
        }
        var values = BandSettingValues()
        values.goalProgress = "Today 95% walks 5/4"
        for calibration in [nil, Calibration(cadenceStepsPerMinute: 112, stepLengthMeters: 0.7, unixSeconds: 0)] {
            var machine = PracticeMachine(values: values, calibration: calibration)
            for case .show(let screen) in machine.start() { screens.append(screen) }
            press(&machine, .shortPressed(.next))
            press(&machine, .shortPressed(.next))   // Settings
            press(&machine, .shortPressed(.select))
            for entry in SettingsMenu.entries {
                if case .setting(let setting) = entry {
                    var editing = machine
                    press(&editing, .shortPressed(.select))
                    for _ in SettingsMenu.options(setting, current: values.text(setting)).dropFirst() { press(&editing, .shortPressed(.next)) }
                }
                press(&machine, .shortPressed(.next))
            }
        }
        return screens
    }

    @Test func theStatusLineShowsTheSelectedEntryAtEveryWidth() throws {
        let screens = Self.listScreens()
        #expect(screens.count == 288, "every entry of every list: \(screens.count)")
        for screen in screens {
            let list = try #require(ListLine(screen))
            let selected = list.entries[list.selected]
            for width in [40, 60, 80, 160] {
                let line = StatusLine.render(screen: screen, bandSeconds: 75, motorRunning: false, accelerometerOK: true, heartRate: .ok, width: width)
                #expect(line.count <= width - 1, "one column free: \(line)")
                if selected.count + 4 <= width - 1 {
                    #expect(line.contains("> \(selected) <"), "at \(width) columns: \(line)")
                } else {
                    #expect(line == "> " + selected.prefix(width - 4) + "…", "the entry's start at least, at \(width) columns: \(line)")
                }
                if list.whole.count + 32 <= width - 1 {
                    #expect(line.hasSuffix(list.whole) && line.contains("acc ok ppg ok"), "all of it when it fits: \(line)")
                }
            }
        }
    }

    @Test func theListScrollsAroundTheCursorAndTheSensorsGiveWayLast() {
        let settings = Screen.choice(title: "Settings", options: (1 ... 14).map { "Entry \($0)" }, selected: 9)
        let line = StatusLine.render(screen: settings, bandSeconds: 75, motorRunning: true, accelerometerOK: true, heartRate: .ok, width: 80)
        #expect(line == "1:15 [≋ BUZZ ≋] acc ok ppg ok | SETTINGS  …  Entry 9  > Entry 10 <  Entry 11  …")
        let menu = Screen.menu(entries: [.init(title: "Calibrate"), .init(title: "Mindful Walk", enabled: false), .init(title: "Settings")], selected: 1)
        #expect(StatusLine.render(screen: menu, bandSeconds: 75, motorRunning: true, accelerometerOK: true, heartRate: .ok, width: 60)
            == "1:15 ≋ | MENU … > Mindful Walk (calibrate first) < …")
        #expect(StatusLine.render(screen: menu, bandSeconds: 75, motorRunning: true, accelerometerOK: true, heartRate: .ok, width: 40)
            == "… > Mindful Walk (calibrate first) < …")
        #expect(StatusLine.text(menu) == "MENU   Calibrate   > Mindful Walk (calibrate first) <   Settings  ", "the log's line is whole")
    }

    /// Keys typed in one read, or 0.1 s apart (less than a press takes), in the Settings list.
    @Test(arguments: [0.0, 0.1])
    func keysTypedQuicklyAllArrive(secondsApart: Double) throws {
        let run = try ScenarioRun(script: "")
        run.run(seconds: 1)
        let keys = Array("nns".utf8) + Array(repeating: UInt8(ascii: "n"), count: 9)
        if secondsApart == 0 {
            run.band.keysTyped(keys, now: run.clock.nowSeconds)
        } else {
            for key in keys {
                run.band.keysTyped([key], now: run.clock.nowSeconds)
                run.run(seconds: secondsApart)
            }
        }
        run.run(seconds: Double(keys.count) * 0.25 + 1)
        guard case .choice("Settings", let options, let selected) = run.band.screenShown else {
            Issue.record("not in the Settings list: \(run.band.screenShown)")
            return
        }
        #expect(selected == 9, "nine moves down the list: on \(options[selected])")
    }
}
