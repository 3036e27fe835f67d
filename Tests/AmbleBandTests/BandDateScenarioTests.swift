import AmbleBand
import AmbleBandStore
@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSync
import Foundation
import Testing

/// A laptop with a wrong clock during a walk: it cannot move the band's date a year on nor
/// prune the band's synced sessions; a date it may set moves no duration.
struct BandDateScenarioTests {
    /// A calibration (synced, kept one day), then a walk during which a laptop gives the band
    /// a date 400 days on and one in 2000 (refused, in words), and one 30 hours on (taken).
    @Test func aWrongLaptopClockMovesNoDurationAndPrunesNothing() throws {
        let run = try ScenarioRun(script: steadyWalkScript + "+60 stop\n+2 hold select 1.5\n",
                                  options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        let store = run.band.store
        _ = try walkUnderWay(run, walkSeconds: 10)
        let calibration = try #require(try store.finishedSessions().first)
        try store.markSynced(id: calibration.id, atUnixSeconds: run.band.unixSeconds)
        try store.set(.retentionDays, to: "1")
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(store, laptopStore)
        let address = try listenAddress(run)
        let before = run.band.unixSeconds
        let answers = try LaptopThread { () throws -> [SyncMessage] in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            try link.hello()
            var answers: [SyncMessage] = []
            for date in [before + 400 * 86_400, 946_684_800, before + 30 * 3600] {
                do { answers.append(try link.request(.setClock(unixSeconds: date))) } catch SyncError.failed(_, let code, let message) {
                    answers.append(.failure(code: code, message: message))
                }
            }
            return answers
        }.wait(ticking: run)
        #expect(answers[0] == .failure(code: .badValue, message: "the laptop's clock looks wrong: its date is 400 days after the band's; "
                                       + "the band kept its date (it moves it by at most 36 hours at a time)"))
        #expect(answers[1] == .failure(code: .badValue, message: "the laptop's clock looks wrong: its date is not between 2017 and 2100; the band kept its date"))
        if case .clockSet(let moved) = answers[2] { #expect(abs(moved - 30 * 3600) < 5) } else { Issue.record("30 hours on: \(answers[2])") }

        run.run(seconds: 80)
        let sessions = try store.finishedSessions()
        #expect(sessions.map(\.summary.kind) == [.calibration, .mindfulWalk], "the synced calibration is not pruned on the date just given")
        let walk = try #require(sessions.last)
        let seconds = try #require(try store.session(id: walk.id)).seconds.count
        #expect(seconds > 60)
        #expect(walk.summary.durationSeconds == Double(seconds), "\(walk.summary.durationSeconds) s for \(seconds) s walked")
        #expect(walk.summary.startUnixSeconds < before, "dated on the clock it started with")
        #expect(abs(run.band.unixSeconds - before - 30 * 3600 - 80) < 5, "moved 30 hours, not 400 days")
    }

    @Test func aRefusedDateSaysInWordsThatTheLaptopsClockLooksWrong() {
        let band = 1_767_225_600.0   // 2026-01-01 00:00 UTC
        #expect(BandCommand.TimeCommand.refusal(laptop: band + 400 * 86_400, band: band, bandName: "Left wrist", time: .utc)
                == "this laptop's clock looks wrong: it says 2027-02-05 00:00, 400 days after Left wrist's date (2026-01-01 00:00). "
                + "Left wrist kept its date: it moves it by at most 36 hours at a time. Check this laptop's date, time and time zone, then run amble band time again.")
        #expect(BandCommand.TimeCommand.refusal(laptop: band - 3 * 86_400, band: band, bandName: "Left wrist", time: .utc)
                .hasPrefix("this laptop's clock looks wrong: it says 2025-12-29 00:00, 3 days before Left wrist's date"))
        #expect(BandCommand.TimeCommand.refusal(laptop: 946_684_800, band: band, bandName: "Left wrist", time: .utc)
                == "this laptop's clock looks wrong: it says 2000-01-01 00:00, and Left wrist takes dates from 2017 to 2100 only; it kept its date. "
                + "Check this laptop's date, time and time zone, then run amble band time again.")
    }

    @Test func aNegativeDurationReadsAsOne() {
        // A calibration an older band stored across a move of its date a day back.
        #expect(formatDuration(60 - 86_400 - 1) == "-23:59:01")
        #expect(formatDuration(259_260) == "72:01:00")
        #expect(formatDuration(59.6) == "1:00")
    }

    static let day = 86_400.0, hour = 3600.0, band = 1_767_225_600.0
    /// (the band's date, the laptop's, the verdict).
    static let dates: [(Double, Double, LaptopDate.Verdict)] = [
        (band, band + 35 * hour, .accepted),
        (band, band - 35 * hour, .accepted),
        (band, band + 37 * hour, .tooFar(movedSeconds: 37 * hour)),
        (band, band - 400 * day, .tooFar(movedSeconds: -400 * day)),
        (0, band, .accepted),   // a band whose clock was never set takes any date
        (band, 1_400_000_000, .outOfRange),
        (band, 4_200_000_000, .outOfRange),
    ]

    @Test(arguments: dates)
    func whichDatesTheBandTakes(band: Double, laptop: Double, verdict: LaptopDate.Verdict) {
        #expect(LaptopDate.check(laptopUnixSeconds: laptop, bandUnixSeconds: band) == verdict)
    }
}
