@testable import AmbleBand
import AmbleBandStore
@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleStateMachines
import AmbleSync
import Foundation
import Testing

/// The study's reminder reaches a band over the link after a sync, as the laptop's own
/// `study_reminder`, beside the wearer's reminder, which it never touches.
struct StudyReminderScenarioTests {
    /// A laptop paired with the band of `run` that joined the example study as `participant`.
    struct StudyLaptop {
        let store: CompanionStore
        let key: NoiseKeyPair
        let band: PairedBand

        init(_ run: ScenarioRun, participant: String) throws {
            store = try CompanionStore(path: nil)
            (key, band) = try pairDirectly(run.band.store, store)
            let study = try String(contentsOfFile: repositoryPath("docs/study-example.toml"), encoding: .utf8)
            try store.joinStudy(participantID: participant, studyName: "Mindful walking, two weeks", fileName: "study-example.toml",
                                fileText: study, nowUnixSeconds: 0)
        }

        /// A sync, then the study's reminder push, at the laptop's time `now`: its line.
        func sync(_ run: ScenarioRun, at now: String) throws -> String? {
            let address = try listenAddress(run)
            let (store, key, band) = (self.store, self.key, self.band)
            let unix = try TimeBound(now).firstUnixSeconds
            return try LaptopThread { () throws -> String? in
                let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: key, clock: SystemClock())
                defer { link.close() }
                try link.connect(bandPublicKey: band.publicKey)
                _ = try Synchronizer(sink: store, link: link).run()
                return StudyReminderPush.push(store: store, link: link, bandName: band.name, now: unix, time: .utc)
            }.wait(ticking: run)
        }
    }

    /// The wearer's own reminder: 19:30, "Walk after dinner", set on the band before the study.
    func wearersReminder(_ band: Band) throws {
        for (setting, value) in [(BandSetting.reminderTime, "19:30"), (.reminderText, "Walk after dinner"), (.reminders, "on")] {
            band.apply(setting, try band.store.set(setting, to: value))
        }
    }

    func wearersReminderIsUntouched(_ store: BandStore) throws {
        #expect(try store.setting(.reminders) == "on")
        #expect(try store.setting(.reminderTime) == "19:30")
        #expect(try store.setting(.reminderText) == "Walk after dinner")
    }

    @Test func theStudysReminderComesBesideTheWearersAndGoesWithTheStudy() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        try wearersReminder(run.band)
        let laptop = try StudyLaptop(run, participant: "P01")
        // Day 3 of the study: the evening check-in (remind_at 20:00) is due.
        #expect(try laptop.sync(run, at: "2026-03-04T09:00:00Z")
                == "Study reminder on Simulated band: 20:00 daily, \"Study: Evening check-in\" (beside the wearer's own reminder)")
        try wearersReminderIsUntouched(run.band.store)
        #expect(run.band.practice.reminders.reminders.map(\.text) == ["Walk after dinner", "Study: Evening check-in"])
        // Nothing changed: nothing is sent.
        #expect(try laptop.sync(run, at: "2026-03-05T09:00:00Z") == nil)
        // After the study only the study's reminder goes; the wearer's is still there.
        #expect(try laptop.sync(run, at: "2026-03-20T09:00:00Z")
                == "Study reminder on Simulated band turned off: no questionnaire asks for one now")
        try wearersReminderIsUntouched(run.band.store)
        #expect(run.band.practice.reminders.reminders.map(\.id) == [ReminderSchedule.Reminder.wearerID])
    }

    @Test func twoLaptopsThatDisagreeDoNotMakeTheReminderFlip() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        try wearersReminder(run.band)
        let asking = try StudyLaptop(run, participant: "P01")
        // The other laptop joined the same study, but it is over by its clock: it asks for nothing.
        let done = try StudyLaptop(run, participant: "P01")
        var seen: [[String]] = []
        for round in 0 ..< 3 {
            _ = try asking.sync(run, at: "2026-03-04T09:0\(round):00Z")
            seen.append(run.band.practice.reminders.reminders.map(\.text))
            _ = try done.sync(run, at: "2026-03-20T09:0\(round):00Z")
            seen.append(run.band.practice.reminders.reminders.map(\.text))
        }
        #expect(Set(seen.map { $0.joined(separator: " | ") }) == ["Walk after dinner | Study: Evening check-in"],
                "every sync leaves the same reminders: \(seen)")
        try wearersReminderIsUntouched(run.band.store)
        // Forgotten laptops take their reminders with them; the wearer's stays.
        try run.band.store.forgetLaptops()
        run.band.studyRemindersChanged()
        #expect(run.band.practice.reminders.reminders.map(\.text) == ["Walk after dinner"])
    }

    @Test func leavingTheStudyTurnsItsReminderOffAtTheNextSync() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        try wearersReminder(run.band)
        let laptop = try StudyLaptop(run, participant: "P01")
        #expect(try laptop.sync(run, at: "2026-03-04T09:00:00Z") != nil)
        #expect(run.band.practice.reminders.reminders.map(\.text) == ["Walk after dinner", "Study: Evening check-in"])
        let quiet = Console(isInteractive: false, ask: { _ in nil }, say: { _ in })
        _ = try StudyCommand.LeaveCommand.leave(store: laptop.store, deleteAnswers: false, yes: false,
                                                now: try TimeBound("2026-03-04T10:00:00Z").firstUnixSeconds, time: .utc, console: quiet)
        // Still within the study, the evening check-in due: the study's reminder goes all the same.
        #expect(try laptop.sync(run, at: "2026-03-04T11:00:00Z") == "Study reminder on Simulated band turned off: you left the study")
        #expect(run.band.practice.reminders.reminders.map(\.text) == ["Walk after dinner"])
        try wearersReminderIsUntouched(run.band.store)
        #expect(try laptop.sync(run, at: "2026-03-05T11:00:00Z") == nil, "and stays off")
    }
}
