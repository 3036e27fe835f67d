import AmbleHardware
import AmbleModel
@testable import AmbleSync

/// A band for the link tests: a few sessions in memory, paired laptops, and the wearer's
/// answer to a pairing decided by the test.
final class TestBandHost: BandLinkHost {
    let staticKeyPair = NoiseKeyPair.generate()
    var paired: [[UInt8]] = []
    var pairingOpen: PairingMethod? = .comparison
    var wearerAccepts = true
    var sessions: [(id: Int64, record: SessionRecord, data: [UInt8], synced: Bool)] = []
    var acknowledged: [Int64] = []
    /// Sessions per list answer.
    var pageLength = 256
    var began: [(connection: Int, codes: PairingCodes)] = []
    /// The message version the band chooses, and the sessions it says it records (version 4).
    var version = SyncMessage.highestVersion
    var recording: [SyncMessage.RecordingEntry] = []
    /// How the band says its store is (version 5).
    var storage = (StoreCondition.sound, "")
    /// Requests answered, by kind, for tests that check what was asked.
    var statusRequests = 0
    private var verdicts: [Int: Bool] = [:]

    func add(_ record: SessionRecord) {
        let id = Int64(sessions.count + 1)
        sessions.append((id, record, SessionCoding.encode(record), false))
    }

    /// What the band says it is in `welcome` (a hostile band says anything).
    var welcomeID = "test-band-id"
    var welcomeName = "Test band"
    func bandIdentity() -> (id: String, name: String) { ("test-band-id", "Test band") }
    func isPaired(laptopKey: [UInt8]) -> Bool { paired.contains(laptopKey) }
    func pairingMethod() -> PairingMethod? { pairingOpen }

    func pairingBegan(connection: Int, laptopKey: [UInt8], laptopName: String, codes: PairingCodes, method: PairingMethod) {
        began.append((connection, codes))
        pendingKey = laptopKey
    }

    private var pendingKey: [UInt8]?

    func pairingVerdict(connection: Int, accepted: Bool) -> SyncMessage.PairingState {
        verdicts[connection] = accepted
        return pairingState(connection: connection)
    }

    func pairingState(connection: Int) -> SyncMessage.PairingState {
        guard let laptop = verdicts[connection] else { return .awaitingWearer }
        guard laptop && wearerAccepts else { return .declined }
        if let key = pendingKey, !paired.contains(key) { paired.append(key) }
        return .paired
    }

    func pairingEnded(connection: Int) {}

    /// The band's handshake limits, when a test asks for them (every peer is "test peer").
    var gate: HandshakeGate?

    func admitHandshake(connection: Int, kind: FrameKind, message: [UInt8], now: Double) -> Refusal? {
        gate?.refusal(address: "test peer", kind: kind, message: message, now: now)
    }

    func pairedLaptopConnected(connection: Int, message: [UInt8]) { gate?.remember(connectMessage: message) }

    func answer(_ request: SyncMessage, laptopKey: [UInt8]) -> SyncMessage {
        switch request {
        case .hello:
            return .welcome(version: version, bandID: welcomeID, bandName: welcomeName, bandUnixSeconds: 1_800_000_000)
        case .listSessions(let after):
            let page = sessions.filter { $0.id > after }.prefix(pageLength)
            return .sessionList(page.map {
                SyncMessage.SessionEntry(id: $0.id, summary: $0.record.summary, dataLength: $0.data.count, dataCRC32: CRC32.checksum($0.data), synced: $0.synced)
            }, more: page.last.map { last in sessions.contains { $0.id > last.id } } ?? false)
        case .getChunk(let id, let offset, let maximum):
            guard let session = sessions.first(where: { $0.id == id }) else { return .failure(code: .notFound, message: "no session \(id)") }
            let end = min(session.data.count, offset + maximum)
            return .chunk(sessionID: id, offset: offset, totalLength: session.data.count, bytes: Array(session.data[offset ..< end]))
        case .acknowledge(let id):
            acknowledged.append(id)
            if let index = sessions.firstIndex(where: { $0.id == id }) { sessions[index].synced = true }
            return .acknowledged(sessionID: id)
        case .getSettings:
            return .settings([SyncMessage.SettingValue(key: "reduction_percent", value: "20")])
        case .getStatus where version >= SyncMessage.statusVersion:
            statusRequests += 1
            return .status(recording: recording)
        case .getStorage where version >= SyncMessage.storageVersion:
            return .storage(storage.0, message: storage.1)
        default:
            return .failure(code: .badRequest, message: "not in this test")
        }
    }
}

/// A laptop's store in memory.
final class TestSink: SessionSink {
    var cursor: [String: Int64] = [:]
    var stored: [Int64: SessionRecord] = [:]
    /// Each stored session's data as the band sent it.
    var storedData: [Int64: [UInt8]] = [:]
    var storeCalls = 0
    var partials: [Int64: PartialDownload] = [:]
    var completed = 0

    func syncCursor(bandID: String) throws -> Int64 { cursor[bandID] ?? 0 }
    func setSyncCursor(bandID: String, _ value: Int64) throws { cursor[bandID] = max(cursor[bandID] ?? 0, value) }
    func storedBandSessionIDs(bandID: String) throws -> Set<Int64> { Set(stored.keys) }
    func partialDownload(bandID: String, bandSessionID: Int64) throws -> PartialDownload? { partials[bandSessionID] }
    func savePartialDownload(bandID: String, bandSessionID: Int64, _ partial: PartialDownload) throws { partials[bandSessionID] = partial }
    func discardPartialDownload(bandID: String, bandSessionID: Int64) throws { partials[bandSessionID] = nil }
    func store(bandID: String, bandName: String, bandSessionID: Int64, record: SessionRecord, data: [UInt8]) throws -> Int64? {
        storeCalls += 1
        partials[bandSessionID] = nil
        guard stored[bandSessionID] == nil else { return nil }
        stored[bandSessionID] = record
        storedData[bandSessionID] = data
        return bandSessionID
    }
    func syncCompleted(bandID: String, bandName: String) throws { completed += 1 }
    /// What the last completed sync said the band records (nil: the band could not say).
    var recording: [SyncMessage.RecordingEntry]?? = .none
    func bandRecording(bandID: String, _ recording: [SyncMessage.RecordingEntry]?) throws { self.recording = .some(recording) }
}

/// A byte stream between a laptop (the test's `CompanionLink`) and a `BandLinkConnection`,
/// pumped in the laptop's thread: a write goes to the band, a read lets the band work and
/// returns what it wrote. The wire can damage, drop or cut bytes; time is a manual clock that
/// moves when a read finds nothing.
final class PumpedStream: ByteStream {
    let band: BandLinkConnection
    let clock: ManualClock
    var peerName = "test band"
    var pollDescriptor: Int32 = -1
    /// Applied to each byte the band sends, by its index on the wire (nil drops it).
    var bandToLaptop: (Int, UInt8) -> UInt8? = { $1 }
    var laptopToBand: (Int, UInt8) -> UInt8? = { $1 }
    /// The wire breaks once this many bytes went either way.
    var cutAfterBytes = Int.max
    private(set) var sentByBand = 0
    private(set) var sentByLaptop = 0
    private var inbox: [UInt8] = []
    private(set) var isClosed = false

    init(band: BandLinkConnection, clock: ManualClock) {
        self.band = band
        self.clock = clock
    }

    private var isCut: Bool { sentByBand + sentByLaptop >= cutAfterBytes }
    private var toBand: [UInt8] = []

    /// Lets the band take what it has room for, work, and write.
    private func pump() {
        band.tick(now: clock.nowSeconds)
        while true {
            let room = band.freeInputCapacity
            if room > 0 && !toBand.isEmpty {
                let taken = Array(toBand.prefix(room))
                toBand.removeFirst(taken.count)
                band.receive(taken, now: clock.nowSeconds)
            }
            let output = Array(band.output)
            band.wrote(output.count)
            for byte in output where !isCut {
                if let delivered = bandToLaptop(sentByBand, byte) { inbox.append(delivered) }
                sentByBand += 1
            }
            if output.isEmpty && (toBand.isEmpty || band.freeInputCapacity == 0) { return }
        }
    }

    func read(maxCount: Int, timeoutSeconds: Double) throws(StreamError) -> [UInt8]? {
        if isClosed || (isCut && inbox.isEmpty) { return nil }
        pump()
        if inbox.isEmpty {
            if band.isFinished { return nil }
            clock.advance(bySeconds: max(timeoutSeconds, 0.01))
            return []
        }
        let taken = Array(inbox.prefix(maxCount))
        inbox.removeFirst(taken.count)
        return taken
    }

    func write(_ bytes: [UInt8]) throws(StreamError) {
        if isClosed || isCut { throw StreamError(peer: peerName, message: "the wire is cut") }
        for byte in bytes where !isCut {
            if let b = laptopToBand(sentByLaptop, byte) { toBand.append(b) }
            sentByLaptop += 1
        }
        pump()
    }

    func writeAvailable(_ bytes: ArraySlice<UInt8>) throws(StreamError) -> Int {
        try write(Array(bytes))
        return bytes.count
    }

    func close() { isClosed = true }
}

/// A session of `seconds` seconds with varied values.
func testRecord(seconds: Int, start: Double = 1_800_000_000, seed: Int = 1) -> SessionRecord {
    let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
    var tally = SessionTally()
    var rows: [SessionSecond] = []
    for i in 0 ..< seconds {
        let cadence = 80 + Double((i * 7 + seed * 13) % 300) / 10
        let row = SessionSecond(offsetSeconds: i, steps: 1 + (i + seed) % 2, cadenceStepsPerMinute: cadence,
                                heartRateBPM: i % 17 == 0 ? nil : 90 + Double((i * 3 + seed) % 200) / 10,
                                heartRateConfidence: i % 17 == 0 ? nil : 0.5 + Double(i % 50) / 100,
                                overLimit: cadence > 88, alerts: i % 60 == 5 ? 1 : 0)
        rows.append(row)
        tally.add(row)
    }
    return SessionRecord(summary: tally.summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(seconds), parameters: parameters), seconds: rows)
}
