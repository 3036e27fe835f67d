@testable import AmbleBand
@testable import AmbleCLI
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync
import Foundation
import Testing

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
