import AmbleBand
@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleStateMachines
import AmbleSync
import Testing

/// After a sync the laptop sends the band the day's progress (`goal_progress`), which the band
/// keeps and shows over its menu; without goals nothing is sent.
struct GoalsBandTests {
    @Test func afterASyncTheBandShowsTheDaysProgressOverItsMenu() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let address = try listenAddress(run)
        func syncThenGoals() throws {
            let now = run.band.unixSeconds
            try LaptopThread { () throws -> Void in
                let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
                defer { link.close() }
                try link.connect(bandPublicKey: band.publicKey)
                _ = try Synchronizer(sink: laptopStore, link: link).run()
                GoalsAfterSync.run(store: laptopStore, link: link, bandName: band.name, quiet: true, nowUnixSeconds: now, time: .utc)
            }.wait(ticking: run)
        }

        try syncThenGoals()
        #expect(try laptopStore.sessions().count == 1)
        #expect(try run.band.store.setting(.goalProgress) == "", "no goals: nothing sent")
        guard case .menu(_, _, nil) = run.band.screenShown else { Issue.record("\(run.band.screenShown)"); return }

        try laptopStore.setGoals(GoalTargets(stepsPerDay: 1000, walksPerWeek: 3), nowUnixSeconds: run.band.unixSeconds)
        try syncThenGoals()
        let line = try #require(try GoalsAfterSync.bandLine(store: laptopStore, nowUnixSeconds: run.band.unixSeconds, time: .utc))
        #expect(line.hasPrefix("Today ") && line.hasSuffix(" walks 0/3"))
        #expect(try run.band.store.setting(.goalProgress) == line)
        guard case .menu(_, _, let status) = run.band.screenShown else { Issue.record("\(run.band.screenShown)"); return }
        #expect(status == line)
    }
}
