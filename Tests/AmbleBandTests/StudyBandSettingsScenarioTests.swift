@testable import AmbleBand
import AmbleBandStore
@testable import AmbleCLI
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync
import Foundation
import Testing

/// The band settings of a study server's arm, kept at joining (StudyServerClientTests checks
/// that joining the real server keeps one arm's), reach the band at the next sync, once.
struct StudyBandSettingsScenarioTests {
    func joinedServer(_ store: CompanionStore, settings: [String: String]) throws {
        let server = StudyServerEnrollment(baseURL: "https://127.0.0.1:8443", fingerprint: String(repeating: "a", count: 64), participantID: "p-1",
                                           studyID: "s-1", consentVersion: "1", consentSHA256: String(repeating: "b", count: 64),
                                           acceptedUnixSeconds: 0, bandSettings: settings, refreshToken: "r", accessToken: "a",
                                           accessExpiresUnixSeconds: 0)
        try store.joinStudyServer(server, studyName: "S", fileText: "name = \"S\"", consentEvent: outboxItem(.consent, body: [1], now: 0))
    }

    /// A sync followed by the arm's settings push: its line.
    func sync(_ run: ScenarioRun, _ store: CompanionStore, key: NoiseKeyPair, band: PairedBand) throws -> String? {
        let address = try listenAddress(run)
        return try LaptopThread { () throws -> String? in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: key, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            _ = try Synchronizer(sink: store, link: link).run()
            return StudyBandSettingsPush.push(store: store, link: link, bandID: band.id, bandName: band.name, now: 100)
        }.wait(ticking: run)
    }

    @Test func theArmsSettingsReachTheBandAtTheNextSyncAndAreNotSentAgain() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let store = try CompanionStore(path: nil)
        let (key, band) = try pairDirectly(run.band.store, store)
        try joinedServer(store, settings: ["metronome": "on", "alert_style": "silent", "reduction_percent": "20"])
        #expect(try sync(run, store, key: key, band: band) == "The study's band settings on Simulated band: alert_style silent, metronome on")
        #expect(try run.band.store.setting(.metronome) == "on" && run.band.store.setting(.alertStyle) == "silent")
        // The wearer turns the metronome off on the band: the next sync leaves it so.
        run.band.apply(.metronome, try run.band.store.set(.metronome, to: "off"))
        #expect(try sync(run, store, key: key, band: band) == nil)
        #expect(try run.band.store.setting(.metronome) == "off")
    }
}

/// The link holds no reference to the band: a pass answers the laptop and returns what the band
/// is to carry out, and nothing of it happens to the band until the band does.
struct LinkEventTests {
    @Test func aLaptopsSettingAndDateComeBackAsEventsTheBandCarriesOut() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let service = try #require(run.band.link)
        let (laptopKey, band) = try pairDirectly(run.band.store, try CompanionStore(path: nil))
        let address = try listenAddress(run)
        let dateBefore = run.band.unixSeconds
        let laptop = LaptopThread { () throws -> [SyncMessage] in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            try link.hello()
            return [try link.request(.setSetting(key: "reduction_percent", value: "25")),
                    try link.request(.setClock(unixSeconds: dateBefore + 7200))]
        }
        // The link alone serves the laptop: the band's loop does not run.
        var events: [LinkEvent] = []
        let deadline = Date().addingTimeInterval(60)
        while laptop.result == nil && Date() < deadline {
            events += service.service(now: run.clock.nowSeconds, band: LinkBandState(unixSeconds: dateBefore, isWearerBusy: false))
            usleep(300)
        }
        let answers = try #require(laptop.result).get()
        guard case .clockSet(let moved) = answers[1] else { Issue.record("\(answers[1])"); return }
        #expect(abs(moved - 7200) < 0.01)
        try #require(events.count == 2)
        #expect(events[0] == .settingChanged(.reductionPercent, value: "25"))
        guard case .dateSet(let eventMoved, let target) = events[1] else { Issue.record("\(events[1])"); return }
        #expect(eventMoved == moved && abs(target - dateBefore - 7200) < 0.01)
        #expect(run.band.unixSeconds == dateBefore, "the band's date moves only when the band carries the event out")
        #expect(run.band.practice.machine.values.reductionPercent != 25)

        run.band.perform(events, now: run.clock.nowSeconds)
        #expect(abs(run.band.unixSeconds - dateBefore - 7200) < 0.01)
        #expect(run.band.practice.machine.values.reductionPercent == 25)
        #expect(run.log.contains("a laptop set the band's date (moved 7200 s)"))
    }
}
