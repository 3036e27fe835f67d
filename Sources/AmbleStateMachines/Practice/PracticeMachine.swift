import AmbleModel

/// What happens to the practice.
public enum PracticeEvent: Equatable, Sendable {
    case button(ButtonEvent)
    /// A second of measurements has passed.
    case secondElapsed(SecondReport)
}

/// What the band must do.
public enum PracticeAction: Equatable, Sendable {
    case vibrate(HapticPattern)
    case show(Screen)
    case beginSession(SessionKind, startUnixSeconds: Double, parameters: SessionParameters)
    case recordSecond(SessionSecond)
    case endSession(SessionSummary)
    case saveCalibration(Calibration)
    case saveReduction(percent: Int)
    /// Start counting whole seconds from now: a countdown begins, and each of its seconds
    /// must be a full second however the press fell within the band's second.
    case restartSeconds
    /// A menu entry that belongs to the link (pairing, forgetting laptops): the band hands it
    /// to its `LinkPrompt`, which takes the screen until it is done.
    case link(LinkPrompt.Request)
}

/// The band's practice: the menu, calibration and the mindful walk, as one value.
///
/// Menu: Calibrate, Mindful Walk (refused until calibrated), Pair laptop, Forget laptops.
/// `next` moves, `select` chooses;
/// `back`, or a long press of `select`, goes back (and ends a walk). Choosing Mindful Walk asks
/// for the reduction; then a countdown, then the walk, second by second. Pure: events in,
/// actions out; the owner stores, buzzes and draws.
public struct PracticeMachine: Sendable {
    enum MenuItem: Int, CaseIterable {
        case calibrate, mindfulWalk, pairLaptop, forgetLaptops
        var title: String {
            switch self {
            case .calibrate: return "Calibrate"
            case .mindfulWalk: return "Mindful Walk"
            case .pairLaptop: return "Pair laptop"
            case .forgetLaptops: return "Forget laptops"
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
    }

    struct CalibrationSession: Equatable {
        var run: CalibrationRun
        var parameters: SessionParameters
        var tally = SessionTally()
        var startUnixSeconds: Double
    }

    enum State: Equatable {
        case menu(selected: MenuItem)
        case choosingReduction(index: Int)
        case countdown(Activity, secondsLeft: Int)
        case calibrating(CalibrationSession)
        case walking(Walk)
        /// A message until any press (or a few seconds), then the menu.
        case notice(secondsLeft: Int)
    }

    public let settings: PracticeSettings
    public private(set) var calibration: Calibration?
    public private(set) var reductionPercent: Int
    private(set) var state: State = .menu(selected: .calibrate)

    public init(settings: PracticeSettings = .init(), calibration: Calibration?, reductionPercent: Int = 20) {
        self.settings = settings
        self.calibration = calibration
        self.reductionPercent = settings.reductionChoicesPercent.contains(reductionPercent) ? reductionPercent : 20
    }

    /// The screen to show at start.
    public func start() -> [PracticeAction] {
        [.show(menuScreen(selected: .calibrate))]
    }

    /// Whether a session is being recorded (the owner ends it cleanly on shutdown).
    public var isRecording: Bool {
        switch state {
        case .calibrating, .walking: return true
        default: return false
        }
    }

    public var stepLengthMeters: Double {
        calibration?.stepLengthMeters ?? settings.defaultStepLengthMeters
    }

    public mutating func handle(_ event: PracticeEvent) -> [PracticeAction] {
        switch event {
        case .button(let press): return buttonPressed(press)
        case .secondElapsed(let report): return secondElapsed(report)
        }
    }

    /// The screen of the menu or choice on screen, to show again after a link prompt; nothing
    /// in the other states (their next second redraws them).
    public mutating func redraw() -> [PracticeAction] {
        switch state {
        case .menu(let selected): return [.show(menuScreen(selected: selected))]
        case .choosingReduction(let index): return [.show(reductionScreen(index: index))]
        case .notice:
            state = .menu(selected: .calibrate)
            return [.show(menuScreen(selected: .calibrate))]
        default: return []
        }
    }

    /// Whether the wearer is between things (menu, a choice, a notice): a link prompt may take
    /// the screen. Not during a countdown, calibration or walk.
    public var isIdle: Bool {
        switch state {
        case .menu, .choosingReduction, .notice: return true
        default: return false
        }
    }

    /// Ends whatever session is under way (shutdown); returns its closing actions.
    public mutating func finish(unixSeconds: Double) -> [PracticeAction] {
        switch state {
        case .walking(let walk):
            state = .menu(selected: .mindfulWalk)
            return [.endSession(walk.tally.summary(kind: .mindfulWalk, startUnixSeconds: walk.startUnixSeconds, endUnixSeconds: unixSeconds, parameters: walk.parameters))]
        case .calibrating(let session):
            state = .menu(selected: .calibrate)
            return [.endSession(session.tally.summary(kind: .calibration, startUnixSeconds: session.startUnixSeconds, endUnixSeconds: unixSeconds, parameters: session.parameters))]
        default:
            return []
        }
    }

    // MARK: Buttons

    private mutating func buttonPressed(_ press: ButtonEvent) -> [PracticeAction] {
        let goesBack = press == .shortPressed(.back) || press == .longPressed(.select) || press == .longPressed(.back)
        switch state {
        case .menu(let selected):
            if press == .shortPressed(.next) {
                let next = MenuItem(rawValue: (selected.rawValue + 1) % MenuItem.allCases.count)!
                state = .menu(selected: next)
                return [.vibrate(.short), .show(menuScreen(selected: next))]
            }
            guard press == .shortPressed(.select) else { return [] }
            switch selected {
            case .calibrate:
                state = .countdown(.calibration, secondsLeft: settings.countdownSeconds)
                return [.restartSeconds, .vibrate(.double), .show(.countdown(title: "Calibrate: walk normally", secondsLeft: settings.countdownSeconds))]
            case .mindfulWalk:
                guard calibration != nil else {
                    state = .notice(secondsLeft: 4)
                    return [.vibrate(.refuse), .show(.notice(title: "Calibrate first", detail: "Mindful Walk needs your normal pace"))]
                }
                let index = settings.reductionChoicesPercent.firstIndex(of: reductionPercent) ?? 0
                state = .choosingReduction(index: index)
                return [.vibrate(.short), .show(reductionScreen(index: index))]
            case .pairLaptop:
                return [.link(.openPairing)]
            case .forgetLaptops:
                return [.link(.confirmForgetLaptops)]
            }

        case .choosingReduction(let index):
            if goesBack {
                state = .menu(selected: .mindfulWalk)
                return [.vibrate(.short), .show(menuScreen(selected: .mindfulWalk))]
            }
            if press == .shortPressed(.next) {
                let next = (index + 1) % settings.reductionChoicesPercent.count
                state = .choosingReduction(index: next)
                return [.vibrate(.short), .show(reductionScreen(index: next))]
            }
            guard press == .shortPressed(.select) else { return [] }
            reductionPercent = settings.reductionChoicesPercent[index]
            state = .countdown(.walk(reductionPercent: reductionPercent), secondsLeft: settings.countdownSeconds)
            return [.saveReduction(percent: reductionPercent), .restartSeconds, .vibrate(.double),
                    .show(.countdown(title: "Mindful walk -\(reductionPercent)%", secondsLeft: settings.countdownSeconds))]

        case .countdown(let activity, _):
            guard goesBack else { return [] }
            let item: MenuItem = activity == .calibration ? .calibrate : .mindfulWalk
            state = .menu(selected: item)
            return [.vibrate(.short), .show(menuScreen(selected: item))]

        case .calibrating(let session):
            // Over a known distance the wearer marks its end with select.
            if press == .shortPressed(.select), settings.calibrationDistanceMeters != nil {
                return finishCalibration(session, unixSeconds: session.startUnixSeconds + Double(session.run.elapsedSeconds))
            }
            guard goesBack else { return [] }
            state = .menu(selected: .calibrate)
            let summary = session.tally.summary(kind: .calibration, startUnixSeconds: session.startUnixSeconds, endUnixSeconds: session.startUnixSeconds + Double(session.run.elapsedSeconds), parameters: session.parameters)
            return [.endSession(summary), .vibrate(.refuse), .show(menuScreen(selected: .calibrate))]

        case .walking(let walk):
            guard goesBack else { return [] }
            return finishWalk(walk, unixSeconds: walk.startUnixSeconds + Double(walk.tally.seconds))

        case .notice:
            state = .menu(selected: .calibrate)
            return [.show(menuScreen(selected: .calibrate))]
        }
    }

    // MARK: Seconds

    private mutating func secondElapsed(_ report: SecondReport) -> [PracticeAction] {
        switch state {
        case .menu, .choosingReduction:
            return []

        case .notice(let left):
            if left <= 1 {
                state = .menu(selected: .calibrate)
                return [.show(menuScreen(selected: .calibrate))]
            }
            state = .notice(secondsLeft: left - 1)
            return []

        case .countdown(let activity, let left):
            if left > 1 {
                state = .countdown(activity, secondsLeft: left - 1)
                let title = activity == .calibration ? "Calibrate: walk normally" : "Mindful walk -\(reductionPercent)%"
                return [.vibrate(.short), .show(.countdown(title: title, secondsLeft: left - 1))]
            }
            return begin(activity, unixSeconds: report.unixSeconds)

        case .calibrating(var session):
            session.run.secondElapsed(steps: report.steps, cadenceStepsPerMinute: report.cadenceStepsPerMinute)
            let row = makeRow(report, offset: session.tally.seconds, overLimit: false, alerts: 0)
            session.tally.add(row)
            if session.run.isComplete {
                return [.recordSecond(row)] + finishCalibration(session, unixSeconds: report.unixSeconds)
            }
            state = .calibrating(session)
            let total = settings.calibrationDistanceMeters == nil ? settings.calibrationSeconds : nil
            return [.recordSecond(row), .show(.calibrating(elapsedSeconds: session.run.elapsedSeconds, totalSeconds: total, cadenceStepsPerMinute: report.cadenceStepsPerMinute, steps: session.run.steps))]

        case .walking(var walk):
            let pace = walk.monitor.secondElapsed(cadenceStepsPerMinute: report.cadenceStepsPerMinute)
            let row = makeRow(report, offset: walk.tally.seconds, overLimit: pace.overLimit, alerts: pace.alert ? 1 : 0)
            walk.tally.add(row)
            walk.stillSeconds = report.steps > 0 ? 0 : walk.stillSeconds + 1
            if walk.stillSeconds >= settings.walkEndsAfterStillSeconds {
                return [.recordSecond(row)] + finishWalk(walk, unixSeconds: report.unixSeconds)
            }
            state = .walking(walk)
            var actions: [PracticeAction] = [.recordSecond(row)]
            if pace.alert { actions.append(.vibrate(.paceAlert)) }
            actions.append(.show(.walking(elapsedSeconds: walk.tally.seconds, cadenceStepsPerMinute: report.cadenceStepsPerMinute, limitStepsPerMinute: walk.monitor.limitStepsPerMinute, steps: walk.tally.steps, heartRateBPM: report.heartRateBPM, overLimit: pace.overLimit)))
            return actions
        }
    }

    private mutating func begin(_ activity: Activity, unixSeconds: Double) -> [PracticeAction] {
        switch activity {
        case .calibration:
            let parameters = SessionParameters(stepLengthMeters: stepLengthMeters)
            state = .calibrating(CalibrationSession(run: CalibrationRun(settings: settings), parameters: parameters, startUnixSeconds: unixSeconds))
            let total = settings.calibrationDistanceMeters == nil ? settings.calibrationSeconds : nil
            return [.beginSession(.calibration, startUnixSeconds: unixSeconds, parameters: parameters), .vibrate(.long),
                    .show(.calibrating(elapsedSeconds: 0, totalSeconds: total, cadenceStepsPerMinute: 0, steps: 0))]
        case .walk(let reduction):
            guard let calibration else {
                state = .menu(selected: .calibrate)
                return [.vibrate(.refuse), .show(menuScreen(selected: .calibrate))]
            }
            let limit = calibration.cadenceStepsPerMinute * (1 - Double(reduction) / 100)
            let parameters = SessionParameters(calibratedCadenceStepsPerMinute: calibration.cadenceStepsPerMinute, reductionPercent: reduction, limitCadenceStepsPerMinute: limit, stepLengthMeters: stepLengthMeters)
            state = .walking(Walk(monitor: PaceMonitor(limitStepsPerMinute: limit, settings: settings), parameters: parameters, startUnixSeconds: unixSeconds))
            return [.beginSession(.mindfulWalk, startUnixSeconds: unixSeconds, parameters: parameters), .vibrate(.long),
                    .show(.walking(elapsedSeconds: 0, cadenceStepsPerMinute: 0, limitStepsPerMinute: limit, steps: 0, heartRateBPM: nil, overLimit: false))]
        }
    }

    private mutating func finishCalibration(_ session: CalibrationSession, unixSeconds: Double) -> [PracticeAction] {
        let outcome = session.run.outcome(unixSeconds: unixSeconds)
        var measured: Double?
        var actions: [PracticeAction] = []
        switch outcome {
        case .calibrated(let result):
            calibration = result
            measured = result.cadenceStepsPerMinute
            actions += [.saveCalibration(result), .vibrate(.double),
                        .show(.notice(title: "Calibrated", detail: "normal pace \(Int(result.cadenceStepsPerMinute.rounded())) steps/min"))]
        case .failed(let reason):
            actions += [.vibrate(.refuse), .show(.notice(title: "Calibration failed", detail: reason))]
        }
        var parameters = session.parameters
        if case .calibrated(let result) = outcome, let length = result.stepLengthMeters { parameters.stepLengthMeters = length }
        let summary = session.tally.summary(kind: .calibration, startUnixSeconds: session.startUnixSeconds, endUnixSeconds: unixSeconds, parameters: parameters, measuredCadenceStepsPerMinute: measured)
        state = .notice(secondsLeft: 5)
        return [.endSession(summary)] + actions
    }

    private mutating func finishWalk(_ walk: Walk, unixSeconds: Double) -> [PracticeAction] {
        let summary = walk.tally.summary(kind: .mindfulWalk, startUnixSeconds: walk.startUnixSeconds, endUnixSeconds: unixSeconds, parameters: walk.parameters)
        state = .notice(secondsLeft: 8)
        let minutes = Int((Double(walk.tally.seconds) / 60).rounded())
        return [.endSession(summary), .vibrate(.long),
                .show(.notice(title: "Walk saved", detail: "\(summary.steps) steps, \(minutes) min, \(summary.alerts) alerts"))]
    }

    // MARK: Screens

    private func menuScreen(selected: MenuItem) -> Screen {
        .menu(entries: MenuItem.allCases.map { Screen.MenuEntry(title: $0.title, enabled: $0 != .mindfulWalk || calibration != nil) }, selected: selected.rawValue)
    }

    private func reductionScreen(index: Int) -> Screen {
        let percent = settings.reductionChoicesPercent[index]
        let limit = (calibration?.cadenceStepsPerMinute ?? 0) * (1 - Double(percent) / 100)
        return .choosingReduction(percent: percent, limitStepsPerMinute: limit)
    }

    private func makeRow(_ report: SecondReport, offset: Int, overLimit: Bool, alerts: Int) -> SessionSecond {
        SessionSecond(offsetSeconds: offset, steps: report.steps, cadenceStepsPerMinute: report.cadenceStepsPerMinute,
                      heartRateBPM: report.heartRateBPM, heartRateConfidence: report.heartRateConfidence,
                      overLimit: overLimit, alerts: alerts, accelerometerGap: report.accelerometerGap, heartRateGap: report.heartRateGap)
    }
}
