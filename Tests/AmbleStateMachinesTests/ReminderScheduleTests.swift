import AmbleModel
import AmbleStateMachines
import Testing

struct ReminderScheduleTests {
    /// 2026-11-23 was a Monday: its local midnight at UTC+1.
    let mondayMidnight = 1_795_388_400.0
    let offset = 3600

    func values(time: String = "12:30", days: String = "daily", on: Bool = true) -> BandSettingValues {
        var values = BandSettingValues()
        values.reminders = on
        values.reminderMinutes = BandSetting.minutesOfDay(time)!
        values.reminderDays = Weekdays(parsing: days)!
        values.reminderText = "After lunch I walk mindfully"
        return values
    }

    func schedule(time: String = "12:30", days: String = "daily", on: Bool = true, studies: [StudyReminder] = []) -> ReminderSchedule {
        ReminderSchedule(settings: values(time: time, days: days, on: on), studies: studies)
    }

    @Test func weekdaysAreCountedFromMonday() {
        let monday = ReminderSchedule.localTime(unixSeconds: mondayMidnight + 60, utcOffsetSeconds: offset)
        #expect(monday.weekday == 0 && monday.minute == 1)
        let sunday = ReminderSchedule.localTime(unixSeconds: mondayMidnight - 60, utcOffsetSeconds: offset)
        #expect(sunday.weekday == 6 && sunday.minute == 23 * 60 + 59)
    }

    @Test func itComesOnceADayAtItsTime() {
        var reminders = schedule()
        #expect(reminders.due(unixSeconds: mondayMidnight + 12 * 3600 + 29 * 60, utcOffsetSeconds: offset) == nil)
        #expect(reminders.due(unixSeconds: mondayMidnight + 12 * 3600 + 30 * 60, utcOffsetSeconds: offset)?.text == "After lunch I walk mindfully")
        #expect(reminders.due(unixSeconds: mondayMidnight + 12 * 3600 + 31 * 60, utcOffsetSeconds: offset) == nil, "not twice")
        #expect(reminders.due(unixSeconds: mondayMidnight + 86_400 + 12 * 3600 + 30 * 60, utcOffsetSeconds: offset) != nil, "again the next day")
    }

    @Test func onlyOnTheChosenDays() {
        var reminders = schedule(days: "weekends")
        for day in 0 ..< 7 {
            let due = reminders.due(unixSeconds: mondayMidnight + Double(day) * 86_400 + 13 * 3600, utcOffsetSeconds: offset)
            #expect((due != nil) == (day >= 5), "day \(day)")
        }
    }

    @Test func aSnoozeBringsItBackAfterItsMinutes() {
        var reminders = schedule()
        let at = mondayMidnight + 12.5 * 3600
        _ = reminders.due(unixSeconds: at, utcOffsetSeconds: offset)
        reminders.snooze(ReminderSchedule.Reminder.wearerID, minutes: 15, unixSeconds: at)
        #expect(reminders.due(unixSeconds: at + 14 * 60, utcOffsetSeconds: offset) == nil)
        #expect(reminders.due(unixSeconds: at + 15 * 60, utcOffsetSeconds: offset) != nil)
        #expect(reminders.due(unixSeconds: at + 16 * 60, utcOffsetSeconds: offset) == nil)
    }

    @Test func itsStateSurvivesARestartAndALateStartDoesNotRingHoursLate() {
        var reminders = schedule()
        let at = mondayMidnight + 12.5 * 3600
        _ = reminders.due(unixSeconds: at, utcOffsetSeconds: offset)
        reminders.snooze(ReminderSchedule.Reminder.wearerID, minutes: 60, unixSeconds: at)
        // Power cut; the band starts again with the stored state.
        var restarted = ReminderSchedule(settings: values(), state: reminders.state)
        #expect(restarted.due(unixSeconds: at + 10 * 60, utcOffsetSeconds: offset) == nil, "not again today")
        #expect(restarted.due(unixSeconds: at + 60 * 60, utcOffsetSeconds: offset) != nil, "the snooze holds")
        // A band off from noon to 18:00 does not remind at 18:00 for 12:30.
        var late = schedule()
        #expect(late.due(unixSeconds: mondayMidnight + 18 * 3600, utcOffsetSeconds: offset) == nil)
        #expect(late.due(unixSeconds: mondayMidnight + 86_400 + 12.5 * 3600, utcOffsetSeconds: offset) != nil)
        // Within half an hour it still comes.
        var slightlyLate = schedule()
        #expect(slightlyLate.due(unixSeconds: mondayMidnight + 12.5 * 3600 + 20 * 60, utcOffsetSeconds: offset) != nil)
    }

    @Test func offMeansNever() {
        var reminders = schedule(on: false)
        for minute in stride(from: 0, to: 24 * 60, by: 5) {
            #expect(reminders.due(unixSeconds: mondayMidnight + Double(minute) * 60, utcOffsetSeconds: offset) == nil)
        }
    }

    // MARK: The wearer's reminder and the studies'

    @Test func aStudysReminderComesBesideTheWearersAndEachIsSnoozedAlone() {
        let study = StudyReminder(minutes: 9 * 60, text: "Study: Morning check-in")
        var reminders = schedule(time: "19:30", studies: [study])
        let nine = mondayMidnight + 9 * 3600
        #expect(reminders.due(unixSeconds: nine, utcOffsetSeconds: offset)?.text == "Study: Morning check-in")
        reminders.snooze(ReminderSchedule.Reminder.studyID(study), minutes: 60, unixSeconds: nine)
        #expect(reminders.due(unixSeconds: nine + 3600, utcOffsetSeconds: offset)?.text == "Study: Morning check-in", "its snooze")
        #expect(reminders.due(unixSeconds: mondayMidnight + 19.5 * 3600, utcOffsetSeconds: offset)?.text == "After lunch I walk mindfully",
                "the wearer's own at 19:30, untouched")
        #expect(reminders.due(unixSeconds: mondayMidnight + 19.6 * 3600, utcOffsetSeconds: offset) == nil)
    }

    @Test func aStudyGoneTakesItsStateAndTheWearersKeepsIts() {
        let study = StudyReminder(minutes: 12 * 60 + 30, text: "Study: Lunch walk")
        var reminders = schedule(studies: [study])
        let at = mondayMidnight + 12.5 * 3600
        #expect(reminders.due(unixSeconds: at, utcOffsetSeconds: offset)?.id == ReminderSchedule.Reminder.studyID(study), "ties: the study's id sorts first")
        #expect(reminders.due(unixSeconds: at, utcOffsetSeconds: offset)?.id == ReminderSchedule.Reminder.wearerID, "then the wearer's, the same minute")
        reminders.update(settings: values(), studies: [])
        #expect(reminders.reminders.map(\.id) == [ReminderSchedule.Reminder.wearerID])
        #expect(reminders.state.items.keys.sorted() == [ReminderSchedule.Reminder.wearerID], "the wearer's given day is kept")
        #expect(reminders.due(unixSeconds: at + 60, utcOffsetSeconds: offset) == nil, "not twice today")
    }
}
