import AmbleBoard
import AmbleCLI
import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import AmbleRecordings
import AmbleServer
import AmbleSync
import AmbleTOML

/// Every parser that takes outside input, as one function of bytes each: what `amble-fuzz`
/// hands libFuzzer's inputs to, and what the tests replay the kept corpus and every crash
/// found through. A target must never trap, hang or grow without bound, whatever the bytes;
/// errors thrown for bad input are the expected outcome and are dropped here.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The frame decoder: magic, version, kind, length, CRC, resynchronisation on noise.
    case frames
    /// A sealed message's plaintext (`SyncMessage.decode`); what decodes must encode back to
    /// the same bytes.
    case messages
    /// The band's side of a connection fed the bytes as a peer would send them: frames,
    /// handshake messages (pairing and connecting), refusals, in chunks of the input's choosing.
    case bandLink = "band-link"
    /// Session data from a band (`SessionCoding.decode`, zlib inside); what decodes is then
    /// stored in a companion store in memory, the laptop's import path.
    case sessionData = "session-data"
    /// Board files (TOML).
    case board
    /// Study files (TOML or JSON), as `amble study join` reads them.
    case study
    /// The TOML reader alone on raw bytes (its own UTF-8 check included); what it reads, its
    /// writer must write as text that reads back equal.
    case toml
    /// Acceleration recordings (CSV), read and then analysed as `amble analyze steps` does.
    case stepsRecording = "steps-recording"
    /// PPG recordings (CSV), read and then analysed as `amble analyze hr` does.
    case ppgRecording = "ppg-recording"
    /// Step-count labels and heart-rate references (CSV) for the scoring tools.
    case labels
    /// The study server's decoders of outside input (`ServerInputs`): the API's JSON bodies,
    /// items with their digest, access tokens, join codes, the login form, the export's query.
    case serverInput = "server-input"

    /// Runs the target on one input.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .frames: Self.frames(bytes)
        case .messages: Self.messages(bytes)
        case .bandLink: Self.bandLink(bytes)
        case .sessionData: Self.sessionData(bytes)
        case .board: _ = try? BoardFile.parse(text: String(decoding: bytes, as: UTF8.self), file: "fuzz.toml")
        case .study: _ = StudyFileCheck.problem(text: String(decoding: bytes, as: UTF8.self))
        case .toml: Self.toml(bytes)
        case .stepsRecording: Self.stepsRecording(bytes)
        case .ppgRecording: Self.ppgRecording(bytes)
        case .labels:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? StepLabel.read(text: text, name: "labels.csv")
            _ = try? HeartRateReference.read(text: text, name: "reference.csv")
        case .serverInput: ServerInputs.decode(bytes)
        }
    }

    static func toml(_ bytes: [UInt8]) {
        guard let table = try? TOMLReader().read(bytes: bytes) else { return }
        let again = Result { () throws(TOMLError) in try TOMLReader().read(table.tomlText) }
        precondition((try? again.get()) == table, "the TOML writer wrote what reads otherwise: \(again)")
    }

    static func frames(_ bytes: [UInt8]) {
        var decoder = FrameDecoder()
        // The input arrives in pieces whose sizes its first byte picks (1 to 256), offered as
        // the band's reader offers them: no more than the decoder has room for.
        let piece = Int(bytes.first ?? 0) + 1
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + piece)
            var offered = bytes[index ..< end]
            while !offered.isEmpty {
                let room = decoder.freeCapacity
                let dropped = decoder.append(offered)
                precondition(dropped == max(0, offered.count - room), "append kept other than what it had room for")
                offered = offered.dropFirst(offered.count - dropped)
                while decoder.next() != nil {}
                // A decoder holding two frames' worth always has a frame or a discard to give:
                // full and silent would freeze the band's link.
                precondition(decoder.freeCapacity > 0, "the decoder is full and gives nothing")
            }
            index = end
        }
    }

    /// What the analysis is given of an input, at most: its first 2,000 rows, and of them no
    /// more than 60 s of sample time between rows under 3 s apart (a longer gap costs nothing
    /// and is kept). Enough to confirm and count a walk and to make heart-rate estimates; the
    /// worst input then costs about half a second in a debug build (2,000 rows 2.4 s apart
    /// cost 18 s: the work is bounded by the time the samples span, not by the bytes).
    static let analysedRows = 2_000
    static let analysedSeconds = 60.0

    /// How many of `times` (in order) the analysis is given.
    static func analysedCount(_ times: [Double]) -> Int {
        var seconds = 0.0
        for i in times.indices.dropFirst() {
            let interval = times[i] - times[i - 1]
            if interval < 3 { seconds += interval }
            if seconds > analysedSeconds || i == analysedRows { return i }
        }
        return times.count
    }

    /// A steps recording: read whole, then its first part (`analysedCount`) analysed as
    /// `amble analyze steps` does, rate judged; however far apart its times, the cadence is
    /// read at most once a row.
    static func stepsRecording(_ bytes: [UInt8]) {
        var rows: [AccelerationRow] = []
        guard (try? AccelerationRecording(text: String(decoding: bytes, as: UTF8.self), name: "fuzz.csv").forEachRow { rows.append($0) }) != nil
        else { return }
        let analysed = rows.prefix(analysedCount(rows.map(\.timeSeconds)))
        let text = "time_s,x_g,y_g,z_g\n" + analysed.map { "\($0.timeSeconds),\($0.xG),\($0.yG),\($0.zG)\n" }.joined()
        guard let work = AnalysisWork.steps(text: text) else { preconditionFailure("rows read once do not read again") }
        precondition(work.cadenceReadings <= work.rows, "\(work.rows) rows read the cadence \(work.cadenceReadings) times")
    }

    /// A PPG recording: read whole, then its first part analysed as `amble analyze hr` does;
    /// however far apart its times, at most a window's estimates are made after each row (and
    /// one at the end): none where no sample is in the window.
    static func ppgRecording(_ bytes: [UInt8]) {
        var rows: [PPGRow] = []
        guard (try? PPGRecording(text: String(decoding: bytes, as: UTF8.self), name: "fuzz.csv").forEachRow { rows.append($0) }) != nil,
              let channels = rows.first?.ppg.count else { return }
        let analysed = rows.prefix(analysedCount(rows.map(\.timeSeconds)))
        let header = "time_s," + (1...channels).map { "ppg\($0)," }.joined() + "x_g,y_g,z_g\n"
        let text = header + analysed.map { row in
            let a = row.acceleration.map { "\($0.xG),\($0.yG),\($0.zG)" } ?? ",,"
            return "\(row.timeSeconds)," + row.ppg.map { "\($0)," }.joined() + a + "\n"
        }.joined()
        guard let work = AnalysisWork.heartRate(text: text) else { preconditionFailure("rows read once do not read again") }
        let perRow = Int(work.windowSeconds / work.stepSeconds) + 1
        precondition(work.estimates <= work.rows * perRow + 1, "\(work.rows) rows made \(work.estimates) estimates")
    }

    static func messages(_ bytes: [UInt8]) {
        guard let (number, message) = try? SyncMessage.decode(bytes) else { return }
        let again = message.encoded(number: number)
        guard let (numberAgain, messageAgain) = try? SyncMessage.decode(again) else {
            preconditionFailure("a decoded message does not decode after encoding: \(message)")
        }
        precondition(numberAgain == number && messageAgain == message, "a message changed through encode and decode")
    }

    static func bandLink(_ bytes: [UInt8]) {
        let host = FuzzBandHost()
        let connection = BandLinkConnection(id: 1, host: host, now: 0)
        var now = 0.0
        var index = 0
        var rounds = 0
        while index < bytes.count && !connection.isFinished && rounds < 10_000 {
            rounds += 1
            // Each round: a control byte (how many bytes follow, and time moving on), then them.
            let control = bytes[index]
            index += 1
            now += Double(control >> 6)
            let wanted = Int(control & 0x3F) * 64 + 1
            let end = min(bytes.count, index + min(wanted, max(connection.freeInputCapacity, 0)))
            if end > index { connection.receive(bytes[index ..< end], now: now) }
            index = max(end, index)
            connection.wrote(connection.output.count)
            connection.tick(now: now)
            precondition(connection.output.count <= 2 * Framing.maximumFrameLength, "the band holds more output than it may")
        }
    }

    static func sessionData(_ bytes: [UInt8]) {
        guard let record = try? SessionCoding.decode(bytes) else { return }
        let again = SessionCoding.encode(record)
        precondition((try? SessionCoding.decode(again)) != nil, "a decoded session does not decode after encoding")
        guard let store = try? CompanionStore(path: nil) else { return }
        _ = try? store.insert(bandID: "fuzz-band", bandName: "Fuzz band", bandSessionID: 1, record: record, syncedAtUnixSeconds: 1_800_000_000)
        _ = try? store.sessions()
    }
}

/// A band for the link target: in pairing mode (comparison), one laptop paired, every request
/// answered with a failure.
final class FuzzBandHost: BandLinkHost {
    let staticKeyPair = NoiseKeyPair.fixedForFuzzing
    func bandIdentity() -> (id: String, name: String) { ("fuzz-band", "Fuzz band") }
    func isPaired(laptopKey: [UInt8]) -> Bool { laptopKey == NoiseKeyPair.fixedLaptopForFuzzing.publicKey }
    func pairingMethod() -> PairingMethod? { .comparison }
    func pairingBegan(connection: Int, laptopKey: [UInt8], laptopName: String, codes: PairingCodes, method: PairingMethod) {}
    func pairingVerdict(connection: Int, accepted: Bool) -> SyncMessage.PairingState { accepted ? .paired : .declined }
    func pairingState(connection: Int) -> SyncMessage.PairingState { .awaitingWearer }
    func pairingEnded(connection: Int) {}
    /// The band's own handshake limits, on the fuzzer's time.
    private var gate = HandshakeGate(now: 0)
    func admitHandshake(connection: Int, kind: FrameKind, message: [UInt8], now: Double) -> Refusal? {
        gate.refusal(address: "fuzz", kind: kind, message: message, now: now)
    }
    func pairedLaptopConnected(connection: Int, message: [UInt8]) { gate.remember(connectMessage: message) }
    func answer(_ request: SyncMessage, laptopKey: [UInt8]) -> SyncMessage {
        if case .hello = request { return .welcome(version: SyncMessage.highestVersion, bandID: "fuzz-band", bandName: "Fuzz band", bandUnixSeconds: 1_800_000_000) }
        return .failure(code: .badRequest, message: "fuzzing")
    }
}

extension NoiseKeyPair {
    /// Fixed keys, so that a crash found replays the same way.
    static let fixedForFuzzing = try! NoiseKeyPair(privateKey: Array(repeating: 0x42, count: 32))
    static let fixedLaptopForFuzzing = try! NoiseKeyPair(privateKey: Array(repeating: 0x24, count: 32))
}
