import AmbleModel
import AmbleStateMachines
import Testing

/// Drives the practice the way the band does: a manual clock, one report per second.
struct PracticeDriver {
    var machine: PracticeMachine
    var unixSeconds = 1_767_225_600.0
    var actions: [PracticeAction] = []

    init(settings: PracticeSettings = PracticeSettings(), values: BandSettingValues = BandSettingValues(), calibration: Calibration? = nil) {
        machine = PracticeMachine(settings: settings, values: values, calibration: calibration)
        actions = machine.start()
    }

    mutating func press(_ event: ButtonEvent) {
        actions += machine.handle(.button(event))
    }

    mutating func press(_ role: ButtonRole, times: Int = 1) {
        for _ in 0 ..< times { press(.shortPressed(role)) }
    }

    mutating func seconds(_ count: Int, cadence: Double, stepsPerSecond: Int? = nil, heartRate: Double? = nil, kilocalories: Double? = nil, motion: Double = 0) {
        for _ in 0..<count {
            unixSeconds += 1
            let steps = stepsPerSecond ?? Int((cadence / 60).rounded())
            actions += machine.handle(.secondElapsed(SecondReport(unixSeconds: unixSeconds, steps: steps, cadenceStepsPerMinute: cadence, heartRateBPM: heartRate, heartRateConfidence: heartRate == nil ? nil : 0.9,
                                                                  activeKilocalories: kilocalories, wristMotionG: motion)))
        }
    }

    /// Menu: Mindful Walk, the remembered reduction, the countdown: a walk under way.
    mutating func startWalk() {
        press(.next)
        press(.select)
        press(.select)
        seconds(3, cadence: 0)
    }

    var vibrations: [String] {
        actions.compactMap { if case .vibrate(let p) = $0 { return p.name } else { return nil } }
    }

    var summaries: [SessionSummary] {
        actions.compactMap { if case .endSession(let s) = $0 { return s } else { return nil } }
    }

    var recordedSeconds: [SessionSecond] {
        actions.compactMap { if case .recordSecond(let r, _, _) = $0 { return r } else { return nil } }
    }

    var discards: Int { actions.filter { $0 == .discardSession }.count }

    var lastScreen: Screen? {
        actions.reversed().compactMap { if case .show(let s) = $0 { return s } else { return nil } }.first
    }

    var lastWalkingScreen: Screen.Walking? {
        if case .walking(let w)? = lastScreen { return w }
        return nil
    }
}

struct PracticeMachineTests {
    @Test func theLinkEntriesOfSettingsHandTheirRequestToTheLinkPrompt() {
        var band = PracticeDriver()
        band.press(.next, times: 2)
        band.press(.select)       // Settings
        let pair = SettingsMenu.entries.firstIndex(of: .pairLaptop)!
        band.press(.next, times: pair)
        band.press(.select)
        #expect(band.actions.last == .link(.openPairing))
        // The practice waits at the menu for the prompt to finish.
        #expect(band.machine.isIdle)
        band.press(.select)       // Settings again
        band.press(.next, times: pair + 1)
        band.press(.select)
        #expect(band.actions.last == .link(.confirmForgetLaptops))
    }

    let calibrated = Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 0)

    @Test func walkIsRefusedUntilCalibrated() {
        var band = PracticeDriver()
        guard case .menu(let entries, 0, _)? = band.lastScreen else { Issue.record("no menu"); return }
        #expect(entries.map(\.title) == ["Calibrate", "Mindful Walk", "Settings"])
        #expect(entries.map(\.enabled) == [true, false, true])
        band.press(.shortPressed(.next))
        band.press(.shortPressed(.select))
        #expect(band.vibrations.last == "refuse")
        #expect(band.lastScreen == .notice(title: "Calibrate first", detail: "Mindful Walk needs your normal pace"))
        band.seconds(10, cadence: 0)
        #expect(!band.actions.contains { if case .beginSession = $0 { return true } else { return false } })
    }

    @Test func calibrationMeasuresTheMedianWalkingCadence() {
        var band = PracticeDriver()
        band.press(.shortPressed(.select))
        band.seconds(3, cadence: 0)  // countdown
        #expect(band.actions.contains(.beginSession(.calibration, startUnixSeconds: band.unixSeconds, parameters: SessionParameters(stepLengthMeters: 0.70))))
        band.seconds(10, cadence: 90)  // settling in: left out
        band.seconds(25, cadence: 112)
        band.seconds(25, cadence: 108)
        #expect(band.actions.contains(.saveCalibration(Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: band.unixSeconds))))
        let summary = try! #require(band.summaries.last)
        #expect(summary.kind == .calibration)
        #expect(summary.measuredCadenceStepsPerMinute == 110)
        #expect(band.recordedSeconds.count == 60)
        #expect(band.machine.calibration?.cadenceStepsPerMinute == 110)
        #expect(band.vibrations.last == "double")
    }

    @Test func calibrationWithoutWalkingFails() {
        var band = PracticeDriver()
        band.press(.shortPressed(.select))
        band.seconds(3 + 60, cadence: 0)
        #expect(band.machine.calibration == nil)
        #expect(band.vibrations.last == "refuse")
        #expect(band.summaries.last?.measuredCadenceStepsPerMinute == nil)
        guard case .notice("Calibration failed", _)? = band.lastScreen else { Issue.record("no failure notice"); return }
    }

    @Test func distanceCalibrationSetsTheStepLength() {
        var settings = PracticeSettings()
        settings.calibrationDistanceMeters = 100
        var band = PracticeDriver(settings: settings)
        band.press(.shortPressed(.select))
        band.seconds(3, cadence: 0)
        band.seconds(70, cadence: 120, stepsPerSecond: 2)  // 140 steps over 100 m
        band.press(.shortPressed(.select))
        let stepLength = try! #require(band.machine.calibration?.stepLengthMeters)
        #expect(abs(stepLength - 100.0 / 140) < 1e-9)
        #expect(abs(band.summaries.last!.distanceMeters - 100) < 1e-6)
    }

    @Test func mindfulWalkAlertsWhenFasterThanTheReducedPace() {
        var band = PracticeDriver(calibration: calibrated)
        band.press(.shortPressed(.next))
        band.press(.shortPressed(.select))
        // Reduction choices start at the remembered 20 %: limit 88 steps/min.
        #expect(band.lastScreen == .choosingReduction(percent: 20, limitStepsPerMinute: 88))
        band.press(.shortPressed(.select))
        #expect(!band.actions.contains { if case .saveSetting = $0 { return true } else { return false } }, "the remembered reduction is not saved again")
        band.seconds(3, cadence: 0)
        band.seconds(30, cadence: 84, heartRate: 90)
        band.seconds(13, cadence: 96, heartRate: 96)   // too fast: alert at its 3rd second, again 10 s later
        band.seconds(20, cadence: 82, heartRate: 90)
        band.press(.longPressed(.select))
        let summary = try! #require(band.summaries.last)
        #expect(summary.kind == .mindfulWalk)
        #expect(summary.alerts == 2)
        #expect(summary.timeOverLimitSeconds == 13)
        #expect(summary.parameters.limitCadenceStepsPerMinute == 88)
        #expect(summary.parameters.reductionPercent == 20)
        #expect(band.vibrations.filter { $0 == "pace" }.count == 2)
        #expect(band.recordedSeconds.count == 63)
        #expect(summary.steps == band.recordedSeconds.reduce(0) { $0 + $1.steps })
        #expect(abs(summary.averageHeartRateBPM! - (30 * 90 + 13 * 96 + 20 * 90) / 63.0) < 1e-9)
    }

    @Test func choosingAnotherReductionChangesTheLimit() {
        var band = PracticeDriver(calibration: calibrated)
        band.press(.shortPressed(.next))
        band.press(.shortPressed(.select))
        band.press(.shortPressed(.next))  // 25 %
        #expect(band.lastScreen == .choosingReduction(percent: 25, limitStepsPerMinute: 82.5))
        band.press(.shortPressed(.select))
        band.seconds(3, cadence: 0)
        band.seconds(10, cadence: 85)
        band.press(.longPressed(.select))
        #expect(band.summaries.last?.alerts == 1)
        #expect(band.machine.reductionPercent == 25)
        #expect(band.actions.contains(.saveSetting(.reductionPercent, "25")))
    }

    @Test func backLeavesTheReductionChooserWithoutStarting() {
        var band = PracticeDriver(calibration: calibrated)
        band.press(.shortPressed(.next))
        band.press(.shortPressed(.select))
        band.press(.longPressed(.select))
        band.seconds(10, cadence: 100)
        #expect(band.summaries.isEmpty)
        #expect(band.recordedSeconds.isEmpty)
        guard case .menu(_, 1, _)? = band.lastScreen else { Issue.record("not back at the menu"); return }
    }

    @Test func aForgottenWalkEndsByItself() {
        var settings = PracticeSettings()
        settings.walkEndsAfterStillSeconds = 120
        var band = PracticeDriver(settings: settings, calibration: calibrated)
        band.press(.shortPressed(.next))
        band.press(.shortPressed(.select))
        band.press(.shortPressed(.select))
        band.seconds(3, cadence: 0)
        band.seconds(60, cadence: 84)
        band.seconds(119, cadence: 0, stepsPerSecond: 0)
        #expect(band.summaries.isEmpty)
        band.seconds(1, cadence: 0, stepsPerSecond: 0)
        #expect(band.summaries.count == 1)
        #expect(band.recordedSeconds.count == 180)
        #expect(!band.machine.isRecording)
        #expect(band.actions.contains(.metronome(periodSeconds: nil)))
    }

    @Test func aDistanceCalibrationNotEndedByAPressEndsByItself() {
        var settings = PracticeSettings()
        settings.calibrationDistanceMeters = 100
        settings.longestCalibrationSeconds = 90
        var band = PracticeDriver(settings: settings)
        band.press(.shortPressed(.select))
        band.seconds(3, cadence: 0)
        band.seconds(90, cadence: 100)
        #expect(band.summaries.count == 1)
        #expect(!band.machine.isRecording)
    }

    @Test func aCountdownStartsItsOwnSeconds() {
        var band = PracticeDriver()
        band.press(.shortPressed(.select))
        #expect(band.actions.contains(.restartSeconds))
    }

    @Test func shutdownMidWalkStillEndsTheSession() {
        var band = PracticeDriver(calibration: calibrated)
        band.press(.shortPressed(.next))
        band.press(.shortPressed(.select))
        band.press(.shortPressed(.select))
        band.seconds(3 + 20, cadence: 80)
        #expect(band.machine.isRecording)
        band.actions += band.machine.finish()
        #expect(band.summaries.count == 1)
        #expect(!band.machine.isRecording)
    }

    @Test func shutdownMidCalibrationDiscardsIt() {
        var band = PracticeDriver()
        band.press(.select)
        band.seconds(3 + 20, cadence: 100)
        band.actions += band.machine.finish()
        #expect(band.discards == 1)
        #expect(band.summaries.isEmpty)
        #expect(band.machine.calibration == nil)
    }
}
