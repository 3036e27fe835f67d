@testable import AmbleBand
import AmbleBandStore
import AmbleModel
import AmbleStateMachines
import Foundation
import Testing

/// The wearer's actions of the practice, on the simulated board end to end: presses through
/// the emulated buttons, seconds from the emulated chips, what the store keeps.
struct BandPracticeScenarioTests {
    /// A 30 s calibration at 110 steps/min; its result shows until `+2 press next` leaves it
    /// for the menu with Mindful Walk selected, then the walk starts at 20 % less.
    static let calibrateThenWalk = """
    0:01   press select
    +1     walk 110
    +36    stop
    +2     press next
    +1     press select
    +1     press select
    +1     walk 86

    """

    @Test func aWalkPausedAndEndedWithALongPressIsStoredWithItsPauseAndSummed() throws {
        let run = try ScenarioRun(script: Self.calibrateThenWalk + """
        +20    stop
        +1     press select
        +10    press select
        +1     walk 86
        +15    stop
        +1     hold select 1.5
        +2     end
        """)
        run.run(seconds: 100)
        let sessions = try run.band.store.finishedSessions()
        try #require(sessions.map(\.summary.kind) == [.calibration, .mindfulWalk])
        let walk = sessions[1].summary
        #expect(walk.pauses == 1)
        #expect((9 ... 11).contains(walk.pausedSeconds), "paused \(walk.pausedSeconds) s for a 10 s pause")
        let record = try #require(try run.band.store.session(id: sessions[1].id))
        let paused = record.seconds.filter(\.paused)
        #expect(paused.count == walk.pausedSeconds)
        #expect(paused.allSatisfy { !$0.overLimit && $0.alerts == 0 }, "a pause never counts against the limit")
        #expect(walk.walkingSeconds.map { $0 >= 15 && $0 <= record.seconds.count - walk.pausedSeconds } == true, "walking \(String(describing: walk.walkingSeconds)) s")
        #expect(walk.withinLimitShare != nil)
        // The band shows the summary of the walk as stored, with the steps the counter released
        // at its end.
        guard case .summary(let title, let lines, 0, 3) = run.band.screenShown else {
            Issue.record("no summary on screen: \(run.band.screenShown)")
            return
        }
        #expect(title == "Walk saved")
        #expect(lines.contains { $0.hasSuffix("% within the limit") })
        #expect(PracticeMachine.summaryPages(walk)[0] == run.band.screenShown)
    }

    @Test func aWalkDiscardedAfterTwoQuestionsLeavesNothingStored() throws {
        let run = try ScenarioRun(script: Self.calibrateThenWalk + """
        +20    press back
        +1     press next
        +1     press select
        +1     press select
        +2     end
        """)
        run.run(seconds: 68)   // the notice shows for 5 s from 66 s
        #expect(run.band.screenShown == .notice(title: "Walk discarded", detail: "Nothing was saved"))
        #expect(try run.band.store.finishedSessions().map(\.summary.kind) == [.calibration])
        #expect(try run.band.store.sessionIDs().count == 1, "no walk left open or half-stored")
    }

    @Test func aCalibrationCancelledWithBackIsDiscardedAndSaysSo() throws {
        let run = try ScenarioRun(script: "0:01 press select\n+1 walk 110\n+12 press back\n+1 stop\n")
        run.run(seconds: 15)   // the notice shows for 5 s from 13 s
        #expect(run.band.screenShown == .notice(title: "Calibration discarded", detail: "Nothing was saved; your last calibration stays"))
        #expect(try run.band.store.sessionIDs().isEmpty)
        #expect(try run.band.store.calibrations().isEmpty)
    }

    @Test func afterAPowerCutACalibrationUnderWayIsDiscardedAndTheBandSaysSo() throws {
        let dataDirectory: String
        do {
            let first = try ScenarioRun(script: "0:01 press select\n+1 walk 110\n")
            first.run(seconds: 15)
            #expect(try first.band.store.sessionIDs().count == 1, "the calibration is being recorded")
            dataDirectory = first.directory + "/band"
            // The power goes: no shutDown(), the process is gone.
        }
        let second = try ScenarioRun(script: "", options: { $0.dataDirectory = dataDirectory })
        second.run(seconds: 1)
        #expect(second.band.screenShown == .notice(title: "Calibration discarded", detail: "The band lost power; calibrate again"))
        #expect(try second.band.store.sessionIDs().isEmpty)
        #expect(second.log.contains("discarded"))
    }

    @Test func afterAPowerCutAWalkUnderWayIsClosedAndKept() throws {
        let dataDirectory: String
        do {
            let first = try ScenarioRun(script: Self.calibrateThenWalk)
            first.run(seconds: 70)
            dataDirectory = first.directory + "/band"
        }
        let second = try ScenarioRun(script: "", options: { $0.dataDirectory = dataDirectory })
        second.run(seconds: 1)
        #expect(second.band.screenShown == .notice(title: "Walk saved", detail: "The band lost power; your walk was kept"))
        let sessions = try second.band.store.finishedSessions()
        #expect(sessions.map(\.summary.kind) == [.calibration, .mindfulWalk])
        // About 25 s walked at 86 steps/min, the last 10 s still in the counter when the power went
        // (the steps of the countdown before it are not the walk's).
        #expect((sessions.last?.summary.steps ?? 0) > 15)
    }

    /// Settings > Heart rate (the seventh entry) > off, from the menu.
    static let heartRateOff = "0:01 press next\n+0.3 press next\n+0.3 press select\n"
        + String(repeating: "+0.3 press next\n", count: 6) + "+0.3 press select\n+0.3 press next\n+0.3 press select\n"

    @Test func heartRateConsentWithdrawnOnTheBandShutsThePPGDownAndStoresNoHeartRate() throws {
        // Then back to the menu, and a calibration: its seconds carry no heart rate.
        let run = try ScenarioRun(script: Self.heartRateOff + "+1 press back\n+0.5 press next\n+0.5 press select\n+1 walk 110\n+36 stop\n")
        run.run(seconds: 5)
        #expect(try run.band.store.setting(.consentHeartRate) == "off")
        let bus = try #require(run.band.simulation?.bus)
        let mode = try bus.writeThenRead(address: 0x57, bytes: [0x09], readCount: 1)
        #expect(mode[0] & 0x80 != 0, "the MAX30102 is in shutdown (MODE_CONFIG \(mode[0]))")
        #expect(run.band.heartRateSensorState == .off)
        run.run(seconds: 45)
        let sessions = try run.band.store.finishedSessions()
        try #require(sessions.count == 1)
        let record = try #require(try run.band.store.session(id: sessions[0].id))
        #expect(record.seconds.count >= 29)
        #expect(record.seconds.allSatisfy { $0.heartRateBPM == nil && $0.heartRateConfidence == nil && !$0.heartRateGap },
                "nothing of the heart rate is stored, not even its gaps")
        #expect(sessions[0].summary.averageHeartRateBPM == nil && sessions[0].summary.rmssdMilliseconds == nil)
        // Consent given again (from a laptop): the sensor is set up afresh and measures.
        try run.band.store.set(.consentHeartRate, to: "on")
        run.band.settingChanged(.consentHeartRate, to: "on")
        run.run(seconds: 3)
        let again = try bus.writeThenRead(address: 0x57, bytes: [0x09], readCount: 1)
        #expect(again[0] & 0x80 == 0)
        #expect(run.band.heartRateSensorState == .ok)
    }

    @Test func aReminderComesAtItsTimeIsSnoozedAndKeepsItsScheduleAcrossARestart() throws {
        // The manual clock starts at 2026-01-01 00:16:40 UTC (a Thursday); the band's zone is UTC.
        var dataDirectory = ""
        var state = ReminderSchedule.State()
        do {
        let run = try ScenarioRun(script: "")
        run.band.utcOffsetSeconds = { _ in 0 }
        for (setting, value) in [(BandSetting.reminders, "on"), (.reminderTime, "00:18"), (.reminderDays, "weekdays"), (.reminderText, "after lunch I walk mindfully")] {
            try run.band.store.set(setting, to: value)
            run.band.settingChanged(setting, to: value)   // as the link does for `amble band set`
        }
        run.run(seconds: 60)
        guard case .menu = run.band.screenShown else { Issue.record("a reminder before its time: \(run.band.screenShown)"); return }
        run.run(seconds: 30)
        #expect(run.band.screenShown == .choice(title: "after lunch I walk mindfully", options: ["Walk now", "Snooze 15 min", "Snooze 60 min", "Dismiss"], selected: 0))
        let motor = try #require(run.band.simulation?.motorLine)
        #expect(motor.history.contains { $0.active }, "the reminder buzzed")
        // Snooze 15 min: next, select.
        let simulation = try #require(run.band.simulation)
        _ = simulation.press(role: .next, atSeconds: run.clock.nowSeconds + 0.1, holdSeconds: 0.08)
        _ = simulation.press(role: .select, atSeconds: run.clock.nowSeconds + 0.5, holdSeconds: 0.08)
        run.run(seconds: 1)
        guard case .menu = run.band.screenShown else { Issue.record("still showing: \(run.band.screenShown)"); return }
        let reminders = run.band.practice.reminders
        state = reminders.state
        let snoozedUntil = try #require(state.items[ReminderSchedule.Reminder.wearerID]?.snoozedUntilUnixSeconds)
        #expect(abs(snoozedUntil - (run.band.unixSeconds + 900)) < 3)
        dataDirectory = run.directory + "/band"
        run.band.shutDown()
        }

        // Restarted (the clock starts at 00:16:40 again): today's reminder was given, so it does
        // not come again at 00:18; the snooze is remembered.
        let second = try ScenarioRun(script: "", options: { $0.dataDirectory = dataDirectory })
        second.band.utcOffsetSeconds = { _ in 0 }
        #expect(second.band.practice.reminders.state == state)
        second.run(seconds: 120)
        guard case .menu = second.band.screenShown else { Issue.record("the reminder came twice: \(second.band.screenShown)"); return }
    }

    @Test func aReminderScheduleKeptByAnEarlierBuildIsTheWearers() throws {
        // Earlier builds kept the one reminder's state as "lastDay snoozedUntil".
        let directory = NSTemporaryDirectory() + "amble-legacy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let store = try BandStore(path: directory + "/band.sqlite")
            try store.set(.reminders, to: "on")
            try store.setInternalValue("reminder_state", "20454 1767226600.5")
        }
        let run = try ScenarioRun(script: "", options: { $0.dataDirectory = directory })
        #expect(run.band.practice.reminders.state.items == [ReminderSchedule.Reminder.wearerID: .init(lastDay: 20454, snoozedUntilUnixSeconds: 1767226600.5)])
    }
}

struct StatusLineTests {
    @Test func theLineFitsTheTerminalAndSaysWhenTheBandIsOffTheWrist() {
        let walking = Screen.walking(.init(elapsedSeconds: 17, cadenceStepsPerMinute: 81, limitStepsPerMinute: 82, steps: 20, heartRateBPM: 71, pace: .easing))
        let wide = StatusLine.render(screen: walking, bandSeconds: 75, motorRunning: false, accelerometerOK: true, heartRate: .offWrist)
        #expect(wide.contains("ppg OFF WRIST"))
        #expect(wide.contains("easing: 81, limit 82"))
        #expect(wide.contains("WALK 0:17"))
        for width in [20, 40, 80] {
            let cut = StatusLine.render(screen: walking, bandSeconds: 75, motorRunning: false, accelerometerOK: true, heartRate: .offWrist, width: width)
            #expect(cut.count == min(wide.count, width - 1), "one column free, so the terminal does not wrap")
            #expect(cut.hasSuffix("…"))
        }
        #expect(StatusLine.render(screen: walking, bandSeconds: 75, motorRunning: false, accelerometerOK: true, heartRate: .off, width: 500) == wide.replacingOccurrences(of: "ppg OFF WRIST", with: "ppg off"))
    }

    @Test func pausedWalksChoicesAndSummariesHaveTheirLines() {
        let paused = Screen.walking(.init(elapsedSeconds: 65, cadenceStepsPerMinute: 0, limitStepsPerMinute: 88, steps: 90, heartRateBPM: nil, pace: .under, pausedSeconds: 12))
        #expect(StatusLine.text(paused) == "WALK 1:05  PAUSED 0:12  steps 90  (select: resume)")
        #expect(StatusLine.text(.choice(title: "End the walk?", options: ["Save", "Discard", "Continue"], selected: 1)) == "END THE WALK?  Save  > Discard <  Continue")
        #expect(StatusLine.key(paused) != StatusLine.key(.walking(.init(elapsedSeconds: 66, cadenceStepsPerMinute: 90, limitStepsPerMinute: 88, steps: 91, heartRateBPM: nil, pace: .over))))
    }
}
