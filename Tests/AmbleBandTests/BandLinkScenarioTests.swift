import AmbleBand
import AmbleBandStore
@testable import AmbleCLI
import AmbleCompanionStore
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleStateMachines
import AmbleSync
import Foundation
import Synchronization
import Testing

/// Runs the laptop's side in a thread of its own while the test thread ticks the band.
final class LaptopThread<Value: Sendable>: @unchecked Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)

    init(_ work: @escaping @Sendable () throws -> Value) {
        Thread { [self] in
            let result = Result { try work() }
            outcome.withLock { $0 = result }
        }.start()
    }

    var result: Result<Value, any Error>? { outcome.withLock { $0 } }

    /// Ticks `run`'s band until the laptop is done (at most `realSeconds`); returns its result.
    func wait(ticking run: ScenarioRun, realSeconds: Double = 60, each: (Band) -> Void = { _ in }) throws -> Value {
        let deadline = Date().addingTimeInterval(realSeconds)
        while result == nil && Date() < deadline {
            run.band.run(advancing: run.clock, forBandSeconds: 0.01)
            each(run.band)
            usleep(300)
        }
        return try #require(result).get()
    }
}

/// The band's TCP address, from its log.
func listenAddress(_ run: ScenarioRun) throws -> HostPort {
    let line = try #require(run.log.all.first { $0.contains("serving sessions on") })
    let word = try #require(line.split(separator: " ").first { $0.contains(":") && $0.first?.isNumber == true })
    return try #require(HostPort(parsing: String(word)))
}

/// Pairs the band's store and a laptop's store directly (what `amble pair` ends with).
func pairDirectly(_ band: BandStore, _ laptop: CompanionStore) throws -> (NoiseKeyPair, PairedBand) {
    let bandKey = try NoiseKeyPair(privateKey: try band.staticPrivateKey { NoiseKeyPair.generate().privateKey })
    let laptopKey = try NoiseKeyPair(privateKey: try laptop.laptopPrivateKey { NoiseKeyPair.generate().privateKey })
    let identity = try band.identity(defaultName: "Simulated band")
    try band.addPairedLaptop(PairedLaptop(publicKey: laptopKey.publicKey, name: "test laptop", pairedUnixSeconds: 0))
    try laptop.pairBand(id: identity.id, name: identity.name, publicKey: bandKey.publicKey, address: nil, nowUnixSeconds: 0)
    return (laptopKey, try #require(try laptop.band(matching: identity.id)))
}

/// A finished 30 s calibration then a menu: the script most link tests start with.
let calibrationScript = "0:01 press select\n+2 walk 100\n+40 stop\n"

/// From the menu after a calibration (Mindful Walk selected): Settings, down its list to
/// Pair laptop, select.
let pairLaptopFromTheMenuScript = "+10 press next\n+0.5 press select\n"
    + String(repeating: "+0.3 press next\n", count: 11) + "+0.5 press select\n"

struct BandLinkScenarioTests {
    @Test func pairingFromTheMenuThenSyncOverASerialLine() throws {
        let pty = try PseudoTerminalPair.open()
        // Calibrate, then Settings > Pair laptop, and the wearer will answer yes.
        let run = try ScenarioRun(script: calibrationScript + pairLaptopFromTheMenuScript + "+0 answer yes\n",
                                  options: { $0.serialPath = pty.subordinatePath })
        run.run(seconds: 60)
        guard case .question(let title, _, _, _) = run.band.screenShown else {
            Issue.record("not in pairing mode: \(run.band.screenShown)")
            return
        }
        #expect(title == "Pair laptop")
        let laptopStore = try CompanionStore(path: nil)
        let laptopKey = try laptopKeyPair(laptopStore)
        nonisolated(unsafe) let controller = pty.controller
        let laptopCode = Mutex<String?>(nil)
        let pairing = LaptopThread { () throws -> PairedBandKey in
            let link = CompanionLink(stream: controller, laptopKeyPair: laptopKey, clock: SystemClock())
            let paired = try link.pair(laptopName: "test laptop", confirm: { offer in
                laptopCode.withLock { $0 = offer.codes.comparisonDigits }
                return true
            })
            link.close(keepingStream: true)
            return paired
        }
        var bandCode: String?
        let paired: PairedBandKey
        do {
            paired = try pairing.wait(ticking: run) { band in
                if case .question(_, _, let code?, _) = band.screenShown { bandCode = code }
            }
        } catch {
            print(run.log.all.suffix(30).joined(separator: "\n"))
            throw error
        }
        #expect(bandCode != nil && bandCode == laptopCode.withLock { $0 }, "band and laptop showed the same code")
        #expect(try run.band.store.pairedLaptops().map(\.publicKey) == [laptopKey.publicKey])
        try laptopStore.pairBand(id: paired.bandID, name: paired.bandName, publicKey: paired.bandPublicKey, address: pty.subordinatePath, nowUnixSeconds: 0)

        // Now a sync over the same line, with the stored keys.
        let result = try LaptopThread { () throws -> Synchronizer.Result in
            let link = CompanionLink(stream: controller, laptopKeyPair: laptopKey, clock: SystemClock())
            try link.connect(bandPublicKey: paired.bandPublicKey)
            return try Synchronizer(sink: laptopStore, link: link).run()
        }.wait(ticking: run)
        #expect(result.pulled.map(\.summary.kind) == [.calibration])
        let stored = try laptopStore.sessions()
        let original = try #require(try run.band.store.session(id: 1))
        #expect(try laptopStore.session(id: stored[0].id)?.1 == SessionCoding.quantized(original).seconds)
        #expect(try run.band.store.finishedSessions().allSatisfy { $0.syncedUnixSeconds != nil }, "acknowledged after the laptop kept it")
    }

    @Test func aPairedLaptopSyncsOverTCPAndNeverTwice() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let address = try listenAddress(run)
        func sync() throws -> Synchronizer.Result {
            try LaptopThread { () throws -> Synchronizer.Result in
                let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
                defer { link.close() }
                try link.connect(bandPublicKey: band.publicKey)
                return try Synchronizer(sink: laptopStore, link: link).run()
            }.wait(ticking: run)
        }
        #expect(try sync().pulled.count == 1)
        #expect(try sync().pulled.isEmpty)
        #expect(try laptopStore.sessions().count == 1)
    }

    @Test func aWalkUnderWayIsNamedBySyncAndListedUntilItEnds() throws {
        // Calibrate, then a mindful walk that is still going when the laptop syncs.
        let script = "0:01 press select\n+3 walk 112\n+30 stop\n+4 press next\n+1 press select\n+1 press select\n+1 walk 86\n"
        let run = try ScenarioRun(script: script, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 90)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let address = try listenAddress(run)
        let result = try LaptopThread { () throws -> Synchronizer.Result in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            return try Synchronizer(sink: laptopStore, link: link).run()
        }.wait(ticking: run)
        #expect(result.pulled.map(\.summary.kind) == [.calibration])
        let recording = try #require(result.recording?.first)
        #expect(result.recording?.count == 1)
        #expect(recording.kind == SessionKind.mindfulWalk.rawValue)
        #expect(recording.recordedSeconds > 10, "\(recording.recordedSeconds) s recorded")
        #expect(try laptopStore.bandRecordings().map(\.bandSessionID) == [recording.id])
        #expect(SyncCommand.summary(result, seconds: 1).contains("still being recorded: mindful-walk since"))
    }

    @Test func afterAResetTheNextSyncPullsThenAsksTheWearerToWipeTheBand() throws {
        for yes in [true, false] {
            let run = try ScenarioRun(script: calibrationScript + "+0 answer \(yes ? "yes" : "no")\n",
                                      options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
            run.run(seconds: 50)
            let laptopStore = try CompanionStore(path: nil)
            let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
            #expect(try ResetCommand.reset(yesReally: true, store: laptopStore, storePath: "s", console: Console(isInteractive: false, ask: { _ in nil }, say: { _ in })) == 0)
            #expect(try laptopStore.bandWipeRequested(bandID: band.id) != nil)
            let address = try listenAddress(run)
            let outcome = try LaptopThread { () throws -> SyncCommand.WipeOutcome? in
                let command = try #require(try AmbleCommand.parseAsRoot(["sync", "--wearer-wait", "60"]) as? SyncCommand)
                let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
                defer { link.close() }
                try link.connect(bandPublicKey: band.publicKey)
                _ = try Synchronizer(sink: laptopStore, link: link).run()
                return try command.wipeAfterReset(link: link, band: band, store: laptopStore)
            }.wait(ticking: run)
            #expect(outcome == (yes ? .done : .declined))
            #expect(try laptopStore.sessions().map(\.summary.kind) == [.calibration], "the band's session came first")
            #expect(try run.band.store.finishedSessions().isEmpty == yes)
            #expect(try laptopStore.pairedBands().isEmpty == yes, "a wiped band forgot the laptop, and the laptop the band")
            #expect(try laptopStore.bandWipeRequested(bandID: band.id) == nil, "done or declined: not asked again")
        }
    }

    @Test func anUnpairedLaptopIsRefusedAndSeesNothing() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let bandKey = try NoiseKeyPair(privateKey: try run.band.store.staticPrivateKey { NoiseKeyPair.generate().privateKey })
        let address = try listenAddress(run)
        let outcome = LaptopThread { () throws -> Bool in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: .generate(), clock: SystemClock())
            do {
                try link.connect(bandPublicKey: bandKey.publicKey)
                return false
            } catch SyncError.refused(_, let refusal) {
                return refusal.code == .notPaired
            }
        }
        #expect(try outcome.wait(ticking: run))
    }

    @Test func theLaptopSetsTheBandsSettingsAndClock() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let address = try listenAddress(run)
        let dateBefore = run.band.unixSeconds
        let answers = try LaptopThread { () throws -> [SyncMessage] in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            try link.hello()
            var answers = [try link.request(.setSetting(key: "reduction_percent", value: "25"))]
            do { _ = try link.request(.setSetting(key: "reduction_percent", value: "23")) } catch SyncError.failed(_, let code, let message) {
                answers.append(.failure(code: code, message: message))
            }
            answers.append(try link.request(.setClock(unixSeconds: dateBefore + 7200)))
            answers.append(try link.request(.getSettings))
            return answers
        }.wait(ticking: run)
        #expect(answers[0] == .settings([SyncMessage.SettingValue(key: "reduction_percent", value: "25")]))
        guard case .failure(.badValue, let message) = answers[1] else { Issue.record("\(answers[1])"); return }
        #expect(message.contains("10, 15, 20, 25, 30, 35 or 40"))
        guard case .clockSet(let moved) = answers[2] else { Issue.record("\(answers[2])"); return }
        #expect(abs(moved - 7200) < 5)
        #expect(abs(run.band.unixSeconds - dateBefore - 7200) < 10)
        #expect(try run.band.store.setting(.reductionPercent) == "25")
        #expect(try run.band.store.clockOffsetSeconds() > 7190, "kept across restarts")
        guard case .settings(let all) = answers[3] else { Issue.record("\(answers[3])"); return }
        #expect(all.map(\.key) == BandSetting.allCases.map(\.rawValue) + LaptopSetting.allCases.map(\.rawValue), "the wearer's settings, then the laptop's own")
    }

    @Test func deleteAllWaitsForTheWearer() throws {
        for yes in [false, true] {
            let run = try ScenarioRun(script: calibrationScript + "+0 answer \(yes ? "yes" : "no")\n",
                                      options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
            run.run(seconds: 50)
            let laptopStore = try CompanionStore(path: nil)
            let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
            let address = try listenAddress(run)
            let final = try LaptopThread { () throws -> SyncMessage in
                let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
                defer { link.close() }
                try link.connect(bandPublicKey: band.publicKey)
                try link.hello()
                var state = try link.request(.deleteAll(.request))
                while state == .deleteAllState(.awaitingWearer) {
                    usleep(20_000)
                    state = try link.request(.deleteAll(.status))
                }
                return state
            }.wait(ticking: run)
            #expect(final == .deleteAllState(yes ? .done : .declined))
            #expect(try run.band.store.finishedSessions().isEmpty == yes)
            #expect(try run.band.store.pairedLaptops().isEmpty == yes)
        }
    }

    @Test func idleAndSilentPeersCannotKeepAPairedLaptopOut() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 50)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let address = try listenAddress(run)
        // Ten sockets that connect and say nothing, more than every slot.
        var silent: [TCPConnection] = []
        for _ in 0 ..< 10 {
            silent.append(try TCPConnection.connect(to: address))
            run.band.run(advancing: run.clock, forBandSeconds: 0.02)
        }
        defer { silent.forEach { $0.close() } }
        let pulled = try LaptopThread { () throws -> Int in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            return try Synchronizer(sink: laptopStore, link: link).run().pulled.count
        }.wait(ticking: run)
        #expect(pulled == 1)
        // The oldest silent ones were told "busy".
        var busy = 0
        for socket in silent {
            if let bytes = try socket.read(maxCount: 4096, timeoutSeconds: 0), !bytes.isEmpty {
                var decoder = FrameDecoder()
                for case .frame(FrameKind.refusal.rawValue, let payload) in decoder.feed(bytes) where Refusal(payload: payload).code == .busy { busy += 1 }
            }
        }
        #expect(busy >= 6)
    }

    /// What a laptop's retry saw: pauses taken, and the band it reached or the error.
    struct BusyRetry: Sendable {
        var pauses: [Double]
        var reached: String?
        var error: String?
        var refusedBusy: Bool
    }

    /// A band past its calibration, paired with a fresh laptop store, and that laptop's
    /// connections holding some of its TCP slots (the band serves 8), each past its hello.
    final class HeldBand: @unchecked Sendable {
        let address: HostPort
        let laptopKey: NoiseKeyPair
        let band: PairedBand
        let laptopStore: CompanionStore
        /// The band's log (debug lines included).
        let bandLog: LogRecorder
        private var holders: [CompanionLink] = []

        init(address: HostPort, laptopKey: NoiseKeyPair, band: PairedBand, laptopStore: CompanionStore, bandLog: LogRecorder) {
            self.address = address
            self.laptopKey = laptopKey
            self.band = band
            self.laptopStore = laptopStore
            self.bandLog = bandLog
        }

        func hold(_ count: Int) throws {
            for _ in 0 ..< count {
                let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
                try link.connect(bandPublicKey: band.publicKey)
                try link.hello()
                holders.append(link)
            }
        }

        /// One held connection says goodbye, freeing its slot.
        func hangUpOne() { holders.popLast()?.close() }

        func hangUpAll() { while !holders.isEmpty { hangUpOne() } }
    }

    /// Holds `held` slots of a band, then runs `body` in the laptop's thread while the test's
    /// thread ticks the band; the slots still held are freed after.
    func withHeldSlots<Value: Sendable>(_ held: Int, _ body: @escaping @Sendable (HeldBand) throws -> Value) throws -> Value {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 45)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let slots = HeldBand(address: try listenAddress(run), laptopKey: laptopKey, band: band, laptopStore: laptopStore, bandLog: run.log)
        return try LaptopThread { () throws -> Value in
            defer { slots.hangUpAll() }
            try slots.hold(held)
            return try body(slots)
        }.wait(ticking: run)
    }

    /// Holds `held` slots, then connects once more with `connectToPairedBand`; after
    /// `freeAfterPauses` pauses one of the held ones hangs up.
    func connectToBand(holding held: Int = 8, freeAfterPauses: Int? = nil, wrongBandKey: Bool = false) throws -> BusyRetry {
        try withHeldSlots(held) { slots in
            let bandKey = wrongBandKey ? NoiseKeyPair.generate().publicKey : slots.band.publicKey
            var pauses: [Double] = []
            do {
                let link = try CompanionLink.connectToPairedBand(
                    open: { try TCPConnection.connect(to: slots.address) }, laptopKeyPair: slots.laptopKey, bandPublicKey: bandKey,
                    clock: SystemClock(), timeoutSeconds: 5, pauses: [0.05, 0.05, 0.05]) { seconds in
                        pauses.append(seconds)
                        if pauses.count == freeAfterPauses { slots.hangUpOne() }
                        usleep(useconds_t(seconds * 1e6))
                    }
                defer { link.close() }
                return BusyRetry(pauses: pauses, reached: try link.hello().bandName, error: nil, refusedBusy: false)
            } catch let error as SyncError {
                guard case .refused(_, let refusal) = error else {
                    return BusyRetry(pauses: pauses, reached: nil, error: error.description, refusedBusy: false)
                }
                return BusyRetry(pauses: pauses, reached: nil, error: error.description, refusedBusy: refusal.code == .busy)
            }
        }
    }

    @Test func aLaptopToldBusyTriesAgainAndGetsInOnceASlotFrees() throws {
        let retry = try connectToBand(freeAfterPauses: 2)
        #expect(retry.reached == "Simulated band", "\(retry.error ?? "")")
        #expect(retry.pauses.count == 2, "busy twice (every slot held), then in")
        #expect(retry.pauses.allSatisfy { (0.05 ... 0.075).contains($0) }, "each pause jittered up by at most half: \(String(describing: retry.pauses))")
    }

    @Test func aBandBusyAfterEveryPauseIsReportedAsBusy() throws {
        let retry = try connectToBand()
        #expect(retry.reached == nil)
        #expect(retry.refusedBusy, "\(retry.error ?? "")")
        #expect(retry.pauses.count == 3, "tried once and after each of the three pauses")
    }

    @Test func ambleWaitsWhileEverySlotIsHeldThenConnects() throws {
        // The command's own path (PairedBandOptions.connect, its pauses on the system clock):
        // every slot is held by paired laptops; one hangs up once the band has refused the
        // command's connection (whenever that is on a busy machine).
        let waited = try withHeldSlots(8) { slots in
            Thread {
                let giveUp = Date().addingTimeInterval(60)
                while !slots.bandLog.contains("connections are in use") && Date() < giveUp { usleep(2_000) }
                slots.hangUpOne()
            }.start()
            let options = try PairedBandOptions.parse(["--tcp", "\(slots.address.host):\(slots.address.port)"])
            let started = Date()
            let (link, _) = try options.connect(store: slots.laptopStore)
            defer { link.close() }
            return Date().timeIntervalSince(started)
        }
        #expect(waited >= 0.2, "connected only after at least the first pause")
    }

    @Test func onlyBusyIsTriedAgain() throws {
        // A slot is free, but the key is not the band's: the handshake fails, and no pause.
        let retry = try connectToBand(holding: 7, wrongBandKey: true)
        #expect(retry.reached == nil)
        #expect(!retry.refusedBusy)
        #expect(retry.pauses.isEmpty, "\(retry.error ?? "")")
    }

    @Test func syncedSessionsPastTheirRetentionArePrunedUnsyncedOnesNever() throws {
        // A calibration, then a second (failed) one standing still: two finished sessions.
        let run = try ScenarioRun(script: calibrationScript + "+8 press next\n+0.3 press next\n+0.3 press select\n",
                                  options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 100)
        let store = run.band.store
        let sessions = try store.finishedSessions()
        try #require(sessions.count == 2)
        try store.markSynced(id: sessions[0].id, atUnixSeconds: run.band.unixSeconds)
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(store, laptopStore)
        let address = try listenAddress(run)
        // Three days pass (the system clock says so), and the laptop keeps synced sessions one day.
        run.clock.moveDate(bySeconds: 3 * 86_400)
        _ = try LaptopThread { () throws -> Bool in
            let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
            defer { link.close() }
            try link.connect(bandPublicKey: band.publicKey)
            try link.hello()
            _ = try link.request(.setSetting(key: "retention_days", value: "1"))
            return true
        }.wait(ticking: run)
        run.run(seconds: 0.1)
        #expect(try store.finishedSessions().map(\.id) == [sessions[1].id], "the synced one went, the unsynced one stays")
    }
}
