import Foundation
import AmbleModel
@testable import AmbleSync
import Testing

/// docs/protocol.md is checked against the code: every byte string it shows, the message and
/// failure tables, and the constants it states.
///
/// How: each byte string in the doc is a fenced block opened with "```hex NAME". A line of a
/// block holds bytes as two-digit hex, optionally followed by "#" and a label. The test
/// builds the value for every NAME with the code (`ProtocolDocExamples`), and requires the
/// doc's blocks and these values to be the same set with the same bytes. Hex written inline
/// in the text (a code span such as `02 03 0a ac`) must occur inside one of those values.
struct ProtocolDocTests {
    static let docPath: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)   // Tests/AmbleSyncTests/ProtocolDocTests.swift
        return (parts + ["docs", "protocol.md"]).joined(separator: "/")
    }()

    static func readDoc() throws -> String {
        try String(contentsOfFile: docPath, encoding: .utf8)
    }

    /// The doc's hex blocks by name.
    static func hexBlocks(_ doc: String) throws -> [String: [UInt8]] {
        var blocks: [String: [UInt8]] = [:]
        var current: (name: String, bytes: [UInt8])?
        for (index, rawLine) in doc.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if line == "```" {
                    guard blocks[block.name] == nil else { throw DocError(line: index + 1, detail: "hex block \(block.name) appears twice") }
                    blocks[block.name] = block.bytes
                    current = nil
                    continue
                }
                let data = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for token in data.split(separator: " ") {
                    guard token.count == 2, let byte = UInt8(token, radix: 16) else {
                        throw DocError(line: index + 1, detail: "\"\(token)\" in hex block \(block.name) is not a byte")
                    }
                    block.bytes.append(byte)
                }
                current = block
            } else if line.hasPrefix("```hex") {
                let name = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { throw DocError(line: index + 1, detail: "a hex block needs a name") }
                current = (name, [])
            }
        }
        if let current { throw DocError(line: 0, detail: "hex block \(current.name) is not closed") }
        return blocks
    }

    struct DocError: Error, CustomStringConvertible {
        var line: Int
        var detail: String
        var description: String { "docs/protocol.md:\(line): \(detail)" }
    }

    @Test func everyHexBlockIsWhatTheCodeProduces() throws {
        let blocks = try Self.hexBlocks(try Self.readDoc())
        let examples = try ProtocolDocExamples.all()
        let unchecked = Set(blocks.keys).subtracting(examples.keys).sorted()
        #expect(unchecked.isEmpty, "hex blocks in docs/protocol.md that no example here builds: \(unchecked)")
        let missing = Set(examples.keys).subtracting(blocks.keys).sorted()
        #expect(missing.isEmpty, "examples built here that docs/protocol.md does not show: \(missing)")
        for (name, bytes) in examples.sorted(by: { $0.key < $1.key }) {
            guard let written = blocks[name] else { continue }
            #expect(written == bytes, "hex block \(name): the code gives\n\(ProtocolDocExamples.hex(bytes))")
        }
    }

    @Test func hexWrittenInTheTextIsPartOfACheckedValue() throws {
        // The text outside fenced blocks, then its code spans that hold two or more hex bytes.
        var inFence = false
        let text = try Self.readDoc().split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                return false
            }
            return !inFence
        }.joined(separator: "\n")
        #expect(text.filter { $0 == "`" }.count % 2 == 0, "a code span in docs/protocol.md is not closed")
        let values = Array(try ProtocolDocExamples.all().values)
        var checked = 0
        for span in text.split(separator: "`", omittingEmptySubsequences: false).enumerated() where span.offset % 2 == 1 {
            let tokens = span.element.split(separator: " ")
            guard tokens.count >= 2, tokens.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else { continue }
            let bytes = tokens.map { UInt8($0, radix: 16)! }
            let found = values.contains { value in
                value.count >= bytes.count && (0 ... value.count - bytes.count).contains { Array(value[$0 ..< $0 + bytes.count]) == bytes }
            }
            #expect(found, "`\(span.element)` in the text is in no checked value")
            checked += 1
        }
        #expect(checked >= 3)
    }

    @Test func theMessageTableHasEveryTypeByte() throws {
        let doc = try Self.readDoc()
        for message in ProtocolDocExamples.everyMessage {
            let type = message.encoded(number: 0)[1]
            let name = "\(message)".prefix { $0.isLetter }
            let row = "| `0x\(ProtocolDocExamples.hex([type]))` | `\(name)` |"
            let found = doc.contains(row)
            #expect(found, "docs/protocol.md has no row \(row)")
        }
    }

    @Test func theFailureTableHasEveryCode() throws {
        let doc = try Self.readDoc()
        for raw in UInt8(0) ... 255 {
            guard let code = SyncMessage.FailureCode(rawValue: raw) else { continue }
            let row = "| \(raw) | `\(code.name)` |"
            let found = doc.contains(row)
            #expect(found, "docs/protocol.md has no row \(row)")
        }
        for kind in FrameKind.allCases {
            let row = "| `0x\(ProtocolDocExamples.hex([kind.rawValue]))` | `\(kind)` |"
            let found = doc.contains(row)
            #expect(found, "docs/protocol.md has no row \(row)")
        }
    }

    /// Values the doc states in words; when one changes here, change the doc.
    @Test func theConstantsTheDocStates() throws {
        let doc = try Self.readDoc()
        #expect(Framing.magic == [0x41, 0x4D] && Framing.version == 2)
        #expect(Framing.headerLength == 8 && Framing.trailerLength == 4)
        #expect(Framing.maximumPayloadLength == 16_384 && Framing.maximumFrameLength == 16_396)
        #expect(FrameDecoder().capacity == 2 * 16_396)
        #expect(SyncMessage.maximumChunkLength == 12_288 && SyncMessage.maximumListLength == 256)
        #expect(SyncMessage.lowestVersion == 3 && SyncMessage.highestVersion == 5 && SyncMessage.statusVersion == 4 && SyncMessage.storageVersion == 5)
        #expect(SyncMessage.maximumRecordingCount == 8)
        #expect(SessionCoding.version == 3 && SessionCoding.currentVersions == [2, 3])
        #expect(SessionCoding.maximumRawLength == 16 << 20 && SessionCoding.maximumSeconds == 172_800)
        #expect(SessionCoding.maximumRawBlocks == 100_000 && SessionCoding.maximumRawValues == 4 << 20)
        #expect(RawBlock.maximumSamples == 65_536 && RawBlock.rateRangeMillihertz == 1_000 ... 10_000_000 && RawBlock.maximumStartMilliseconds == 172_800_000)
        #expect(BandLinkConnection.prologue == Array("Amble sync 2".utf8))
        #expect(NoisePattern.xx.protocolName == "Noise_XX_25519_ChaChaPoly_SHA256")
        #expect(NoisePattern.ik.protocolName == "Noise_IK_25519_ChaChaPoly_SHA256")
        #expect(PairingCodes.commitmentLabel == Array("Amble pairing v1: responder nonce commitment".utf8))
        #expect(PairingCodes.comparisonLabel == Array("Amble pairing v1: 6-digit comparison code".utf8))
        #expect(PairingCodes.passkeyLabel == Array("Amble pairing v1: 4-digit passkey".utf8))
        for text in ["Amble sync 2", "Noise_XX_25519_ChaChaPoly_SHA256", "Noise_IK_25519_ChaChaPoly_SHA256",
                     "Amble pairing v1: responder nonce commitment", "Amble pairing v1: 6-digit comparison code",
                     "Amble pairing v1: 4-digit passkey"] {
            let found = doc.contains("`\(text)`")
            #expect(found, "docs/protocol.md does not name `\(text)`")
        }
        let limits = BandLinkLimits()
        #expect(limits.handshakeSeconds == 10 && limits.pairingSeconds == 180 && limits.idleSeconds == 60 && limits.partialFrameSeconds == 5)
        #expect(limits.silentSeconds == 10 && BandLinkLimits.serial(baudRate: 115_200).silentSeconds == nil)
        // Serial lines: twice the longest frame's time at 10 bits a byte, at least 5 s.
        #expect(BandLinkLimits.serial(baudRate: 115_200).partialFrameSeconds == 5)
        #expect(abs(BandLinkLimits.serial(baudRate: 9600).partialFrameSeconds - 34.16) < 0.01)
        #expect(abs(BandLinkLimits.serial(baudRate: 38_400).partialFrameSeconds - 8.54) < 0.01)
    }

    /// The pairing-code example: its inputs give the codes the doc prints.
    @Test func thePairingCodeExample() throws {
        let doc = try Self.readDoc()
        let codes = try ProtocolDocExamples.exampleCodes()
        let comparison = doc.contains("comparison code `\(codes.comparisonDigits)`")
        #expect(comparison, "the comparison code is \(codes.comparisonDigits)")
        let passkey = doc.contains("passkey `\(codes.passkeyDigits)`")
        #expect(passkey, "the passkey is \(codes.passkeyDigits)")
        let pattern = codes.passkeyBuzzPattern.map { group in group.map { $0 == .long ? "long" : "short" }.joined(separator: " ") }
        let buzz = "buzzed as " + pattern.map { "(\($0))" }.joined(separator: ", ")
        let found = doc.contains(buzz)
        #expect(found, "the doc should say: \(buzz)")
    }

    /// The worked examples read back as the doc explains them.
    @Test func theExamplesReadBack() throws {
        let examples = try ProtocolDocExamples.all()
        let request = try SyncMessage.decode(examples["plain-chunk-request"]!)
        #expect(request.number == 2 && request.message == .getChunk(sessionID: 5, offset: 300, maximumLength: 12_288))
        #expect(Refusal(payload: Array(examples["frame-refusal-busy"]!.dropFirst(8).dropLast(4))) == Refusal(code: .busy, message: "busy"))
        // The session data: version, raw length, then zlib at level 9 ("78 da").
        let session = ProtocolDocExamples.tinySession
        let data = SessionCoding.encode(session)
        #expect(try SessionCoding.decode(data) == SessionCoding.quantized(session))
        #expect(try ProtocolDocExamples.inflated(data) == examples["session-summary"]! + examples["session-seconds"]!)
        #expect(examples["session-data-start"]! == [2, 112, 0x78, 0xDA])
        // With raw samples: version 3, the same columns, then the raw section.
        let withRaw = SessionCoding.encode(ProtocolDocExamples.tinySessionWithRaw)
        #expect(withRaw[0] == 3)
        #expect(try SessionCoding.decode(withRaw) == SessionCoding.quantized(ProtocolDocExamples.tinySessionWithRaw))
        #expect(try ProtocolDocExamples.inflated(withRaw) == examples["session-summary"]! + examples["session-seconds"]! + examples["session-raw"]!)
        // The pairing example's first words are below the rejection bound, so they give the codes.
        let codes = try ProtocolDocExamples.exampleCodes()
        let comparisonWord = examples["pairing-comparison-word"]!.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let passkeyWord = examples["pairing-passkey-word"]!.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(UInt64(codes.comparisonCode) == comparisonWord % 1_000_000 && UInt64(codes.passkey) == passkeyWord % 10_000)
        #expect(try PairingCodes(handshakeHash: ProtocolDocExamples.exampleHash, initiatorNonce: ProtocolDocExamples.exampleLaptopNonce,
                                 responderNonce: ProtocolDocExamples.exampleBandNonce, responderCommitment: examples["pairing-commitment"]!) == codes)
        // The sealed request opens to the plaintext shown, on the band's side of the channel.
        let opened = try ProtocolDocExamples.openedExampleRequest()
        #expect(opened == examples["plain-hello"]!)
    }
}

/// The values docs/protocol.md shows, built with the code.
enum ProtocolDocExamples {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { let s = String($0, radix: 16); return s.count == 1 ? "0" + s : s }.joined(separator: " ")
    }

    /// One message of each type, for the table.
    static let everyMessage: [SyncMessage] = [
        .hello(lowestVersion: 3, highestVersion: 4, client: "amble"), .listSessions(afterID: 0),
        .getChunk(sessionID: 5, offset: 300, maximumLength: 12_288), .acknowledge(sessionID: 5), .getSettings,
        .setSetting(key: "metronome", value: "on"), .setClock(unixSeconds: 1_800_000_000), .deleteAll(.request),
        .getStatus, .getStorage, .pairingVerdict(accepted: true), .pairingStatus,
        .welcome(version: 4, bandID: "0d1f", bandName: "Band", bandUnixSeconds: 1_800_000_000), .sessionList([], more: false),
        .chunk(sessionID: 5, offset: 300, totalLength: 304, bytes: [1]), .acknowledged(sessionID: 5), .settings([]),
        .clockSet(offsetSeconds: 0), .deleteAllState(.none), .status(recording: []), .storage(.sound, message: ""), .pairingReveal(nonce: [], bandID: "", bandName: ""),
        .pairingState(.paired), .failure(code: .notFound, message: ""),
    ]

    /// A four-second walk: seconds 0, 1, 2 and 5 (3 and 4 were not recorded), one without a
    /// heart rate, the last one paused.
    static let tinySession = SessionRecord(
        summary: SessionSummary(
            kind: .mindfulWalk, startUnixSeconds: 1_800_000_000, endUnixSeconds: 1_800_000_006,
            parameters: SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7),
            steps: 4, distanceMeters: 2.8, averageHeartRateBPM: 72.75, alerts: 1, timeOverLimitSeconds: 1, gapSeconds: 1,
            maximumHeartRateBPM: 73, walkingSeconds: 3, pauses: 1, pausedSeconds: 1),
        seconds: [
            SessionSecond(offsetSeconds: 0, steps: 1, cadenceStepsPerMinute: 100, heartRateBPM: 72.5, heartRateConfidence: 0.9),
            SessionSecond(offsetSeconds: 1, steps: 2, cadenceStepsPerMinute: 100.3, heartRateBPM: 72.7, heartRateConfidence: 0.85, overLimit: true, alerts: 1),
            SessionSecond(offsetSeconds: 2, steps: 1, cadenceStepsPerMinute: 99.9, heartRateGap: true),
            SessionSecond(offsetSeconds: 5, steps: 0, cadenceStepsPerMinute: 0, heartRateBPM: 73, heartRateConfidence: 0.8, accelerometerGap: true, paused: true),
        ])

    /// The tiny walk with raw samples: three accelerometer samples at 50 Hz from 4 ms, two PPG
    /// samples (infrared, red) at 100 Hz from 2 ms.
    static let tinySessionWithRaw: SessionRecord = {
        var record = tinySession
        record.raw = [
            RawBlock(sensor: .accelerometer, startMilliseconds: 4, rateMillihertz: 50_000, channels: 3,
                     values: [12, -980, 150, 20, -985, 148, 25, -1000, 151]),
            RawBlock(sensor: .ppg, startMilliseconds: 2, rateMillihertz: 100_000, channels: 2, values: [120_000, 98_000, 120_013, 97_990]),
        ]
        return record
    }()

    static func bigEndian(_ word: UInt64) -> [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64($0))) }
    }

    /// Fixed keys for the sealed example (never use such keys for real): the 32 bytes
    /// `first`, `first + 1`, ...
    static func fixedKeyPair(startingAt first: UInt8) throws -> NoiseKeyPair {
        try NoiseKeyPair(privateKey: (0 ..< 32).map { first &+ UInt8($0) })
    }

    /// The pairing-code example's inputs: a made-up handshake hash and the two nonces.
    static let exampleHash = (0 ..< 32).map { UInt8($0) }
    static let exampleLaptopNonce = [UInt8](repeating: 0x11, count: 32)
    static let exampleBandNonce = [UInt8](repeating: 0x24, count: 32)

    static func exampleCodes() throws -> PairingCodes {
        try PairingCodes(handshakeHash: exampleHash, initiatorNonce: exampleLaptopNonce, responderNonce: exampleBandNonce)
    }

    /// The columns inside encoded session data (its zlib stream inflated).
    static func inflated(_ data: [UInt8]) throws -> [UInt8] {
        var outer = BinaryReader(data)
        _ = try outer.byte()
        let length = try outer.count(limit: SessionCoding.maximumRawLength)
        return try SessionCoding.decompress(try outer.raw(outer.remaining), expectedLength: length)
    }

    /// Both sides of an IK handshake with the fixed keys.
    static func fixedConnection() throws -> (first: [UInt8], second: [UInt8], laptop: SecureChannel, band: SecureChannel) {
        let laptopKey = try fixedKeyPair(startingAt: 0x00), bandKey = try fixedKeyPair(startingAt: 0x20)
        var laptop = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: laptopKey,
                                             remoteStaticKey: bandKey.publicKey, fixedEphemeralKey: try fixedKeyPair(startingAt: 0x40))
        var band = try NoiseHandshakeState(pattern: .ik, role: .responder, prologue: BandLinkConnection.prologue, localStaticKey: bandKey,
                                           fixedEphemeralKey: try fixedKeyPair(startingAt: 0x60))
        let first = try laptop.writeMessage(payload: [])
        _ = try band.readMessage(first.message)
        let second = try band.writeMessage(payload: [])
        let finished = try laptop.readMessage(second.message)
        guard let laptopTransport = finished.transport, let bandTransport = second.transport else {
            throw NoiseError.wrongState("the example handshake did not complete")
        }
        return (first.message, second.message, SecureChannel(laptopTransport), SecureChannel(bandTransport))
    }

    /// The example's sealed request, opened by the band.
    static func openedExampleRequest() throws -> [UInt8] {
        var connection = try fixedConnection()
        let frame = try all()["frame-secure-request"]!
        return try connection.band.open(Array(frame[Framing.headerLength ..< frame.count - Framing.trailerLength]))
    }

    /// Every hex block of the doc by name, built with the code.
    static func all() throws -> [String: [UInt8]] {
        var values: [String: [UInt8]] = [:]
        values["frame-refusal-busy"] = Refusal(code: .busy, message: "busy").frame
        values["plain-hello"] = SyncMessage.hello(lowestVersion: 3, highestVersion: 4, client: "amble").encoded(number: 1)
        values["plain-welcome"] = SyncMessage.welcome(version: 4, bandID: "0d1f", bandName: "Band", bandUnixSeconds: 1_800_000_000.5).encoded(number: 1)
        values["plain-list-request"] = SyncMessage.listSessions(afterID: 0).encoded(number: 1)
        values["plain-list-answer"] = SyncMessage.sessionList([], more: false).encoded(number: 1)
        values["plain-chunk-request"] = SyncMessage.getChunk(sessionID: 5, offset: 300, maximumLength: 12_288).encoded(number: 2)
        values["plain-chunk-answer"] = SyncMessage.chunk(sessionID: 5, offset: 300, totalLength: 304, bytes: [0x9c, 0x41, 0x07, 0x3e]).encoded(number: 2)
        values["plain-failure"] = SyncMessage.failure(code: .notFound, message: "no finished session 5 on this band").encoded(number: 2)
        values["plain-status-request"] = SyncMessage.getStatus.encoded(number: 9)
        values["plain-status-answer"] = SyncMessage.status(recording: [
            SyncMessage.RecordingEntry(id: 6, kind: "mindful-walk", startUnixSeconds: 1_800_000_600, recordedSeconds: 300),
        ]).encoded(number: 9)

        // Session data: the summary and the seconds before compression, and the start of the
        // encoded bytes (version, raw length, zlib header).
        var summary = BinaryWriter()
        SessionCoding.writeSummary(tinySession.summary, into: &summary)
        let encoded = SessionCoding.encode(tinySession)
        let columns = try inflated(encoded)
        values["session-summary"] = Array(columns.prefix(summary.bytes.count))
        values["session-seconds"] = Array(columns.dropFirst(summary.bytes.count))
        let withRaw = try inflated(SessionCoding.encode(tinySessionWithRaw))
        values["session-raw"] = Array(withRaw.dropFirst(columns.count))
        var header = BinaryWriter()
        header.byte(encoded[0])
        header.varint(columns.count)
        values["session-data-start"] = Array(encoded.prefix(header.bytes.count + 2))

        // Pairing: the commitment to the band's nonce, and the first 64-bit word of each
        // code's HKDF output.
        let salt = exampleLaptopNonce + exampleBandNonce
        values["pairing-commitment"] = try PairingCodes.commitment(toResponderNonce: exampleBandNonce)
        values["pairing-comparison-word"] = bigEndian(PairingCodes.words(exampleHash, salt: salt, label: PairingCodes.comparisonLabel)[0])
        values["pairing-passkey-word"] = bigEndian(PairingCodes.words(exampleHash, salt: salt, label: PairingCodes.passkeyLabel)[0])

        // An IK connection with fixed keys: the keys, the two handshake frames, then the
        // first request and its answer, sealed.
        let laptopKey = try fixedKeyPair(startingAt: 0x00), bandKey = try fixedKeyPair(startingAt: 0x20)
        values["key-laptop-private"] = laptopKey.privateKey
        values["key-laptop-public"] = laptopKey.publicKey
        values["key-band-private"] = bandKey.privateKey
        values["key-band-public"] = bandKey.publicKey
        values["key-laptop-ephemeral-private"] = try fixedKeyPair(startingAt: 0x40).privateKey
        values["key-band-ephemeral-private"] = try fixedKeyPair(startingAt: 0x60).privateKey
        var connection = try fixedConnection()
        values["frame-ik-1"] = Framing.frame(.connect, connection.first)
        values["frame-ik-2"] = Framing.frame(.connect, connection.second)
        values["frame-secure-request"] = Framing.frame(.secure, try connection.laptop.seal(values["plain-hello"]!))
        values["frame-secure-answer"] = Framing.frame(.secure, try connection.band.seal(values["plain-welcome"]!))
        return values
    }
}
