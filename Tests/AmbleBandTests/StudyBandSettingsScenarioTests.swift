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
