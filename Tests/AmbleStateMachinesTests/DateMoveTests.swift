import AmbleModel
import AmbleStateMachines
import Testing

/// The band's date may move under a session (a laptop's `amble band time`, the system clock
/// stepped): durations come from the seconds that ran, never from two readings of the date.
struct DateMoveTests {
    enum Ending: CaseIterable { case calibrationByTime, walkByStillness, walkByShutdown, walkByLongPress }

    @Test("A session's end is its start plus the seconds it ran, whatever the date did",
          arguments: Ending.allCases, [-86_400, 3 * 86_400, 125] as [Double])
    func durationsComeFromTheSecondsThatRan(ending: Ending, move: Double) throws {
        var settings = PracticeSettings()
        settings.walkEndsAfterStillSeconds = 30
        let calibrated = Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 0)
        var band = PracticeDriver(settings: settings, calibration: ending == .calibrationByTime ? nil : calibrated)
        if ending == .calibrationByTime {
            band.press(.shortPressed(.select))
        } else {
            band.press(.shortPressed(.next))
            band.press(.shortPressed(.select))
            band.press(.shortPressed(.select))
        }
        band.seconds(3, cadence: 0)
        let start = try #require(band.actions.compactMap { action -> Double? in
            if case .beginSession(_, let start, _) = action { return start } else { return nil }
        }.first)
        band.seconds(20, cadence: 100)
        band.unixSeconds += move
        switch ending {
        case .calibrationByTime: band.seconds(40, cadence: 100)
        case .walkByStillness: band.seconds(30, cadence: 0, stepsPerSecond: 0)
        case .walkByShutdown:
            band.seconds(30, cadence: 100)
            band.actions += band.machine.finish()
        case .walkByLongPress:
            band.seconds(30, cadence: 100)
            band.press(.longPressed(.select))
        }
        let summary = try #require(band.summaries.last)
        let stored = band.recordedSeconds.count
        #expect(stored == (ending == .calibrationByTime ? 60 : 50))
        #expect(summary.startUnixSeconds == start)
        #expect(summary.durationSeconds == Double(stored), "\(ending), date moved \(move) s: \(summary.durationSeconds) s for \(stored) s")
        if ending == .calibrationByTime {
            #expect(band.machine.calibration?.unixSeconds == start + 60, "the calibration is dated at its end, on the clock it started with")
        }
    }

    @Test func aSnoozeLastsItsMinutesWhateverTheDateDoes() {
        var values = BandSettingValues()
        values.reminders = true
        for move in [-86_400.0, 7_200] {
            var schedule = ReminderSchedule(settings: values)
            let now = 1_767_225_600.0
            schedule.snooze(ReminderSchedule.Reminder.wearerID, minutes: 15, unixSeconds: now)
            schedule.dateMoved(bySeconds: move)
            #expect(schedule.due(unixSeconds: now + move + 14 * 60, utcOffsetSeconds: 0) == nil, "moved \(move) s: not due before its 15 minutes")
            #expect(schedule.due(unixSeconds: now + move + 15 * 60, utcOffsetSeconds: 0) != nil, "moved \(move) s: due after them")
        }
    }
}
