import AmbleModel
import AmbleStateMachines
import Testing

/// Every transition of a mindful walk: pause, resume, end with or without confirmation,
/// discard, the summary, the pace shown, the alert's style and strength, the metronome.
struct WalkPracticeTests {
    let calibrated = Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 0)

    @Test func selectPausesAndResumesAndPausedSecondsNeverCountAgainstTheLimit() {
        var band = PracticeDriver(calibration: calibrated)
        band.startWalk()
        band.seconds(10, cadence: 84)
        band.press(.select)                       // pause
        #expect(band.lastWalkingScreen?.pausedSeconds == 0)
        #expect(band.vibrations.last == "pause")
        band.seconds(20, cadence: 120)            // standing chatting, arms waving: over the limit, paused
        #expect(band.lastWalkingScreen?.pausedSeconds == 20)
        band.press(.select)                       // resume
        #expect(band.lastWalkingScreen?.pausedSeconds == nil)
        band.seconds(10, cadence: 84)
        band.press(.select)
        band.seconds(5, cadence: 0)
        band.press(.select)
        band.seconds(5, cadence: 84)
        band.press(.longPressed(.select))
        let summary = try! #require(band.summaries.last)
        #expect(summary.timeOverLimitSeconds == 0)
        #expect(summary.alerts == 0)
        #expect(!band.vibrations.contains("pace"))
        #expect(summary.pauses == 2)
        #expect(summary.pausedSeconds == 25)
        #expect(summary.walkingSeconds == 25)
        #expect(summary.withinLimitShare == 1)
        let paused = band.recordedSeconds.filter(\.paused)
        #expect(paused.count == 25 && paused.allSatisfy { !$0.overLimit && $0.alerts == 0 })
    }

    @Test func aBandWithoutBackAsksToEndTheWalkOnALongPressOfNext() {
        var band = PracticeDriver(calibration: calibrated)
        band.startWalk()
        band.seconds(10, cadence: 84)
        band.press(.longPressed(.next))
        #expect(band.lastScreen == .choice(title: "End the walk?", options: ["Save", "Discard", "Continue"], selected: 0))
        #expect(band.machine.isRecording)
    }

    @Test func theSummaryShowsTheWalkAsStoredWithTheStepsReleasedAtItsEnd() throws {
        var band = PracticeDriver(calibration: calibrated)
        #expect(band.machine.summaryStored(SessionSummary(kind: .mindfulWalk, startUnixSeconds: 0, endUnixSeconds: 1, parameters: .init(stepLengthMeters: 0.7), steps: 0, distanceMeters: 0, averageHeartRateBPM: nil, alerts: 0, timeOverLimitSeconds: 0, gapSeconds: 0)).isEmpty,
                "nothing changes outside a summary")
        band.startWalk()
        band.seconds(30, cadence: 84)
        band.press(.select)
        band.seconds(10, cadence: 0)   // a pause
        band.press(.select)
        band.press(.longPressed(.select))
        var stored = try #require(band.summaries.last)
        band.press(.next)   // page 2: steps
        guard case .summary(_, let before, 1, _)? = band.lastScreen else { Issue.record("not on page 2: \(String(describing: band.lastScreen))"); return }
        #expect(before.first == "\(stored.steps) steps")
        stored.steps += 14
        let actions = band.machine.summaryStored(stored)
        guard case .show(.summary(_, let after, 1, _))? = actions.last else { Issue.record("not shown again: \(actions)"); return }
        #expect(after.first == "\(stored.steps) steps", "the page on screen stays, with the stored steps")
        #expect(band.machine.summaryStored(stored).isEmpty, "the same figures again: nothing to redraw")
    }

    @Test func resumingStartsThePaceAfreshSoASurgeBeforeThePauseIsForgiven() {
        var band = PracticeDriver(calibration: calibrated)
        band.startWalk()
        band.seconds(2, cadence: 100)             // two seconds over: one short of an alert
        band.press(.select)
        band.seconds(10, cadence: 0)
        band.press(.select)
        band.seconds(2, cadence: 100)
        #expect(!band.vibrations.contains("pace"), "the grace starts again after a pause")
        band.seconds(1, cadence: 100)
        #expect(band.vibrations.last == "pace")
    }

    @Test func backAsksAndEachAnswerDoesWhatItSays() {
        // Continue: the walk goes on, nothing stored.
        var band = PracticeDriver(calibration: calibrated)
        band.startWalk()
        band.seconds(5, cadence: 84)
        band.press(.back)
        #expect(band.lastScreen == .choice(title: "End the walk?", options: ["Save", "Discard", "Continue"], selected: 0))
        band.seconds(3, cadence: 84)              // the walk is recorded while the wearer decides
        band.press(.next, times: 2)
        band.press(.select)
        #expect(band.summaries.isEmpty && band.machine.isRecording)
        #expect(band.recordedSeconds.count == 8)

        // Save.
        band.press(.back)
        band.press(.select)
        #expect(band.summaries.count == 1)
        guard case .summary(let title, _, 0, 3)? = band.lastScreen else { Issue.record("no summary: \(String(describing: band.lastScreen))"); return }
        #expect(title == "Walk saved")

        // Discard needs a second yes; back there keeps the walk.
        var other = PracticeDriver(calibration: calibrated)
        other.startWalk()
        other.seconds(5, cadence: 84)
        other.press(.back)
        other.press(.next)
        other.press(.select)
        guard case .question("Discard the walk?", _, nil, _)? = other.lastScreen else { Issue.record("no confirmation"); return }
        other.press(.back)
        #expect(other.machine.isRecording && other.discards == 0)
        other.press(.back)
        other.press(.next)
        other.press(.select)
        other.press(.select)
        #expect(other.discards == 1)
        #expect(other.summaries.isEmpty)
        #expect(!other.machine.isRecording)
        #expect(other.lastScreen == .notice(title: "Walk discarded", detail: "Nothing was saved"))
    }

    @Test func unansweredQuestionsLetTheWalkGoOn() {
        var band = PracticeDriver(calibration: calibrated)
        band.startWalk()
        band.press(.back)
        band.seconds(PracticeSettings().questionSeconds, cadence: 84)
        #expect(band.lastWalkingScreen != nil, "back to the walk")
        band.press(.back)
        band.press(.next)
        band.press(.select)
        band.seconds(PracticeSettings().questionSeconds, cadence: 84)
        #expect(band.lastWalkingScreen != nil)
        #expect(band.discards == 0 && band.machine.isRecording)
    }

    @Test func aLongPressEndsAndSavesWithoutAQuestion() {
        var band = PracticeDriver(calibration: calibrated)
        band.startWalk()
        band.seconds(17, cadence: 84)
        band.press(.longPressed(.select))
        #expect(band.summaries.count == 1)
        guard case .summary(_, let lines, 0, _)? = band.lastScreen else { Issue.record("no summary"); return }
        #expect(lines[0] == "0:17 walked", "a 17 s walk is not 0 min")
    }

    @Test func theSummaryHasThreePagesAndGoesAwayByPressOrTime() {
        var band = PracticeDriver(calibration: calibrated)
        band.startWalk()
        band.seconds(30, cadence: 84, heartRate: 90, kilocalories: 0.1)
        band.seconds(10, cadence: 100, heartRate: 110, kilocalories: 0.1)
        band.press(.select)
        band.seconds(5, cadence: 0, heartRate: 100)
        band.press(.select)
        band.seconds(20, cadence: 84, heartRate: 95, kilocalories: 0.1)
        band.press(.longPressed(.select))
        let summary = try! #require(band.summaries.last)
        #expect(summary.maximumHeartRateBPM == 110)
        #expect(abs(summary.activeKilocalories! - 6) < 1e-9)
        #expect(summary.walkingSeconds == 60)
        #expect(summary.timeOverLimitSeconds == 10)
        #expect(abs(summary.withinLimitShare! - 50.0 / 60) < 1e-9)
        var pages: [[String]] = []
        for _ in 0 ..< 3 {
            if case .summary(_, let lines, _, _)? = band.lastScreen { pages.append(lines) }
            band.press(.next)
        }
        #expect(pages[0] == ["1:05 walked", "83 % within the limit", "1 alert"])
        #expect(pages[1][0] == "\(summary.steps) steps")
        #expect(pages[1][2] == "6 kcal")
        #expect(pages[2] == ["heart 95 avg, 110 max", "1 pause, 0:05"])
        band.press(.select)
        guard case .menu(_, 1, _)? = band.lastScreen else { Issue.record("select leaves the summary"); return }

        var timed = PracticeDriver(calibration: calibrated)
        timed.startWalk()
        timed.seconds(5, cadence: 84)
        timed.press(.longPressed(.select))
        timed.seconds(PracticeSettings().summarySeconds, cadence: 0)
        guard case .menu? = timed.lastScreen else { Issue.record("the summary goes away by itself"); return }
    }

    @Test func theScreenSaysWhenTheHysteresisKeepsTheWearerOver() {
        var band = PracticeDriver(calibration: calibrated)   // limit 88, hysteresis 2
        band.startWalk()
        band.seconds(3, cadence: 90)
        #expect(band.lastWalkingScreen?.pace == .over)
        band.seconds(1, cadence: 87)
        #expect(band.lastWalkingScreen?.pace == .easing)
        #expect(band.lastWalkingScreen?.paceText == "easing: 87, limit 88")
        band.seconds(1, cadence: 85)
        #expect(band.lastWalkingScreen?.pace == .under)
        #expect(band.lastWalkingScreen?.paceText == "85 / limit 88")
    }

    @Test func alertsFollowTheWearersStyleAndStrengthAndAreStrongerOnAMovingArm() {
        for (style, expected) in [(AlertStyle.firm, 3), (.gentle, 1)] {
            var values = BandSettingValues()
            values.alertStyle = style
            values.alertStrength = .low
            var band = PracticeDriver(values: values, calibration: calibrated)
            band.startWalk()
            band.seconds(3, cadence: 100, motion: 0)
            band.seconds(10, cadence: 100, motion: 0.3)
            let alerts = band.actions.compactMap { if case .vibrate(let p) = $0, p.name == "pace" { return p } else { return nil } }
            try! #require(alerts.count == 2)
            #expect(alerts[0].segments.filter { $0.strength > 0 }.count == expected)
            let still = alerts[0].segments.map(\.strength).max()!, moving = alerts[1].segments.map(\.strength).max()!
            #expect(moving > still * 1.4, "\(style): \(still) at rest, \(moving) on a swinging arm")
        }
        var silent = BandSettingValues()
        silent.alertStyle = .silent
        var band = PracticeDriver(values: silent, calibration: calibrated)
        band.startWalk()
        band.seconds(13, cadence: 100)
        #expect(!band.vibrations.contains("pace"))
        #expect(band.recordedSeconds.reduce(0) { $0 + $1.alerts } == 2, "a silent alert is still an alert: the screen shows it")
    }

    @Test func theMetronomeTicksAtTheLimitWhileWalkingOnly() {
        var values = BandSettingValues()
        values.metronome = true
        var band = PracticeDriver(values: values, calibration: calibrated)
        band.startWalk()
        #expect(band.actions.contains(.metronome(periodSeconds: 60 / 88)))
        band.actions.removeAll()
        band.press(.select)
        #expect(band.actions.contains(.metronome(periodSeconds: nil)), "paused: quiet")
        band.press(.select)
        #expect(band.actions.contains(.metronome(periodSeconds: 60 / 88)))
        band.actions.removeAll()
        band.press(.longPressed(.select))
        #expect(band.actions.first == .metronome(periodSeconds: nil))

        var off = PracticeDriver(calibration: calibrated)
        off.startWalk()
        #expect(!off.actions.contains { if case .metronome(let p) = $0 { return p != nil } else { return false } })
    }

    @Test func aWalkPausedForTooLongEndsByItself() {
        var settings = PracticeSettings()
        settings.longestPauseSeconds = 60
        var band = PracticeDriver(settings: settings, calibration: calibrated)
        band.startWalk()
        band.seconds(10, cadence: 84)
        band.press(.select)
        band.seconds(59, cadence: 0)
        #expect(band.summaries.isEmpty)
        band.seconds(1, cadence: 0)
        #expect(band.summaries.count == 1)
        #expect(band.summaries[0].pausedSeconds == 60)
    }

    @Test func finishingInEveryWalkStateSavesTheWalk() {
        for presses in [[ButtonEvent](), [.shortPressed(.select)], [.shortPressed(.back)], [.shortPressed(.back), .shortPressed(.next), .shortPressed(.select)]] {
            var band = PracticeDriver(calibration: calibrated)
            band.startWalk()
            band.seconds(5, cadence: 84)
            for press in presses { band.press(press) }
            band.actions += band.machine.finish()
            #expect(band.summaries.count == 1, "\(presses)")
            #expect(band.discards == 0)
            #expect(!band.machine.isRecording)
        }
    }
}

/// Calibration: cancel at any moment, restart, its length, its result.
struct CalibrationPracticeTests {
    @Test func backDuringTheCountdownReturnsToTheMenuWithNothingStarted() {
        var band = PracticeDriver()
        band.press(.select)
        band.seconds(1, cadence: 0)
        band.press(.back)
        band.seconds(5, cadence: 100)
        #expect(!band.actions.contains { if case .beginSession = $0 { return true } else { return false } })
        guard case .menu(_, 0, _)? = band.lastScreen else { Issue.record("not at the menu"); return }
    }

    @Test func cancellingAtAnyMomentDiscardsAndSaysSo() {
        for second in [0, 1, 15, 59] {
            for press in [ButtonEvent.shortPressed(.back), .longPressed(.select), .longPressed(.back)] {
                var band = PracticeDriver()
                band.press(.select)
                band.seconds(3, cadence: 0)
                band.seconds(second, cadence: 110)
                band.press(press)
                #expect(band.discards == 1, "\(press) at \(second) s")
                #expect(band.summaries.isEmpty)
                #expect(band.machine.calibration == nil)
                #expect(band.vibrations.last == "refuse")
                #expect(band.lastScreen == .notice(title: "Calibration discarded", detail: "Nothing was saved; your last calibration stays"))
                // And it can start again at once.
                band.press(.select)
                band.press(.select)
                band.seconds(3, cadence: 0)
                #expect(band.machine.isRecording)
            }
        }
    }

    @Test func aCancelledCalibrationKeepsThePreviousOne() {
        let previous = Calibration(cadenceStepsPerMinute: 104, stepLengthMeters: nil, unixSeconds: 0)
        var band = PracticeDriver(calibration: previous)
        band.press(.select)
        band.seconds(3 + 30, cadence: 120)
        band.press(.back)
        #expect(band.machine.calibration == previous)
    }

    @Test func itsLengthIsTheWearersSettingAndTheResultGivesSpeed() {
        var values = BandSettingValues()
        values.calibrationSeconds = 90
        var band = PracticeDriver(values: values)
        band.press(.select)
        band.seconds(3, cadence: 0)
        band.seconds(89, cadence: 112)
        #expect(band.machine.isRecording)
        band.seconds(1, cadence: 112)
        #expect(!band.machine.isRecording)
        #expect(band.recordedSeconds.count == 90)
        // 112 steps/min at 0.70 m: 4.7 km/h.
        #expect(band.lastScreen == .notice(title: "Calibrated", detail: "normal pace 112 steps/min, 4.7 km/h (step 70 cm)"))
        #expect(band.summaries.last?.speedMetersPerSecond.map { abs($0 - 112.0 / 60 * 0.7) < 1e-9 } == true)
    }

    @Test func afterASuccessTheMenuOffersTheWalkAfterAFailureCalibrationAgain() {
        var band = PracticeDriver()
        band.press(.select)
        band.seconds(3, cadence: 0)
        band.seconds(60, cadence: 112)
        band.press(.next)   // any press leaves the notice
        #expect(band.lastScreen == .menu(entries: [.init(title: "Calibrate"), .init(title: "Mindful Walk"), .init(title: "Settings")], selected: 1))

        var failed = PracticeDriver()
        failed.press(.select)
        failed.seconds(3, cadence: 0)
        failed.seconds(60, cadence: 0)
        if case .notice(let title, _)? = failed.lastScreen { #expect(title == "Calibration failed") } else { Issue.record("no notice") }
        failed.seconds(8, cadence: 0)   // the notice times out
        #expect(failed.lastScreen == .menu(entries: [.init(title: "Calibrate"), .init(title: "Mindful Walk", enabled: false), .init(title: "Settings")], selected: 0))
    }
}

/// The Settings menu: moving, editing every kind of value, cancelling, saving.
struct SettingsPracticeTests {
    func openSettings() -> PracticeDriver {
        var band = PracticeDriver()
        band.press(.next, times: 2)
        band.press(.select)
        return band
    }

    @Test func everySettingOfTheMenuCanBeChangedAndSaved() {
        for (index, entry) in SettingsMenu.entries.enumerated() {
            guard case .setting(let setting) = entry else { continue }
            var band = openSettings()
            band.press(.next, times: index)
            band.press(.select)
            guard case .choice(let title, let options, let selected)? = band.lastScreen else { Issue.record("\(setting): no choice"); continue }
            #expect(title == SettingsMenu.title(setting))
            #expect(options.count >= 2)
            band.press(.next)
            band.press(.select)
            let saved = band.actions.compactMap { if case .saveSetting(let s, let v) = $0, s == setting { return v } else { return nil } }
            try! #require(saved.count == 1, "\(setting)")
            #expect((try? setting.validate(saved[0])) == saved[0], "\(setting): \(saved[0]) is a valid stored value")
            #expect(band.machine.values.text(setting) == saved[0])
            let values = SettingsMenu.options(setting, current: BandSettingValues().text(setting))
            #expect(saved[0] == values[(selected + 1) % values.count])
        }
    }

    @Test func backLeavesAValueUnchanged() {
        var band = openSettings()
        band.press(.select)             // Reduction
        band.press(.next, times: 3)
        band.press(.back)
        #expect(!band.actions.contains { if case .saveSetting = $0 { return true } else { return false } })
        #expect(band.machine.values.reductionPercent == 20)
        band.press(.back)
        guard case .menu(_, 2, _)? = band.lastScreen else { Issue.record("back to the menu at Settings"); return }
    }

    @Test func aLongPressOfNextJumpsTenValues() {
        var band = openSettings()
        let height = SettingsMenu.entries.firstIndex(of: .setting(.heightCentimeters))!
        band.press(.next, times: height)
        band.press(.select)
        band.press(.longPressed(.next))
        band.press(.select)
        #expect(band.actions.contains(.saveSetting(.heightCentimeters, "190")))
    }

    @Test func theNewReductionListIsOfferedAtTheNextWalk() {
        var values = BandSettingValues()
        values.reductionChoices = [10, 20, 30]
        values.reductionPercent = 30
        var band = PracticeDriver(values: values, calibration: Calibration(cadenceStepsPerMinute: 100, stepLengthMeters: nil, unixSeconds: 0))
        band.press(.next)
        band.press(.select)
        #expect(band.lastScreen == .choosingReduction(percent: 30, limitStepsPerMinute: 70))
        band.press(.next)
        #expect(band.lastScreen == .choosingReduction(percent: 10, limitStepsPerMinute: 90))
    }

    @Test func aLaptopsChangeIsUsedAtOnce() {
        var band = PracticeDriver(calibration: Calibration(cadenceStepsPerMinute: 100, stepLengthMeters: nil, unixSeconds: 0))
        band.machine.apply(.reductionPercent, "40")
        band.press(.next)
        band.press(.select)
        #expect(band.lastScreen == .choosingReduction(percent: 40, limitStepsPerMinute: 60))
    }
}

/// The practice's side of reminders.
struct ReminderPracticeTests {
    let calibrated = Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 0)

    @Test func aReminderAtTheMenuOffersWalkSnoozeAndDismiss() {
        for (choice, expected) in [(0, PracticeAction.dismissReminder), (1, .snoozeReminder(minutes: 15)), (2, .snoozeReminder(minutes: 60)), (3, .dismissReminder)] {
            var band = PracticeDriver(calibration: calibrated)
            band.actions += band.machine.handle(.reminderDue(text: "After lunch I walk mindfully"))
            #expect(band.lastScreen == .choice(title: "After lunch I walk mindfully", options: ["Walk now", "Snooze 15 min", "Snooze 60 min", "Dismiss"], selected: 0))
            band.press(.next, times: choice)
            band.press(.select)
            #expect(band.actions.contains(expected))
            if choice == 0 {
                guard case .choosingReduction? = band.lastScreen else { Issue.record("walk now goes to the reduction"); return }
            }
        }
    }

    @Test func backSnoozesAndSilenceMissesIt() {
        var band = PracticeDriver()
        band.actions += band.machine.handle(.reminderDue(text: "Walk"))
        band.press(.back)
        #expect(band.actions.last == .show(band.lastScreen!) && band.actions.contains(.snoozeReminder(minutes: 15)))
        var silent = PracticeDriver()
        silent.actions += silent.machine.handle(.reminderDue(text: "Walk"))
        silent.seconds(PracticeSettings().questionSeconds * 4, cadence: 0)
        #expect(silent.actions.contains(.dismissReminder))
        guard case .menu? = silent.lastScreen else { Issue.record("back at the menu"); return }
    }

    @Test func aReminderDuringAWalkOrCalibrationDoesNotInterrupt() {
        var walking = PracticeDriver(calibration: calibrated)
        walking.startWalk()
        walking.seconds(5, cadence: 84)
        let before = walking.lastScreen
        walking.actions += walking.machine.handle(.reminderDue(text: "Walk"))
        #expect(walking.actions.last == .dismissReminder, "already walking")
        #expect(walking.lastScreen == before)
        var calibrating = PracticeDriver()
        calibrating.press(.select)
        calibrating.seconds(5, cadence: 100)
        calibrating.actions += calibrating.machine.handle(.reminderDue(text: "Walk"))
        #expect(calibrating.actions.last == .snoozeReminder(minutes: 15))
    }
}

/// Cancel and restart in every state: each state reached from the menu, then back (cancel) or
/// finish (the band stops, or the power goes).
struct EveryStatePracticeTests {
    let calibrated = Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 0)

    /// A way into each state, and what a stop in it leaves: a saved walk, a discarded
    /// calibration, or nothing.
    nonisolated(unsafe) static let states: [(name: String, enter: (inout PracticeDriver) -> Void, onStop: String)] = [
        ("menu", { _ in }, "nothing"),
        ("reduction choice", { $0.press(.next); $0.press(.select) }, "nothing"),
        ("walk countdown", { $0.press(.next); $0.press(.select); $0.press(.select); $0.seconds(1, cadence: 0) }, "nothing"),
        ("calibration countdown", { $0.press(.select); $0.seconds(1, cadence: 0) }, "nothing"),
        ("calibrating", { $0.press(.select); $0.seconds(3 + 10, cadence: 100) }, "discarded"),
        ("walking", { $0.startWalk(); $0.seconds(5, cadence: 84) }, "saved"),
        ("paused", { $0.startWalk(); $0.seconds(5, cadence: 84); $0.press(.select) }, "saved"),
        ("end question", { $0.startWalk(); $0.seconds(5, cadence: 84); $0.press(.back) }, "saved"),
        ("discard question", { $0.startWalk(); $0.seconds(5, cadence: 84); $0.press(.back); $0.press(.next); $0.press(.select) }, "saved"),
        ("summary", { $0.startWalk(); $0.seconds(5, cadence: 84); $0.press(.longPressed(.select)) }, "nothing"),
        ("settings", { $0.press(.next); $0.press(.next); $0.press(.select) }, "nothing"),
        ("editing a setting", { $0.press(.next); $0.press(.next); $0.press(.select); $0.press(.select) }, "nothing"),
        ("reminder", { $0.actions += $0.machine.handle(.reminderDue(text: "walk")) }, "nothing"),
        ("notice", { $0.press(.select); $0.seconds(3 + 5, cadence: 100); $0.press(.back) }, "nothing"),
    ]

    @Test(arguments: 0 ..< states.count)
    func backLeadsToTheMenuWithoutStoringAWalkUnasked(_ index: Int) {
        let state = Self.states[index]
        var band = PracticeDriver(calibration: calibrated)
        state.enter(&band)
        let summariesBefore = band.summaries.count
        for _ in 0 ..< 3 where !band.machine.isIdle || band.lastScreen.map({ if case .menu = $0 { return false } else { return true } }) ?? true {
            band.press(ButtonRole.back)
        }
        // Still in a walk's question: Continue leaves it walking; nothing was saved by back alone.
        #expect(band.summaries.count == summariesBefore, "\(state.name): back alone saved a walk")
        if band.machine.isRecording {
            #expect(["walking", "paused", "end question", "discard question"].contains(state.name), "\(state.name): still recording after back")
        } else if case .menu? = band.lastScreen {
        } else {
            Issue.record("\(state.name): back three times did not reach the menu: \(String(describing: band.lastScreen))")
        }
    }

    @Test(arguments: 0 ..< states.count)
    func aStopSavesAWalkDiscardsACalibrationAndARestartShowsTheMenu(_ index: Int) {
        let state = Self.states[index]
        var band = PracticeDriver(calibration: calibrated)
        state.enter(&band)
        let summariesBefore = band.summaries.count, discardsBefore = band.discards
        let stop = band.machine.finish()
        band.actions += stop
        let saved = band.summaries.count - summariesBefore, discarded = band.discards - discardsBefore
        switch state.onStop {
        case "saved": #expect(saved == 1 && discarded == 0, "\(state.name)")
        case "discarded": #expect(saved == 0 && discarded == 1, "\(state.name)")
        default: #expect(stop.isEmpty, "\(state.name): \(stop)")
        }
        #expect(!band.machine.isRecording)
        // The restart: a new machine from what the store keeps.
        var restarted = PracticeMachine(values: band.machine.values, calibration: band.machine.calibration)
        let first = restarted.start()
        #expect(first.contains { if case .show(.menu) = $0 { return true } else { return false } }, "\(state.name): \(first)")
    }
}
