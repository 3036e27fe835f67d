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
import AmbleSQLite
import Testing

/// Finished walks of `lengths` seconds in a band store made at `dataDirectory`, dated the day
/// before the test band's date, without sync data (as an older build or crash recovery leaves
/// them), their cadence and heart rate varying as a real walk's do; the store is closed again.
/// Returns their ids.
func storeWalks(in dataDirectory: String, lengths: [Int]) throws -> [Int64] {
    try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let store = try BandStore(path: dataDirectory + "/band.sqlite")
    let start = ManualClock().unixOriginSeconds - 86_400
    let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
    var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ range: Int) -> Double {
        random ^= random << 13; random ^= random >> 7; random ^= random << 17
        return Double(random % UInt64(range))
    }
    return try lengths.map { length in
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: start, parameters: parameters)
        let seconds = (0 ..< length).map {
            SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: 95 + next(100) / 10, heartRateBPM: 75 + next(200) / 10, heartRateConfidence: 0.9)
        }
        try store.appendSeconds(sessionID: id, seconds)
        try store.endSession(sessionID: id, summary: SessionTally(seconds).summary(
            kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(length), parameters: parameters))
        return id
    }
}

/// Zeroes the middle leaf page of the seconds' table in the closed band store at `path`, as a
/// damaged card would: with a long walk between two short ones, a page of the long one's rows.
func damageMiddleSecondsPage(_ path: String) throws {
    let (page, size) = try DatabaseQueue(path: path).read { db in
        let leaves = try Int.fetchAll(db, sql: "SELECT pageno FROM dbstat WHERE name = 'session_second' AND pagetype = 'leaf' ORDER BY path")
        return (leaves[leaves.count / 2], try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
    }
    let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try file.seek(toOffset: UInt64((page - 1) * size))
    try file.write(contentsOf: Data(count: size))
    try file.close()
}

/// One sync of `laptop` (paired here) with the run's band over TCP, the band ticking meanwhile.
func syncOnce(_ run: ScenarioRun, _ laptop: CompanionStore) throws -> Synchronizer.Result {
    let (laptopKey, band) = try pairDirectly(run.band.store, laptop)
    let address = try listenAddress(run)
    return try LaptopThread { () throws -> Synchronizer.Result in
        let link = CompanionLink(stream: try TCPConnection.connect(to: address), laptopKeyPair: laptopKey, clock: SystemClock())
        defer { link.close() }
        try link.connect(bandPublicKey: band.publicKey)
        return try Synchronizer(sink: laptop, link: link).run()
    }.wait(ticking: run)
}

func menuStatus(_ run: ScenarioRun) -> String? {
    guard case .menu(_, _, let status) = run.band.screenShown else { return "not the menu: \(run.band.screenShown)" }
    return status
}

func listening(_ options: inout BandOptions) {
    options.listen = HostPort(host: "127.0.0.1", port: 0)
}
struct StoreIntegrityScenarioTests {
    @Test func aBitFlippedInAStoredSessionsDataIsEncodedAgainAndSynced() throws {
        let run = try ScenarioRun(script: calibrationScript, options: listening)
        run.run(seconds: 50)
        let store = run.band.store
        let id = try #require(try store.finishedSessions().first?.id)
        var data = try #require(try store.sessionData(id: id))
        data.bytes[data.bytes.count / 2] ^= 0x10   // one bit, as a card may flip it
        try store.setSessionData(id: id, bytes: data.bytes, crc32: data.crc32)

        let result = try syncOnce(run, try CompanionStore(path: nil))
        #expect(result.refused.isEmpty, "\(result.refused)")
        #expect(result.pulled.map(\.bandSessionID) == [id])
        #expect(run.log.contains("warning: session \(id): its sync data had changed on the band's card"))
        let kept = try #require(try store.sessionData(id: id))
        #expect(CRC32.checksum(kept.bytes) == kept.crc32, "the band keeps the data encoded again")
    }

    @Test func aDamagedStoreIsSaidAtStartAndTheSessionsItCanReadStillSync() throws {
        var ids: [Int64] = []
        let run = try ScenarioRun(script: "", options: listening) { directory in
            ids = try storeWalks(in: directory, lengths: [60, 3000, 60])
            try damageMiddleSecondsPage(directory + "/band.sqlite")
        }
        run.run(seconds: 1)
        let said = run.log.all.filter { $0.hasPrefix("error: the band's store") && $0.contains("is damaged") }
        #expect(said.count == 1 && said[0].contains("Session \(ids[1]) cannot be read") && said[0].contains(".recover"), "\(run.log.all)")
        #expect(menuStatus(run) == "Storage damaged")

        // `amble sync` pulls the two it can read, names the third, and fails (exit status 1).
        let laptopPath = NSTemporaryDirectory() + "amble-laptop-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: laptopPath + suffix) } }
        let laptop = try CompanionStore(path: laptopPath)
        _ = try pairDirectly(run.band.store, laptop)
        let address = try listenAddress(run)
        let failure = try LaptopThread { () throws -> String? in
            var command = try AmbleCommand.parseAsRoot(["--store", laptopPath, "sync", "--tcp", address.description, "--json"])
            do { try command.run() } catch { return "\(error)" }
            return nil
        }.wait(ticking: run)
        #expect(failure?.contains("band session \(ids[1]): session \(ids[1]) cannot be read on the band: its stored seconds are damaged") == true, "\(failure ?? "exit 0")")
        #expect(try laptop.sessions().map(\.bandSessionID) == [ids[0], ids[2]])
        #expect(try run.band.store.finishedSessions().count == 3, "the band keeps the one it cannot read")
    }

    @Test func aFullStoreStillSyncsEverySessionAndMakesRoomFromSyncedOnesOnly() throws {
        // Eight hours of walking, never synced, on a board that gives the store 1 MiB: full
        // from the start. Then a two-minute calibration, and a sync while it runs.
        var walk: Int64 = 0
        let run = try ScenarioRun(script: "0:01 press select\n+2 walk 100\n+130 stop\n", calibrationSeconds: 120,
                                  board: { $0 + "\n[storage]\nmax_store_mb = 1\n" }, options: listening) { directory in
            walk = try storeWalks(in: directory, lengths: [30_000])[0]
            try DatabaseQueue(path: directory + "/band.sqlite").vacuum()   // no free page left
        }
        run.run(seconds: 0.5)
        #expect(menuStatus(run) == "Storage full")
        #expect(run.log.all.contains { $0.hasPrefix("error: the band's store") && $0.contains("is full") })
        run.run(seconds: 20)
        guard case .calibrating = run.band.screenShown else {
            Issue.record("not calibrating: \(run.band.screenShown)")
            return
        }
        #expect(try run.band.store.finishedSessions().map(\.id) == [walk], "nothing synced, nothing removed")

        let result = try syncOnce(run, try CompanionStore(path: nil))
        #expect(result.pulled.map(\.bandSessionID) == [walk])
        #expect(result.pulled.first?.summary.steps == 60_000)
        #expect(result.storage?.condition == .full)

        // The synced walk went to make room; the calibration's seconds waited and are all stored.
        run.run(seconds: 140)
        let sessions = try run.band.store.finishedSessions()
        #expect(sessions.map(\.summary.kind) == [.calibration])
        let calibration = try #require(sessions.first)
        #expect(try run.band.store.session(id: calibration.id)?.seconds.count == Int(calibration.summary.durationSeconds.rounded()))
        #expect(run.log.contains("room made in the store") && run.log.contains("the seconds that waited for room are stored"))
        #expect(!run.log.contains("could not be stored"))
    }
}
