import AmbleModel

/// The mindful walk: pause and resume, "End the walk?" and its confirmation, its seconds, its
/// end and the summary.
extension PracticeMachine {
    mutating func beginWalk(reductionPercent reduction: Int, unixSeconds: Double) -> [PracticeAction] {
        guard let calibration else {
            state = .menu(selected: .calibrate)
            return .refuse(showing: menuScreen(selected: .calibrate))
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

    // MARK: Presses

    mutating func walkPressed(_ press: Press, _ walk: Walk) -> [PracticeAction] {
        if press.event == .longPressed(.select) { return finishWalk(walk) }
        if press.isSelect { return walk.pausedFor == nil ? pause(walk) : resume(walk) }
        // Back, or a long press of next (a band with two buttons has no back).
        guard press.isBack || press.event == .longPressed(.next) else { return [] }
        state = .endingWalk(walk, selected: .save, secondsLeft: settings.questionSeconds)
        return .tick(showing: .choice(title: "End the walk?", selected: EndChoice.save))
    }

    mutating func endQuestionPressed(_ press: Press, _ walk: Walk, selected: EndChoice) -> [PracticeAction] {
        if press.isNext {
            state = .endingWalk(walk, selected: selected.following, secondsLeft: settings.questionSeconds)
            return .tick(showing: .choice(title: "End the walk?", selected: selected.following))
        }
        if press.goesBack { return continueWalk(walk) }
        guard press.isSelect else { return [] }
        switch selected {
        case .save: return finishWalk(walk)
        case .discard:
            state = .confirmingDiscard(walk, secondsLeft: settings.questionSeconds)
            return .tick(showing: .question(title: "Discard the walk?", detail: "It will not be saved", code: nil, keys: "select: discard  back: keep"))
        case .keepWalking: return continueWalk(walk)
        }
    }

    mutating func discardQuestionPressed(_ press: Press, _ walk: Walk) -> [PracticeAction] {
        if press.isSelect {
            state = .notice(secondsLeft: 5, then: .mindfulWalk)
            return [.metronome(periodSeconds: nil), .discardSession] + .refuse(showing: .notice(title: "Walk discarded", detail: "Nothing was saved"))
        }
        guard press.goesBack else { return [] }
        return continueWalk(walk)
    }

    private mutating func pause(_ walk: Walk) -> [PracticeAction] {
        var walk = walk
        walk.pausedFor = 0
        walk.lastScreen.pausedSeconds = 0
        state = .walking(walk)
        return [.metronome(periodSeconds: nil), .vibrate(.pause), .show(.walking(walk.lastScreen))]
    }

    private mutating func resume(_ walk: Walk) -> [PracticeAction] {
        var walk = walk
        walk.pausedFor = nil
        walk.lastScreen.pausedSeconds = nil
        // The pace starts afresh: a surge before the pause is not held against the walk.
        walk.monitor = PaceMonitor(limitStepsPerMinute: walk.monitor.limitStepsPerMinute, settings: settings)
        state = .walking(walk)
        return metronomeOn(walk) + [.vibrate(.pause), .show(.walking(walk.lastScreen))]
    }

    /// The question is answered "keep walking" (or unanswered): the walk's screen again.
    private mutating func continueWalk(_ walk: Walk) -> [PracticeAction] {
        state = .walking(walk)
        return .tick(showing: .walking(walk.lastScreen))
    }

    // MARK: Seconds

    mutating func walkSecond(_ walk: Walk, _ report: SecondReport) -> [PracticeAction] {
        var walk = walk
        let (actions, ended) = advance(&walk, report)
        if ended { return actions + finishWalk(walk) }
        state = .walking(walk)
        return actions + [.show(.walking(walk.lastScreen))]
    }

    /// A second of a walk with a question on screen (`asking` it again, a second less, while
    /// unanswered): an unanswered question goes away and the walk goes on.
    mutating func walkQuestionSecond(_ walk: Walk, _ report: SecondReport, secondsLeft left: Int,
                                     asking: (Walk, Int) -> State) -> [PracticeAction] {
        var walk = walk
        let (actions, ended) = advance(&walk, report)
        if ended { return actions + finishWalk(walk) }
        if left <= 1 { return actions + continueWalk(walk) }
        state = asking(walk, left - 1)
        return actions
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

    private func metronomeOn(_ walk: Walk) -> [PracticeAction] {
        guard values.metronome else { return [] }
        return [.metronome(periodSeconds: 60 / walk.monitor.limitStepsPerMinute)]
    }

    // MARK: The end

    /// The walk's summary. Its end is its start plus the seconds it ran (counted, monotonic),
    /// whatever the band's date did meanwhile: the duration is always the time walked.
    func summary(of walk: Walk) -> SessionSummary {
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
    var summaryTitle: String { storage == .full ? "Storage full" : "Walk saved" }

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
}
