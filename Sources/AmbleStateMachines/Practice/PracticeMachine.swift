import AmbleModel

/// What happens to the practice.
public enum PracticeEvent: Equatable, Sendable {
    case button(ButtonEvent)
    /// A second of measurements has passed.
    case secondElapsed(SecondReport)
    /// A reminder is due (`ReminderSchedule`): shown unless the wearer is busy.
    case reminderDue(text: String)
}

/// What the band must do.
public enum PracticeAction: Equatable, Sendable {
    case vibrate(HapticPattern)
    case show(Screen)
    case beginSession(SessionKind, startUnixSeconds: Double, parameters: SessionParameters)
    /// Store a second of the session under way; add `earlier`, steps released now that were
    /// taken in seconds already stored, there; and keep `progress`, what closing the session
    /// from its stored seconds would need (after a power cut). All at once, or none.
    case recordSecond(SessionSecond, earlier: [StepsAdded], progress: SessionProgress)
    case endSession(SessionSummary)
    /// The session under way is thrown away (a cancelled walk or calibration): delete it.
    case discardSession
    case saveCalibration(Calibration)
    /// The wearer changed a setting on the band: store this text (the setting's stored form,
    /// `SettingKey.format`). The practice's `values` already hold the new value, typed.
    case saveSetting(BandSetting, String)
    /// Start counting whole seconds from now: a countdown begins, and each of its seconds
    /// must be a full second however the press fell within the band's second.
    case restartSeconds
    /// A menu entry that belongs to the link (pairing, forgetting laptops): the band hands it
    /// to its `LinkPrompt`, which takes the screen until it is done.
    case link(LinkPrompt.Request)
    /// A tick every this many seconds (the limit's step period), or none.
    case metronome(periodSeconds: Double?)
    case snoozeReminder(minutes: Int)
    case dismissReminder
}

/// The band's practice: the menu, calibration, the mindful walk, the settings and reminders,
/// as one value. Pure: events in, actions out; the owner stores, buzzes and draws.
///
/// Each event has its handler, and a button press its handler per state group, as swift-nio's
/// state machines have: the menu and what leads to a session (`PracticeMachine+Menu.swift`),
/// the calibration (`+Calibration`), the walk and its questions (`+Walk`), the settings
/// (`+Settings`) and the reminders' prompt (`+Prompts`).
///
/// Buttons (docs in README, "The practice"): `next` moves, `select` chooses, `back` (or a long
/// press of `select` on a band without one) goes back.
/// - **Walk:** select pauses and resumes; a long press of select ends and saves; back asks
///   "Save / Discard / Continue"; Discard asks once more. A paused second counts neither for nor
///   against the limit. The summary follows (next turns its pages).
/// - **Calibration:** back (or a long press) at any moment discards it.
public struct PracticeMachine: Sendable {
    enum MenuItem: MenuChoice {
        case calibrate, mindfulWalk, settings
        var label: String {
            switch self {
            case .calibrate: return "Calibrate"
            case .mindfulWalk: return "Mindful Walk"
            case .settings: return "Settings"
            }
        }
    }

    enum Activity: Equatable {
        case calibration
        case walk(reductionPercent: Int)

        /// What the countdown before it says.
        var countdownTitle: String {
            switch self {
            case .calibration: return "Calibrate: walk normally"
            case .walk(let percent): return "Mindful walk -\(percent)%"
            }
        }

        /// The menu's entry it was started from (and returns to when cancelled).
        var menuItem: MenuItem { self == .calibration ? .calibrate : .mindfulWalk }
    }

    struct Walk: Equatable {
        var monitor: PaceMonitor
        var parameters: SessionParameters
        var tally = SessionTally()
        var startUnixSeconds: Double
        /// Seconds in a row without a step.
        var stillSeconds = 0
        /// Seconds into the pause under way (nil: walking).
        var pausedFor: Int?
        var rmssd: Double?
        var lastScreen: Screen.Walking
    }

    struct CalibrationSession: Equatable {
        var run: CalibrationRun
        var parameters: SessionParameters
        var tally = SessionTally()
        var startUnixSeconds: Double
        var rmssd: Double?
    }

    enum State {
        case menu(selected: MenuItem)
        /// A position in the wearer's list of reductions (`values.reductionChoices`).
        case choosingReduction(index: Int)
        case countdown(Activity, secondsLeft: Int)
        case calibrating(CalibrationSession)
        case walking(Walk)
        /// "End the walk?": Save, Discard, Continue; the walk goes on meanwhile.
        case endingWalk(Walk, selected: EndChoice, secondsLeft: Int)
        case confirmingDiscard(Walk, secondsLeft: Int)
        case summary(pages: [Screen], page: Int, secondsLeft: Int)
        /// A message until any press (or a few seconds), then the menu at `then`.
        case notice(secondsLeft: Int, then: MenuItem = .calibrate)
        case settings(selected: SettingsMenu.Entry)
        case editing(SettingChoices, entry: SettingsMenu.Entry)
        case reminder(text: String, selected: ReminderChoice, secondsLeft: Int)
    }

    public let settings: PracticeSettings
    public internal(set) var values: BandSettingValues
    public internal(set) var calibration: Calibration?
    /// Step length used before a distance calibration, metres (from the wearer's height).
    public private(set) var defaultStepLengthMeters: Double
    var state: State = .menu(selected: .calibrate)
    /// The band's store as the wearer is told: its warning ("Storage full") over the menu in
    /// place of the goals' progress, and a walk that ends in a full store is summed up under
    /// "Storage full" (the band could not keep all of it yet).
    public private(set) var storage = StoreCondition.sound

    public init(settings: PracticeSettings = .init(), values: BandSettingValues = .init(), calibration: Calibration?,
                defaultStepLengthMeters: Double? = nil) {
        self.settings = settings
        self.values = values
        self.calibration = calibration
        self.defaultStepLengthMeters = defaultStepLengthMeters ?? settings.defaultStepLengthMeters
    }

    public var reductionPercent: Int { values.reductionPercent }

    /// The screen to show at start; `notice` first when there is something to say (a
    /// calibration lost to a power cut).
    public mutating func start(notice: (title: String, detail: String)? = nil) -> [PracticeAction] {
        if let notice {
            state = .notice(secondsLeft: 6)
            return .refuse(showing: .notice(title: notice.title, detail: notice.detail))
        }
        return [.show(menuScreen(selected: .calibrate))]
    }

    /// Whether a session is being recorded (the owner ends it cleanly on shutdown).
    public var isRecording: Bool {
        switch state {
        case .calibrating, .walking, .endingWalk, .confirmingDiscard: return true
        default: return false
        }
    }

    /// Whether the wearer is between things (menu, a choice, a notice, a summary): a link
    /// prompt may take the screen. Not during a countdown, calibration or walk.
    public var isIdle: Bool {
        switch state {
        case .menu, .choosingReduction, .notice, .summary, .settings, .editing, .reminder: return true
        default: return false
        }
    }

    public var stepLengthMeters: Double {
        calibration?.stepLengthMeters ?? defaultStepLengthMeters
    }

    /// A setting changed elsewhere (a laptop), as stored text already validated: used from now on.
    public mutating func apply(_ setting: BandSetting, _ value: String) {
        values.set(setting, value)
    }

    /// The store's condition changed: one buzz when it turns bad, and the menu, if on screen,
    /// shows its warning (or no longer).
    public mutating func storageChanged(_ condition: StoreCondition) -> [PracticeAction] {
        guard condition != storage else { return [] }
        storage = condition
        var actions: [PracticeAction] = condition == .sound ? [] : [.vibrate(.refuse)]
        if case .menu(let selected) = state { actions.append(.show(menuScreen(selected: selected))) }
        return actions
    }

    /// The step length used before a distance calibration changed (the wearer's height).
    public mutating func setDefaultStepLength(_ meters: Double) {
        defaultStepLengthMeters = meters
    }

    /// The screen of the menu, choice or summary on screen, to show again after a link
    /// prompt; nothing in the other states (their next second redraws them).
    public mutating func redraw() -> [PracticeAction] {
        switch state {
        case .menu(let selected): return [.show(menuScreen(selected: selected))]
        case .choosingReduction(let index): return [.show(reductionScreen(index: index))]
        case .notice(_, let then):
            state = .menu(selected: then)
            return [.show(menuScreen(selected: then))]
        case .summary(let pages, let page, _): return [.show(pages[page])]
        case .settings(let selected): return [.show(settingsScreen(selected: selected))]
        case .editing(let choices, _): return [.show(.choice(choices))]
        case .reminder(let text, let selected, _): return [.show(.choice(title: text, selected: selected))]
        default: return []
        }
    }

    public mutating func handle(_ event: PracticeEvent) -> [PracticeAction] {
        switch event {
        case .button(let press): return buttonPressed(Press(press))
        case .secondElapsed(let report): return secondElapsed(report)
        case .reminderDue(let text): return reminderDue(text)
        }
    }

    /// The walk's summary as stored, after the band added the steps its counter released
    /// with the walk's end: the summary on screen shows the stored figures.
    public mutating func summaryStored(_ stored: SessionSummary) -> [PracticeAction] {
        guard case .summary(let pages, let page, let left) = state, stored.kind == .mindfulWalk else { return [] }
        let corrected = Self.summaryPages(stored, title: summaryTitle)
        guard corrected != pages else { return [] }
        state = .summary(pages: corrected, page: page, secondsLeft: left)
        return [.show(corrected[page])]
    }

    /// Ends whatever session is under way (shutdown, a power cut coming); returns its closing
    /// actions. A walk is saved; a calibration, which is only good whole, is discarded.
    public mutating func finish() -> [PracticeAction] {
        switch state {
        case .walking(let walk), .endingWalk(let walk, _, _), .confirmingDiscard(let walk, _):
            state = .menu(selected: .mindfulWalk)
            return [.metronome(periodSeconds: nil), .endSession(summary(of: walk))]
        case .calibrating:
            state = .menu(selected: .calibrate)
            return [.discardSession]
        default:
            return []
        }
    }

    // MARK: Events, by state group

    /// A press goes to the handler of the state on screen.
    private mutating func buttonPressed(_ press: Press) -> [PracticeAction] {
        switch state {
        case .menu(let selected): return menuPressed(press, selected: selected)
        case .choosingReduction(let index): return reductionPressed(press, index: index)
        case .countdown(let activity, _): return countdownPressed(press, activity)
        case .notice(_, let then): return noticePressed(then: then)
        case .summary(let pages, let page, _): return summaryPressed(press, pages: pages, page: page)
        case .calibrating(let session): return calibrationPressed(press, session)
        case .walking(let walk): return walkPressed(press, walk)
        case .endingWalk(let walk, let selected, _): return endQuestionPressed(press, walk, selected: selected)
        case .confirmingDiscard(let walk, _): return discardQuestionPressed(press, walk)
        case .settings(let selected): return settingsPressed(press, selected: selected)
        case .editing(let choices, let entry): return editorPressed(press, choices, entry: entry)
        case .reminder(let text, let selected, _): return reminderPressed(press, text: text, selected: selected)
        }
    }

    /// A second goes to the handler of the state under way; the menus wait for a press.
    private mutating func secondElapsed(_ report: SecondReport) -> [PracticeAction] {
        switch state {
        case .menu, .choosingReduction, .settings, .editing: return []
        case .notice(let left, let then): return noticeSecond(secondsLeft: left, then: then)
        case .summary(let pages, let page, let left): return summarySecond(pages: pages, page: page, secondsLeft: left)
        case .reminder(let text, let selected, let left): return reminderSecond(text: text, selected: selected, secondsLeft: left)
        case .countdown(let activity, let left): return countdownSecond(activity, secondsLeft: left, report)
        case .calibrating(let session): return calibrationSecond(session, report)
        case .walking(let walk): return walkSecond(walk, report)
        case .endingWalk(let walk, let selected, let left):
            return walkQuestionSecond(walk, report, secondsLeft: left) { .endingWalk($0, selected: selected, secondsLeft: $1) }
        case .confirmingDiscard(let walk, let left):
            return walkQuestionSecond(walk, report, secondsLeft: left) { .confirmingDiscard($0, secondsLeft: $1) }
        }
    }

    // MARK: Screens

    func menuScreen(selected: MenuItem) -> Screen {
        .menu(entries: MenuItem.allCases.map { Screen.MenuEntry(title: $0.label, enabled: $0 != .mindfulWalk || calibration != nil) },
              selected: selected.position, status: storage.warning ?? (values.goalProgress.isEmpty ? nil : values.goalProgress))
    }

    func reductionScreen(index: Int) -> Screen {
        let percent = reduction(at: index)
        let limit = (calibration?.cadenceStepsPerMinute ?? 0) * (1 - Double(percent) / 100)
        return .choosingReduction(percent: percent, limitStepsPerMinute: limit)
    }

    /// The reduction at `index` of the wearer's list (its last when a laptop shortened it meanwhile).
    func reduction(at index: Int) -> Int {
        let choices = values.reductionChoices
        return choices[min(index, choices.count - 1)]
    }

    func settingsScreen(selected: SettingsMenu.Entry) -> Screen {
        .choice(title: "Settings", options: SettingsMenu.entries.map { SettingsMenu.line($0, values: values) },
                selected: SettingsMenu.entries.firstIndex(of: selected) ?? 0)
    }

    /// The second's row, counted in `tally`, with the steps taken in it so far; the steps it
    /// released that were taken in earlier seconds of the session go to them (those taken
    /// before the session are not its own). The action that stores both, with what a power
    /// cut now would need: the steps the counter holds, by their seconds, and the energy so far.
    func record(_ report: SecondReport, into tally: inout SessionTally, overLimit: Bool, alerts: Int, paused: Bool) -> [PracticeAction] {
        let offset = tally.seconds
        let row = SessionSecond(offsetSeconds: offset, steps: report.stepsTaken.first ?? 0, cadenceStepsPerMinute: report.cadenceStepsPerMinute,
                                heartRateBPM: report.heartRateBPM, heartRateConfidence: report.heartRateConfidence,
                                overLimit: overLimit, alerts: alerts, accelerometerGap: report.accelerometerGap, heartRateGap: report.heartRateGap,
                                paused: paused)
        let earlier = StepsAdded.toSeconds(report.stepsTaken.dropFirst(), newestOffset: offset - 1)
        tally.add(row, kilocalories: report.activeKilocalories)
        tally.add(earlier)
        let pending = StepsAdded.toSeconds(report.pendingStepsTaken, newestOffset: offset)
        return [.recordSecond(row, earlier: earlier, progress: SessionProgress(pendingSteps: pending, activeKilocalories: tally.kilocalories))]
    }
}

/// One decimal, for screens: "4.7".
func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10))"
}
