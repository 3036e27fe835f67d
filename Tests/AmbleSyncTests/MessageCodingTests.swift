import AmbleModel
@testable import AmbleSync
import Testing

struct MessageCodingTests {
    static let summary = testRecord(seconds: 10).summary

    static let every: [SyncMessage] = [
        .hello(lowestVersion: 2, highestVersion: 3, client: "amble 0.2"),
        .listSessions(afterID: 0), .listSessions(afterID: 1_234_567),
        .getChunk(sessionID: 7, offset: 12_288, maximumLength: 12_288),
        .acknowledge(sessionID: 7), .getSettings, .setSetting(key: "reduction_percent", value: "25"),
        .setClock(unixSeconds: 1_795_000_000.25), .deleteAll(.request), .deleteAll(.status),
        .pairingVerdict(accepted: true), .pairingVerdict(accepted: false), .pairingStatus, .getStatus, .getStorage,
        .status(recording: []), .storage(.sound, message: ""), .storage(.damaged, message: "session 4 cannot be read"),
        .status(recording: [SyncMessage.RecordingEntry(id: 12, kind: "mindful-walk", startUnixSeconds: 1_795_000_000.5, recordedSeconds: 754)]),
        .welcome(version: 2, bandID: "0d1f", bandName: "Anna's band", bandUnixSeconds: 1_795_000_000.5),
        .sessionList([], more: false),
        .sessionList([SyncMessage.SessionEntry(id: 3, summary: summary, dataLength: 812, dataCRC32: 0xDEAD_BEEF, synced: true)], more: true),
        .chunk(sessionID: 3, offset: 0, totalLength: 812, bytes: [1, 2, 3]), .acknowledged(sessionID: 3),
        .settings([SyncMessage.SettingValue(key: "metronome", value: "on")]), .clockSet(offsetSeconds: -3600.5),
        .deleteAllState(.awaitingWearer), .deleteAllState(.done),
        .pairingReveal(nonce: Array(repeating: 9, count: 32), bandID: "0d1f", bandName: "Band"), .pairingState(.paired),
        .failure(code: .notFound, message: "no finished session 9 on this band"),
    ]

    @Test func everyMessageRoundTrips() throws {
        for (index, message) in Self.every.enumerated() {
            let bytes = message.encoded(number: UInt32(index * 1000))
            let decoded = try SyncMessage.decode(bytes)
            #expect(decoded.number == UInt32(index * 1000))
            #expect(decoded.message == message)
        }
    }

    @Test func aWorkedExampleIsByteForByte() {
        // docs/protocol.md, "A worked example": request 1, list sessions after 0.
        #expect(SyncMessage.listSessions(afterID: 0).encoded(number: 1) == [0x01, 0x02, 0x00])
        // Request 2, a chunk of session 5 from byte 300, up to 12288 bytes.
        #expect(SyncMessage.getChunk(sessionID: 5, offset: 300, maximumLength: 12_288).encoded(number: 2)
                == [0x02, 0x03, 0x0A, 0xAC, 0x02, 0x80, 0x60])
    }

    @Test func truncatedOrExtendedMessagesAreRefused() {
        for message in Self.every {
            let bytes = message.encoded(number: 1)
            for cut in 0 ..< bytes.count {
                #expect(throws: CodingError.self) { try SyncMessage.decode(Array(bytes.prefix(cut))) }
            }
            #expect(throws: CodingError.self) { try SyncMessage.decode(bytes + [0]) }
        }
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var generator = SplitMix64(seed: 11)
        for _ in 0 ..< 20_000 {
            let count = Int(generator.next() % 64)
            let bytes = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? SyncMessage.decode(bytes)
            _ = try? SessionCoding.decode([SessionCoding.version] + bytes)
        }
    }

    @Test func hostileLengthsAllocateNothing() {
        // A list declaring 2^62 entries, a chunk declaring 2^62 bytes.
        var list = BinaryWriter(); list.varint(1); list.byte(0x82); list.varint(UInt64(1) << 62)
        #expect(throws: CodingError.self) { try SyncMessage.decode(list.bytes) }
        var chunk = BinaryWriter(); chunk.varint(1); chunk.byte(0x83); chunk.signed(1); chunk.varint(0); chunk.varint(10); chunk.varint(UInt64(1) << 62)
        #expect(throws: CodingError.self) { try SyncMessage.decode(chunk.bytes) }
    }

    @Test func sessionDataRoundTripsInItsFixedPoint() throws {
        let record = testRecord(seconds: 3600, seed: 4)
        let bytes = SessionCoding.encode(record)
        #expect(try SessionCoding.decode(bytes) == SessionCoding.quantized(record))
        let quantized = SessionCoding.quantized(record)
        for (a, b) in zip(record.seconds, quantized.seconds) {
            #expect(abs(a.cadenceStepsPerMinute - b.cadenceStepsPerMinute) <= 0.05)
            #expect(abs((a.heartRateBPM ?? 0) - (b.heartRateBPM ?? 0)) <= 0.05)
        }
        #expect(quantized.summary == record.summary, "the summary keeps full precision")
        // Compact: a few bytes per recorded second (the JSON of version 1 took 223).
        #expect(Double(bytes.count) / 3600 < 8)
    }

    @Test func whateverAStoreHoldsEncodesToSomethingTheDecoderTakes() throws {
        var record = testRecord(seconds: 50)
        record.seconds[3].steps = 5000
        record.seconds[4].alerts = -2
        record.seconds[5].cadenceStepsPerMinute = .nan
        record.seconds[6].heartRateBPM = .infinity
        record.seconds[7].offsetSeconds = 2          // out of order and a repeat
        record.seconds.append(SessionSecond(offsetSeconds: SessionCoding.maximumSeconds + 5, steps: 1, cadenceStepsPerMinute: 90))
        record.summary.distanceMeters = .nan
        record.summary.averageHeartRateBPM = -.infinity
        record.summary.steps = -1
        let decoded = try SessionCoding.decode(SessionCoding.encode(record))
        #expect(decoded == SessionCoding.quantized(record))
        #expect(decoded.seconds.map(\.offsetSeconds) == Array(Set(decoded.seconds.map(\.offsetSeconds))).sorted())
        #expect(decoded.seconds.count == 49, "the repeat and the second beyond two days are dropped")
        #expect(decoded.summary.averageHeartRateBPM == nil && decoded.summary.distanceMeters == 0 && decoded.summary.steps == 0)
    }

    @Test func damagedSessionDataIsRefused() {
        var bytes = SessionCoding.encode(testRecord(seconds: 300))
        bytes[bytes.count / 2] ^= 0xFF
        #expect(throws: CodingError.self) { try SessionCoding.decode(bytes) }
    }
}
