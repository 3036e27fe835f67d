// The sync link's costs (scripts/bench-sync): bytes per recorded second, a throttled serial
// line between two pseudo-terminals, pairing stores directly, and a flood of hostile peers.
// A developer's measurement, not a test.
import AmbleBandStore
import AmbleCompanionStore
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSync
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

func fail(_ message: String) -> Never {
    writeStandardError("bench-sync: \(message)\n")
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    fail("usage: bench-sync size BAND_DB | consent-raw BAND_DB | raw BAND_DB | pair BAND_DB LAPTOP_DB | relay BAUD | flood HOST:PORT CONNECTIONS SECONDS [SOURCE] | handshakes replay|forged limited|open COUNT | replay-flood HOST:PORT LAPTOP_DB RATE SECONDS | store-check BAND_DB HOURS")
}

switch command {
case "size":
    // Bytes per recorded second of each finished session's sync data.
    guard arguments.count == 2 else { fail("size BAND_DB") }
    let store = try BandStore(path: arguments[1])
    var totalBytes = 0, totalSeconds = 0.0
    for session in try store.finishedSessions() {
        guard let record = try store.session(id: session.id) else { continue }
        let data = SessionCoding.encode(record)
        let seconds = Double(record.seconds.count)
        totalBytes += data.count
        totalSeconds += seconds
        print("session \(session.id) (\(session.summary.kind.rawValue)): \(record.seconds.count) s, \(data.count) bytes, "
              + String(format: "%.2f", Double(data.count) / max(seconds, 1)) + " bytes per recorded second")
    }
    print("all: \(totalBytes) bytes for \(Int(totalSeconds)) s: " + String(format: "%.2f", Double(totalBytes) / max(totalSeconds, 1)) + " bytes per recorded second")

case "consent-raw":
    // Turns raw capture on in BAND_DB (made if missing), before ambled records into it.
    guard arguments.count == 2 else { fail("consent-raw BAND_DB") }
    try BandStore(path: arguments[1]).set(.consentRawCapture, to: "on")

case "raw":
    // Raw capture's cost per session of BAND_DB: the bytes its raw blocks take in the band's
    // store, and what they add to the session data the link sends, per second of session.
    guard arguments.count == 2 else { fail("raw BAND_DB") }
    let store = try BandStore(path: arguments[1])
    func perSecond(_ bytes: Int, _ seconds: Double) -> String { String(format: "%.0f", Double(bytes) / max(seconds, 1)) }
    for session in try store.finishedSessions() {
        guard var record = try store.session(id: session.id), !record.raw.isEmpty else { continue }
        let duration = session.summary.durationSeconds
        let stored = try store.rawCounts(sessionID: session.id)
        // The uncompressed length follows the version byte.
        func uncompressedLength(_ data: [UInt8]) throws -> Int {
            var reader = BinaryReader(data)
            _ = try reader.byte()
            return try reader.count(limit: SessionCoding.maximumRawLength)
        }
        let withRawData = SessionCoding.encode(record)
        let withRaw = withRawData.count
        record.raw = []
        let withoutRawData = SessionCoding.encode(record)
        let withoutRaw = withoutRawData.count
        let rawColumns = try uncompressedLength(withRawData) - uncompressedLength(withoutRawData)
        print("session \(session.id) (\(session.summary.kind.rawValue)), \(Int(duration)) s: "
              + "\(stored.samples[.accelerometer] ?? 0) accelerometer and \(stored.samples[.ppg] ?? 0) PPG samples in \(record.seconds.count) s; "
              + "band store \(stored.bytes) bytes (\(perSecond(stored.bytes, duration)) B/s); "
              + "link: raw section \(rawColumns) bytes before zlib (\(perSecond(rawColumns, duration)) B/s), session data \(withRaw) bytes with raw, \(withoutRaw) without: "
              + "\(perSecond(withRaw - withoutRaw, duration)) B/s for the raw samples")
    }

case "phases":
    // Where a sync's time goes on the laptop, for the sessions of BAND_DB: decoding their data
    // and committing them to a fresh in-memory laptop store.
    guard arguments.count == 2 else { fail("phases BAND_DB") }
    let store = try BandStore(path: arguments[1])
    let laptop = try CompanionStore(path: nil)
    let clock = SystemClock()
    var decodeSeconds = 0.0, insertSeconds = 0.0, encodeSeconds = 0.0
    for session in try store.finishedSessions() {
        guard let record = try store.session(id: session.id) else { continue }
        var t = clock.nowSeconds
        let data = SessionCoding.encode(record)
        encodeSeconds += clock.nowSeconds - t
        t = clock.nowSeconds
        let decoded = try SessionCoding.decode(data)
        decodeSeconds += clock.nowSeconds - t
        t = clock.nowSeconds
        _ = try laptop.insert(bandID: "b", bandName: "b", bandSessionID: session.id, record: decoded, syncedAtUnixSeconds: 0)
        insertSeconds += clock.nowSeconds - t
    }
    print(String(format: "encode %.1f ms, decode %.1f ms, store %.1f ms", encodeSeconds * 1000, decodeSeconds * 1000, insertSeconds * 1000))

case "pair":
    // Pairs a band's store and a laptop's store directly (the bench has no wearer to press select).
    guard arguments.count == 3 else { fail("pair BAND_DB LAPTOP_DB") }
    let band = try BandStore(path: arguments[1])
    let laptop = try CompanionStore(path: arguments[2])
    let bandKey = try NoiseKeyPair(privateKey: try band.staticPrivateKey { NoiseKeyPair.generate().privateKey })
    let laptopKey = try NoiseKeyPair(privateKey: try laptop.laptopPrivateKey { NoiseKeyPair.generate().privateKey })
    let identity = try band.identity(defaultName: "Bench band")
    try band.addPairedLaptop(PairedLaptop(publicKey: laptopKey.publicKey, name: "bench", pairedUnixSeconds: Date().timeIntervalSince1970))
    try laptop.pairBand(id: identity.id, name: identity.name, publicKey: bandKey.publicKey, address: nil, nowUnixSeconds: Date().timeIntervalSince1970)
    print("paired \(identity.name) (\(identity.id))")

case "relay":
    // Two pseudo-terminal pairs joined by a relay that passes at most BAUD/10 bytes a second
    // each way, as a serial line at that rate would (8N1: 10 bits a byte).
    guard arguments.count == 2, let baud = Int(arguments[1]) else { fail("relay BAUD") }
    let relay = try SerialLineRelay(bytesPerSecond: Double(baud) / 10)
    print(relay.paths.0)
    print(relay.paths.1)
    fflush(nil)
    relay.run()

case "flood":
    // CONNECTIONS peers for SECONDS, from SOURCE when given: each reconnects over and over and
    // sends, in turn, random bytes, pairing handshakes (the band is not in pairing mode),
    // connect handshakes with an unpaired key, a frame header that never finishes, or nothing
    // at all (an idle socket).
    guard (4 ... 5).contains(arguments.count), let target = HostPort(parsing: arguments[1]), let count = Int(arguments[2]),
          let seconds = Double(arguments[3]) else {
        fail("flood HOST:PORT CONNECTIONS SECONDS [SOURCE]")
    }
    let source = arguments.count == 5 ? arguments[4] : nil
    let clock = SystemClock()
    let end = clock.nowSeconds + seconds
    var generator = SystemRandomNumberGenerator()
    var sockets: [(stream: TCPConnection, kind: Int, since: Double)?] = Array(repeating: nil, count: count)
    var sent = 0, connects = 0, refusals = 0
    var turn = 0
    while clock.nowSeconds < end {
        for i in 0 ..< count {
            let now = clock.nowSeconds
            if sockets[i] == nil || now - sockets[i]!.since > 3 {
                sockets[i]?.stream.close()
                guard let stream = try? TCPConnection.connect(to: target, timeoutSeconds: 1, from: source) else { sockets[i] = nil; continue }
                sockets[i] = (stream, turn % 5, now)
                turn += 1
                connects += 1
            }
            guard let (stream, kind, _) = sockets[i] else { continue }
            var bytes: [UInt8] = []
            switch kind {
            case 0:
                bytes = (0 ..< 8192).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            case 1:
                var handshake = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: .generate())
                bytes = Framing.frame(.pair, try handshake.writeMessage(payload: []).message)
            case 2:
                var handshake = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                                        localStaticKey: .generate(), remoteStaticKey: NoiseKeyPair.generate().publicKey)
                bytes = Framing.frame(.connect, try handshake.writeMessage(payload: []).message)
            case 3:
                var header: [UInt8] = [0x41, 0x4D, Framing.version, FrameKind.secure.rawValue, 0x40, 0x00]
                let check = UInt16(truncatingIfNeeded: CRC32.checksum(header))
                header += [UInt8(check >> 8), UInt8(check & 0xFF)]
                bytes = header + Array(repeating: 0x55, count: 100)
            default:
                break   // idle
            }
            if !bytes.isEmpty, let written = try? stream.writeAvailable(bytes[...]) { sent += written }
            // Drain what the band says (refusals) so its writes never block on us.
            if let answer = try? stream.read(maxCount: 65536, timeoutSeconds: 0) {
                var decoder = FrameDecoder()
                refusals += decoder.feed(answer).filter { if case .frame(FrameKind.refusal.rawValue, _) = $0 { return true } else { return false } }.count
            } else {
                stream.close()
                sockets[i] = nil
            }
        }
        usleep(1000)
    }
    print("flood: \(connects) connections, \(sent) bytes sent, \(refusals) refusals received")

case "replay-flood":
    // An eavesdropper's attack: the paired laptop's IK message 1 (made here with the key in
    // LAPTOP_DB: what a recording of its sync holds) sent RATE times a second for SECONDS, each
    // on a new connection (108 bytes), from SOURCE when given; nothing read back.
    guard (5 ... 6).contains(arguments.count), let target = HostPort(parsing: arguments[1]), let rate = Double(arguments[3]),
          let seconds = Double(arguments[4]) else { fail("replay-flood HOST:PORT LAPTOP_DB RATE SECONDS [SOURCE]") }
    let laptop = try CompanionStore(path: arguments[2])
    let key = try NoiseKeyPair(privateKey: try laptop.laptopPrivateKey { fail("\(arguments[2]) has no laptop key") })
    guard let band = try laptop.pairedBands().first else { fail("\(arguments[2]) is paired with no band") }
    var handshake = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                            localStaticKey: key, remoteStaticKey: band.publicKey)
    let recorded = Framing.frame(.connect, try handshake.writeMessage(payload: []).message)
    let source = arguments.count == 6 ? arguments[5] : nil
    let clock = SystemClock()
    let start = clock.nowSeconds
    var sent = 0, failed = 0
    while clock.nowSeconds - start < seconds {
        if Double(sent + failed) >= (clock.nowSeconds - start) * rate {
            usleep(200)
            continue
        }
        do {
            let socket = try TCPConnection.connect(to: target, timeoutSeconds: 1, from: source)
            try socket.write(recorded)
            socket.close()
            sent += 1
        } catch {
            failed += 1
        }
    }
    let elapsed = clock.nowSeconds - start
    print("replay flood: \(sent) connections of \(recorded.count) bytes in " + String(format: "%.1f s (%.0f a second)", elapsed, Double(sent) / elapsed)
          + (failed > 0 ? ", \(failed) connects failed" : ""))

case "handshakes":
    // The band's side of COUNT connect handshakes in this process, for callgrind (scripts/
    // bench-sync counts `answerHandshakes` only): `replay`, one paired laptop's IK message 1 sent
    // COUNT times; `forged`, COUNT messages from new keys (not paired), made beforehand. With
    // `limited`, the band's handshake limits decide, all at one instant from one address;
    // without, every message is worked on (the band before the limits).
    guard arguments.count == 4, ["replay", "forged"].contains(arguments[1]), ["limited", "open"].contains(arguments[2]),
          let count = Int(arguments[3]) else { fail("handshakes replay|forged limited|open COUNT") }
    let host = BenchBandHost(limited: arguments[2] == "limited")
    let laptop = NoiseKeyPair.generate()
    host.paired = laptop.publicKey
    func connectMessage(from key: NoiseKeyPair) throws -> [UInt8] {
        var handshake = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                                localStaticKey: key, remoteStaticKey: host.staticKeyPair.publicKey)
        return Framing.frame(.connect, try handshake.writeMessage(payload: []).message)
    }
    let frames = arguments[1] == "replay" ? Array(repeating: try connectMessage(from: laptop), count: count)
                                          : try (0 ..< count).map { _ in try connectMessage(from: .generate()) }
    let (keyWork, answers) = answerHandshakes(frames, host: host)
    print("\(count) \(arguments[1]) handshakes, \(arguments[2]): key work on \(keyWork), answers \(answers)")
case "store-check":
    // The band's check at start on a store of HOURS of walks (half an hour each, their sync
    // data kept, cadence and heart rate varying as a walk's do), made at BAND_DB when missing:
    // seconds for quick_check and for checking every session's data against its CRC-32.
    guard arguments.count == 3, let hours = Int(arguments[2]), hours > 0 else { fail("store-check BAND_DB HOURS") }
    let path = arguments[1]
    let clock = SystemClock()
    if !FileManager.default.fileExists(atPath: path) {
        let store = try BandStore(path: path)
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ range: Int) -> Double {
            random ^= random << 13; random ^= random >> 7; random ^= random << 17
            return Double(random % UInt64(range))
        }
        for walk in 0 ..< hours * 2 {
            let start = 1_800_000_000 + Double(walk) * 7200
            let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: start, parameters: parameters)
            let seconds = (0 ..< 1800).map {
                SessionSecond(offsetSeconds: $0, steps: 1 + Int(next(2)), cadenceStepsPerMinute: 85 + next(200) / 10, heartRateBPM: 80 + next(300) / 10,
                              heartRateConfidence: 0.5 + next(50) / 100, overLimit: next(10) == 0)
            }
            try store.appendSeconds(sessionID: id, seconds)
            let summary = SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + 1800, parameters: parameters)
            try store.endSession(sessionID: id, summary: summary)
            let bytes = SessionCoding.encode(SessionRecord(summary: summary, seconds: seconds))
            try store.setSessionData(id: id, bytes: bytes, crc32: CRC32.checksum(bytes))
        }
    }
    var status = stat()
    stat(path, &status)
    var started = clock.nowSeconds
    let store = try BandStore(path: path)
    let opened = clock.nowSeconds - started
    started = clock.nowSeconds
    let problems = try store.quickCheck()
    let checked = clock.nowSeconds - started
    started = clock.nowSeconds
    let damaged = try store.sessionsWithDamagedData(checksum: CRC32.checksum)
    let data = clock.nowSeconds - started
    print("store of \(try store.recordedSeconds() / 3600) h in \(try store.finishedSessions().count) sessions, \(status.st_size >> 20) MiB: "
          + "open \(String(format: "%.2f", opened)) s, quick_check \(String(format: "%.2f", checked)) s (\(problems.isEmpty ? "ok" : problems.joined(separator: "; "))), "
          + "sync data against CRC-32 \(String(format: "%.2f", data)) s (\(damaged.count) changed)")

default:
    fail("unknown command \(command)")
}

/// A band for `handshakes`: one paired laptop, the band's handshake limits or none.
final class BenchBandHost: BandLinkHost {
    let staticKeyPair = NoiseKeyPair.generate()
    var paired: [UInt8] = []
    private var gate: HandshakeGate?
    init(limited: Bool) { gate = limited ? HandshakeGate(now: 0) : nil }
    func bandIdentity() -> (id: String, name: String) { ("bench", "Bench band") }
    func isPaired(laptopKey: [UInt8]) -> Bool { laptopKey == paired }
    func pairingMethod() -> PairingMethod? { nil }
    func pairingBegan(connection: Int, laptopKey: [UInt8], laptopName: String, codes: PairingCodes, method: PairingMethod) {}
    func pairingVerdict(connection: Int, accepted: Bool) -> SyncMessage.PairingState { .declined }
    func pairingState(connection: Int) -> SyncMessage.PairingState { .declined }
    func pairingEnded(connection: Int) {}
    func answer(_ request: SyncMessage, laptopKey: [UInt8]) -> SyncMessage { .failure(code: .badRequest, message: "bench") }
    func admitHandshake(connection: Int, kind: FrameKind, message: [UInt8], now: Double) -> Refusal? {
        gate?.refusal(address: "bench", kind: kind, message: message, now: now)
    }
    func pairedLaptopConnected(connection: Int, message: [UInt8]) { gate?.remember(connectMessage: message) }
}

/// Each frame on a fresh connection of the band; the key work done and the answers by kind.
@inline(never)
func answerHandshakes(_ frames: [[UInt8]], host: BenchBandHost) -> (keyWork: Int, answers: [String: Int]) {
    var keyWork = 0
    var answers: [String: Int] = [:]
    for (id, frame) in frames.enumerated() {
        let connection = BandLinkConnection(id: id, host: host, now: 0)
        connection.receive(frame, now: 0)
        keyWork += connection.handshakeKeyWork
        var decoder = FrameDecoder()
        for case .frame(let kind, let payload) in decoder.feed(Array(connection.output)) {
            let name = kind == FrameKind.refusal.rawValue ? Refusal(payload: payload).code.name : (FrameKind(rawValue: kind).map { "\($0)" } ?? "?")
            answers[name, default: 0] += 1
        }
    }
    return (keyWork, answers)
}
