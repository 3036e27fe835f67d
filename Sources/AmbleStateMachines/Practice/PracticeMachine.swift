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
    /// The wearer changed a setting (stored text, already validated).
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
/// Buttons (docs in README, "The practice"): `next` moves, `select` chooses, `back` (or a long
/// press of `select` on a band without one) goes back.
/// - **Walk:** select pauses and resumes; a long press of select ends and saves; back asks
///   "Save / Discard / Continue"; Discard asks once more. A paused second counts neither for nor
///   against the limit. The summary follows (next turns its pages).
/// - **Calibration:** back (or a long press) at any moment discards it.
public struct PracticeMachine: Sendable {
    enum MenuItem: Int, CaseIterable {
        case calibrate, mindfulWalk, settings
        var title: String {
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

    enum State: Equatable {
        case menu(selected: MenuItem)
        case choosingReduction(index: Int)
        case countdown(Activity, secondsLeft: Int)
        case calibrating(CalibrationSession)
        case walking(Walk)
        /// "End the walk?": Save, Discard, Continue; the walk goes on meanwhile.
        case endingWalk(Walk, selected: Int, secondsLeft: Int)
        case confirmingDiscard(Walk, secondsLeft: Int)
        case summary(pages: [Screen], page: Int, secondsLeft: Int)
        /// A message until any press (or a few seconds), then the menu at `then`.
        case notice(secondsLeft: Int, then: MenuItem = .calibrate)
        case settings(selected: Int)
        case editing(BandSetting, options: [String], index: Int, entry: Int)
        case reminder(text: String, selected: Int, secondsLeft: Int)
    }

    static let endChoices = ["Save", "Discard", "Continue"]
    static let reminderChoices = ["Walk now", "Snooze 15 min", "Snooze 60 min", "Dismiss"]

    public let settings: PracticeSettings
    public private(set) var values: BandSettingValues
    public private(set) var calibration: Calibration?
    /// Step length used before a distance calibration, metres (from the wearer's height).
    public private(set) var defaultStepLengthMeters: Double
    private(set) var state: State = .menu(selected: .calibrate)
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
            return [.vibrate(.refuse), .show(.notice(title: notice.title, detail: notice.detail))]
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

    /// A setting changed elsewhere (a laptop): used from now on.
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
        case .editing(let setting, let options, let index, _): return [.show(editScreen(setting, options, index))]
        case .reminder(let text, let selected, _): return [.show(.choice(title: text, options: Self.reminderChoices, selected: selected))]
        default: return []
        }
    }

    public mutating func handle(_ event: PracticeEvent) -> [PracticeAction] {
        switch event {
        case .button(let press): return buttonPressed(press)
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

    // MARK: Buttons

    private mutating func buttonPressed(_ press: ButtonEvent) -> [PracticeAction] {
        let isBack = press == .shortPressed(.back) || press == .longPressed(.back)
        let goesBack = isBack || press == .longPressed(.select)
        let next = press == .shortPressed(.next)
        let select = press == .shortPressed(.select)
        switch state {
        case .menu(let selected):
            if next {
                let item = MenuItem(rawValue: (selected.rawValue + 1) % MenuItem.allCases.count)!
                state = .menu(selected: item)
                return [.vibrate(.short), .show(menuScreen(selected: item))]
            }
            guard select else { return [] }
            switch selected {
            case .calibrate:
                state = .countdown(.calibration, secondsLeft: settings.countdownSeconds)
                return [.restartSeconds, .vibrate(.double), .show(.countdown(title: "Calibrate: walk normally", secondsLeft: settings.countdownSeconds))]
            case .mindfulWalk:
                return chooseReduction()
            case .settings:
                state = .settings(selected: 0)
                return [.vibrate(.short), .show(settingsScreen(selected: 0))]
            }

        case .choosingReduction(let index):
            let choices = values.reductionChoices
            if goesBack {
                state = .menu(selected: .mindfulWalk)
                return [.vibrate(.short), .show(menuScreen(selected: .mindfulWalk))]
            }
            if next {
                let next = (index + 1) % choices.count
                state = .choosingReduction(index: next)
                return [.vibrate(.short), .show(reductionScreen(index: next))]
            }
            guard select else { return [] }
            let percent = choices[min(index, choices.count - 1)]
            var actions: [PracticeAction] = []
            if percent != values.reductionPercent {
                values.reductionPercent = percent
                actions.append(.saveSetting(.reductionPercent, String(percent)))
            }
            state = .countdown(.walk(reductionPercent: percent), secondsLeft: settings.countdownSeconds)
            return actions + [.restartSeconds, .vibrate(.double), .show(.countdown(title: "Mindful walk -\(percent)%", secondsLeft: settings.countdownSeconds))]

        case .countdown(let activity, _):
            guard goesBack else { return [] }
            let item: MenuItem = activity == .calibration ? .calibrate : .mindfulWalk
            state = .menu(selected: item)
            return [.vibrate(.short), .show(menuScreen(selected: item))]

        case .calibrating(let session):
            // Over a known distance the wearer marks its end with select.
            if select, settings.calibrationDistanceMeters != nil {
                return finishCalibration(session)
            }
            guard goesBack else { return [] }
            state = .notice(secondsLeft: 5)
            return [.discardSession, .vibrate(.refuse), .show(.notice(title: "Calibration discarded", detail: "Nothing was saved; your last calibration stays"))]

        case .walking(var walk):
            if press == .longPressed(.select) {
                return finishWalk(walk)
            }
            if select {
                if walk.pausedFor == nil {
                    walk.pausedFor = 0
                    walk.lastScreen.pausedSeconds = 0
                    state = .walking(walk)
                    return [.metronome(periodSeconds: nil), .vibrate(.pause), .show(.walking(walk.lastScreen))]
                }
                walk.pausedFor = nil
                walk.lastScreen.pausedSeconds = nil
                // The pace starts afresh: a surge before the pause is not held against the walk.
                walk.monitor = PaceMonitor(limitStepsPerMinute: walk.monitor.limitStepsPerMinute, settings: settings)
                state = .walking(walk)
                return metronomeOn(walk) + [.vibrate(.pause), .show(.walking(walk.lastScreen))]
            }
            // Back, or a long press of next (a band with two buttons has no back).
            guard isBack || press == .longPressed(.next) else { return [] }
            state = .endingWalk(walk, selected: 0, secondsLeft: settings.questionSeconds)
            return [.vibrate(.short), .show(.choice(title: "End the walk?", options: Self.endChoices, selected: 0))]

        case .endingWalk(let walk, let selected, _):
            if next {
                let next = (selected + 1) % Self.endChoices.count
                state = .endingWalk(walk, selected: next, secondsLeft: settings.questionSeconds)
                return [.vibrate(.short), .show(.choice(title: "End the walk?", options: Self.endChoices, selected: next))]
            }
            if goesBack { return continueWalk(walk) }
            guard select else { return [] }
            switch selected {
            case 0: return finishWalk(walk)
            case 1:
                state = .confirmingDiscard(walk, secondsLeft: settings.questionSeconds)
                return [.vibrate(.short), .show(.question(title: "Discard the walk?", detail: "It will not be saved", code: nil, keys: "select: discard  back: keep"))]
            default: return continueWalk(walk)
            }

        case .confirmingDiscard(let walk, _):
            if select {
                state = .notice(secondsLeft: 5, then: .mindfulWalk)
                return [.metronome(periodSeconds: nil), .discardSession, .vibrate(.refuse),
                        .show(.notice(title: "Walk discarded", detail: "Nothing was saved"))]
            }
            guard goesBack else { return [] }
            return continueWalk(walk)

        case .summary(let pages, let page, _):
            if next, pages.count > 1 {
                let turned = (page + 1) % pages.count
                state = .summary(pages: pages, page: turned, secondsLeft: settings.summarySeconds)
                return [.vibrate(.short), .show(pages[turned])]
            }
            guard select || goesBack else { return [] }
            state = .menu(selected: .mindfulWalk)
            return [.show(menuScreen(selected: .mindfulWalk))]

        case .notice(_, let then):
            state = .menu(selected: then)
            return [.show(menuScreen(selected: then))]

        case .settings(let selected):
            let entries = SettingsMenu.entries
            if next {
                let moved = (selected + 1) % entries.count
                state = .settings(selected: moved)
                return [.vibrate(.short), .show(settingsScreen(selected: moved))]
            }
            if goesBack {
                state = .menu(selected: .settings)
                return [.vibrate(.short), .show(menuScreen(selected: .settings))]
            }
            guard select else { return [] }
            switch entries[selected] {
            case .setting(let setting):
                let options = SettingsMenu.options(setting, current: values.text(setting))
                let index = options.firstIndex(of: values.text(setting)) ?? 0
                state = .editing(setting, options: options, index: index, entry: selected)
                return [.vibrate(.short), .show(editScreen(setting, options, index))]
            case .pairLaptop:
                state = .menu(selected: .settings)
                return [.link(.openPairing)]
            case .forgetLaptops:
                state = .menu(selected: .settings)
                return [.link(.confirmForgetLaptops)]
            case .back:
                state = .menu(selected: .settings)
                return [.vibrate(.short), .show(menuScreen(selected: .settings))]
            }

        case .editing(let setting, let options, let index, let entry):
            if next || press == .longPressed(.next) {
                // A long press of next jumps ten values (height, weight).
                let moved = (index + (next ? 1 : 10)) % options.count
                state = .editing(setting, options: options, index: moved, entry: entry)
                return [.vibrate(.short), .show(editScreen(setting, options, moved))]
            }
            if goesBack {
                state = .settings(selected: entry)
                return [.vibrate(.short), .show(settingsScreen(selected: entry))]
            }
            guard select else { return [] }
            let value = options[index]
            values.set(setting, value)
            state = .settings(selected: entry)
            return [.saveSetting(setting, value), .vibrate(.double), .show(settingsScreen(selected: entry))]

        case .reminder(let text, let selected, _):
            if next {
                let moved = (selected + 1) % Self.reminderChoices.count
                state = .reminder(text: text, selected: moved, secondsLeft: settings.questionSeconds)
                return [.vibrate(.short), .show(.choice(title: text, options: Self.reminderChoices, selected: moved))]
            }
            if goesBack {
                state = .menu(selected: .mindfulWalk)
                return [.snoozeReminder(minutes: 15), .vibrate(.short), .show(menuScreen(selected: .mindfulWalk))]
            }
            guard select else { return [] }
            switch selected {
            case 0: return [.dismissReminder] + chooseReduction()
            case 1, 2:
                state = .menu(selected: .mindfulWalk)
                return [.snoozeReminder(minutes: selected == 1 ? 15 : 60), .vibrate(.double), .show(menuScreen(selected: .mindfulWalk))]
            default:
                state = .menu(selected: .mindfulWalk)
                return [.dismissReminder, .vibrate(.short), .show(menuScreen(selected: .mindfulWalk))]
            }
        }
    }

    private mutating func chooseReduction() -> [PracticeAction] {
        guard calibration != nil else {
            state = .notice(secondsLeft: 4)
            return [.vibrate(.refuse), .show(.notice(title: "Calibrate first", detail: "Mindful Walk needs your normal pace"))]
        }
        let index = values.reductionChoices.firstIndex(of: values.reductionPercent) ?? 0
        state = .choosingReduction(index: index)
        return [.vibrate(.short), .show(reductionScreen(index: index))]
    }

    private mutating func continueWalk(_ walk: Walk) -> [PracticeAction] {
        state = .walking(walk)
        return [.vibrate(.short), .show(.walking(walk.lastScreen))]
    }

    // MARK: Reminders

    private mutating func reminderDue(_ text: String) -> [PracticeAction] {
        switch state {
        case .walking, .endingWalk, .confirmingDiscard:
            return [.dismissReminder]   // the wearer is walking already
        case .countdown, .calibrating:
            return [.snoozeReminder(minutes: 15)]
        default:
            state = .reminder(text: text, selected: 0, secondsLeft: settings.questionSeconds * 4)
            return [.vibrate(.double), .show(.choice(title: text, options: Self.reminderChoices, selected: 0))]
        }
    }

    // MARK: Seconds

    private mutating func secondElapsed(_ report: SecondReport) -> [PracticeAction] {
        switch state {
        case .menu, .choosingReduction, .settings, .editing:
            return []

        case .notice(let left, let then):
            if left <= 1 {
                state = .menu(selected: then)
                return [.show(menuScreen(selected: then))]
            }
            state = .notice(secondsLeft: left - 1, then: then)
            return []

        case .summary(let pages, let page, let left):
            if left <= 1 {
                state = .menu(selected: .mindfulWalk)
                return [.show(menuScreen(selected: .mindfulWalk))]
            }
            state = .summary(pages: pages, page: page, secondsLeft: left - 1)
            return []

        case .reminder(let text, let selected, let left):
            if left <= 1 {
                // Unanswered: missed for today (the band may be off the wrist).
                state = .menu(selected: .mindfulWalk)
                return [.dismissReminder, .show(menuScreen(selected: .mindfulWalk))]
            }
            state = .reminder(text: text, selected: selected, secondsLeft: left - 1)
            return []

        case .countdown(let activity, let left):
            if left > 1 {
                state = .countdown(activity, secondsLeft: left - 1)
                let title = if case .walk(let percent) = activity { "Mindful walk -\(percent)%" } else { "Calibrate: walk normally" }
                return [.vibrate(.short), .show(.countdown(title: title, secondsLeft: left - 1))]
            }
            return begin(activity, unixSeconds: report.unixSeconds)

        case .calibrating(var session):
            session.run.secondElapsed(steps: report.steps, cadenceStepsPerMinute: report.cadenceStepsPerMinute)
            let recorded = record(report, into: &session.tally, overLimit: false, alerts: 0, paused: false)
            session.rmssd = report.restingRMSSDMilliseconds ?? session.rmssd
            if session.run.isComplete {
                return recorded + finishCalibration(session)
            }
            state = .calibrating(session)
            let total = settings.calibrationDistanceMeters == nil ? session.run.lengthSeconds : nil
            return recorded + [.show(.calibrating(elapsedSeconds: session.run.elapsedSeconds, totalSeconds: total, cadenceStepsPerMinute: report.cadenceStepsPerMinute, steps: session.run.steps))]

        case .walking(var walk):
            let (actions, ended) = advance(&walk, report)
            if ended { return actions + finishWalk(walk) }
            state = .walking(walk)
            return actions + [.show(.walking(walk.lastScreen))]

        case .endingWalk(var walk, let selected, let left):
            let (actions, ended) = advance(&walk, report)
            if ended { return actions + finishWalk(walk) }
            if left <= 1 { return actions + continueWalk(walk) }
            state = .endingWalk(walk, selected: selected, secondsLeft: left - 1)
            return actions

        case .confirmingDiscard(var walk, let left):
            let (actions, ended) = advance(&walk, report)
            if ended { return actions + finishWalk(walk) }
            if left <= 1 { return actions + continueWalk(walk) }
            state = .confirmingDiscard(walk, secondsLeft: left - 1)
            return actions
        }
    }

    /// One second of a walk (walking or paused); `ended` when it ends by itself.
    private func advance(_ walk: inout Walk, _ report: SecondReport) -> (actions: [PracticeAction], ended: Bool) {
        walk.rmssd = report.restingRMSSDMilliseconds ?? walk.rmssd
        if let paused = walk.pausedFor {
            let recorded = record(report, into: &walk.tally, overLimit: false, alerts: 0, paused: true)
            walk.pausedFor = paused + 1
            walk.lastScreen.pausedSeconds = paused + 1
            walk.lastScreen.elapsedSeconds = walk.tally.seconds
            walk.lastScreen.heartRateBPM = report.heartRateBPM
            return (recorded, paused + 1 >= settings.longestPauseSeconds)
        }
        let pace = walk.monitor.secondElapsed(cadenceStepsPerMinute: report.cadenceStepsPerMinute)
        var actions = record(report, into: &walk.tally, overLimit: pace.overLimit, alerts: pace.alert ? 1 : 0, paused: false)
        walk.stillSeconds = report.steps > 0 ? 0 : walk.stillSeconds + 1
        walk.lastScreen = Screen.Walking(elapsedSeconds: walk.tally.seconds, cadenceStepsPerMinute: report.cadenceStepsPerMinute,
                                         limitStepsPerMinute: walk.monitor.limitStepsPerMinute, steps: walk.tally.steps,
                                         heartRateBPM: report.heartRateBPM, pace: walk.monitor.pace)
        if pace.alert, let pattern = HapticPattern.paceAlert(style: values.alertStyle,
                                                           strength: AlertStrength.strength(setting: values.alertStrength, wristMotionG: report.wristMotionG)) {
            actions.append(.vibrate(pattern))
        }
        return (actions, walk.stillSeconds >= settings.walkEndsAfterStillSeconds)
    }

    private mutating func begin(_ activity: Activity, unixSeconds: Double) -> [PracticeAction] {
        switch activity {
        case .calibration:
            let parameters = SessionParameters(stepLengthMeters: stepLengthMeters)
            let run = CalibrationRun(settings: settings, lengthSeconds: values.calibrationSeconds)
            state = .calibrating(CalibrationSession(run: run, parameters: parameters, startUnixSeconds: unixSeconds))
            let total = settings.calibrationDistanceMeters == nil ? run.lengthSeconds : nil
            return [.beginSession(.calibration, startUnixSeconds: unixSeconds, parameters: parameters), .vibrate(.long),
                    .show(.calibrating(elapsedSeconds: 0, totalSeconds: total, cadenceStepsPerMinute: 0, steps: 0))]
        case .walk(let reduction):
            guard let calibration else {
                state = .menu(selected: .calibrate)
                return [.vibrate(.refuse), .show(menuScreen(selected: .calibrate))]
            }
            let limit = calibration.cadenceStepsPerMinute * (1 - Double(reduction) / 100)
            let parameters = SessionParameters(calibratedCadenceStepsPerMinute: calibration.cadenceStepsPerMinute, reductionPercent: reduction,
                                               limitCadenceStepsPerMinute: limit, stepLengthMeters: stepLengthMeters)
            let screen = Screen.Walking(elapsedSeconds: 0, cadenceStepsPerMinute: 0, limitStepsPerMinute: limit, steps: 0, heartRateBPM: nil, pace: .under)
            let walk = Walk(monitor: PaceMonitor(limitStepsPerMinute: limit, settings: settings), parameters: parameters,
                            startUnixSeconds: unixSeconds, lastScreen: screen)
            state = .walking(walk)
            return [.beginSession(.mindfulWalk, startUnixSeconds: unixSeconds, parameters: parameters), .vibrate(.long)]
                + metronomeOn(walk) + [.show(.walking(screen))]
        }
    }

    private func metronomeOn(_ walk: Walk) -> [PracticeAction] {
        guard values.metronome else { return [] }
        return [.metronome(periodSeconds: 60 / walk.monitor.limitStepsPerMinute)]
    }

    /// Ends the calibration. Its end is its start plus the seconds it ran (counted, monotonic):
    /// never a second reading of the band's date, which a laptop or the system may have moved
    /// meanwhile.
    private mutating func finishCalibration(_ session: CalibrationSession) -> [PracticeAction] {
        let unixSeconds = session.startUnixSeconds + Double(session.tally.seconds)
        let outcome = session.run.outcome(unixSeconds: unixSeconds)
        var measured: Double?
        var actions: [PracticeAction] = []
        var then = MenuItem.calibrate
        var parameters = session.parameters
        switch outcome {
        case .calibrated(let result):
            calibration = result
            measured = result.cadenceStepsPerMinute
            if let length = result.stepLengthMeters { parameters.stepLengthMeters = length }
            let speed = result.cadenceStepsPerMinute / 60 * parameters.stepLengthMeters * 3.6
            then = .mindfulWalk   // what a calibrated wearer does next
            actions += [.saveCalibration(result), .vibrate(.double),
                        .show(.notice(title: "Calibrated", detail: "normal pace \(Int(result.cadenceStepsPerMinute.rounded())) steps/min, \(oneDecimal(speed)) km/h (step \(Int((parameters.stepLengthMeters * 100).rounded())) cm)"))]
        case .failed(let reason):
            actions += [.vibrate(.refuse), .show(.notice(title: "Calibration failed", detail: reason))]
        }
        let summary = session.tally.summary(kind: .calibration, startUnixSeconds: session.startUnixSeconds, endUnixSeconds: unixSeconds,
                                            parameters: parameters, rmssdMilliseconds: session.rmssd, measuredCadenceStepsPerMinute: measured)
        state = .notice(secondsLeft: 8, then: then)
        return [.endSession(summary)] + actions
    }

    /// The walk's summary. Its end is its start plus the seconds it ran (counted, monotonic),
    /// whatever the band's date did meanwhile: the duration is always the time walked.
    private func summary(of walk: Walk) -> SessionSummary {
        walk.tally.summary(kind: .mindfulWalk, startUnixSeconds: walk.startUnixSeconds, endUnixSeconds: walk.startUnixSeconds + Double(walk.tally.seconds),
                           parameters: walk.parameters, rmssdMilliseconds: walk.rmssd)
    }

    private mutating func finishWalk(_ walk: Walk) -> [PracticeAction] {
        let summary = summary(of: walk)
        let pages = Self.summaryPages(summary, title: summaryTitle)
        state = .summary(pages: pages, page: 0, secondsLeft: settings.summarySeconds)
        return [.metronome(periodSeconds: nil), .endSession(summary), .vibrate(.long), .show(pages[0])]
    }

    /// The title of the end-of-walk summary.
    private var summaryTitle: String { storage == .full ? "Storage full" : "Walk saved" }

    /// The end-of-walk summary, a page per screen: time within the limit, steps and distance,
    /// heart rate and pauses.
    public static func summaryPages(_ s: SessionSummary, title: String = "Walk saved") -> [Screen] {
        let duration = clockText(Int(s.durationSeconds.rounded()))
        let within = s.withinLimitShare.map { "\(Int(($0 * 100).rounded())) % within the limit" } ?? "no walking measured"
        let page1 = ["\(duration) walked", within, "\(s.alerts) alert\(s.alerts == 1 ? "" : "s")"]
        let distance = s.distanceMeters >= 1000 ? "\(oneDecimal(s.distanceMeters / 1000)) km" : "\(Int(s.distanceMeters.rounded())) m"
        let page2 = ["\(s.steps) steps", distance, s.activeKilocalories.map { "\(Int($0.rounded())) kcal" } ?? "energy unknown"]
        let heart = s.averageHeartRateBPM.map { average in
            "heart \(Int(average.rounded())) avg, \(Int((s.maximumHeartRateBPM ?? average).rounded())) max"
        } ?? "no heart rate"
        let pauses = s.pauses == 0 ? "no pauses" : "\(s.pauses) pause\(s.pauses == 1 ? "" : "s"), \(clockText(s.pausedSeconds))"
        let page3 = [heart, pauses]
        let pages = [page1, page2, page3]
        return pages.enumerated().map { .summary(title: title, lines: $0.element, page: $0.offset, pages: pages.count) }
    }

    // MARK: Screens

    private func menuScreen(selected: MenuItem) -> Screen {
        .menu(entries: MenuItem.allCases.map { Screen.MenuEntry(title: $0.title, enabled: $0 != .mindfulWalk || calibration != nil) }, selected: selected.rawValue,
              status: storage.warning ?? (values.goalProgress.isEmpty ? nil : values.goalProgress))
    }

    private func reductionScreen(index: Int) -> Screen {
        let choices = values.reductionChoices
        let percent = choices[min(index, choices.count - 1)]
        let limit = (calibration?.cadenceStepsPerMinute ?? 0) * (1 - Double(percent) / 100)
        return .choosingReduction(percent: percent, limitStepsPerMinute: limit)
    }

    private func settingsScreen(selected: Int) -> Screen {
        .choice(title: "Settings", options: SettingsMenu.entries.map { SettingsMenu.line($0, values: values) }, selected: selected)
    }

    private func editScreen(_ setting: BandSetting, _ options: [String], _ index: Int) -> Screen {
        .choice(title: SettingsMenu.title(setting), options: options.map { SettingsMenu.label(setting, $0) }, selected: index)
    }

    /// The second's row, counted in `tally`, with the steps taken in it so far; the steps it
    /// released that were taken in earlier seconds of the session go to them (those taken
    /// before the session are not its own). The action that stores both, with what a power
    /// cut now would need: the steps the counter holds, by their seconds, and the energy so far.
    private func record(_ report: SecondReport, into tally: inout SessionTally, overLimit: Bool, alerts: Int, paused: Bool) -> [PracticeAction] {
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
