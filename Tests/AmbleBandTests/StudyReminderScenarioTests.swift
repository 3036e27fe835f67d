import AmbleBand
import AmbleBandStore
@testable import AmbleCLI
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync
import Foundation
import Testing

/// The study's reminder reaches a band over the link, after a sync, with `setSetting`.
struct StudyReminderScenarioTests {
    @Test func afterASyncTheBandRemindsOfTheStudysDueQuestionnaire() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let study = try String(contentsOfFile: repositoryPath("docs/study-example.toml"), encoding: .utf8)
        try laptopStore.joinStudy(participantID: "P01", studyName: "Mindful walking, two weeks", fileName: "study-example.toml",
                                  fileText: study, nowUnixSeconds: 0)
        let address = try listenAddress(run)
        func syncAndPush(at now: Double) throws -> String? {
            try LaptopThread { () throws -> String? in
                let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
                defer { link.close() }
                try link.connect(bandPublicKey: band.publicKey)
                _ = try Synchronizer(sink: laptopStore, link: link).run()
                return StudyReminderPush.push(store: laptopStore, link: link, bandName: band.name, now: now, time: .utc)
            }.wait(ticking: run)
        }
        // Day 3 of the study: the evening check-in (remind_at 20:00) is due.
        #expect(try syncAndPush(at: try TimeBound("2026-03-04T09:00:00Z").firstUnixSeconds)
                == "Study reminder on Simulated band: 20:00 daily, \"Study: Evening check-in\"")
        #expect(try run.band.store.setting(.reminders) == "on")
        #expect(try run.band.store.setting(.reminderTime) == "20:00")
        #expect(try run.band.store.setting(.reminderText) == "Study: Evening check-in")
        // Nothing changed: nothing is sent.
        #expect(try syncAndPush(at: try TimeBound("2026-03-05T09:00:00Z").firstUnixSeconds) == nil)
        // After the study the study's reminder is turned off.
        #expect(try syncAndPush(at: try TimeBound("2026-03-20T09:00:00Z").firstUnixSeconds)
                == "Study reminder on Simulated band turned off: no questionnaire asks for one now")
        #expect(try run.band.store.setting(.reminders) == "off")
    }
}
