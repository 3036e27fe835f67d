import AmbleModel
import Foundation
@testable import AmbleSync
import Testing

/// Session data version 3: raw samples after the seconds.
struct RawCodingTests {
    /// A minute of a walk's raw samples: accelerometer at 50 Hz, PPG (two channels) at 100 Hz,
    /// in blocks of 5 s.
    static func rawMinute(seed: UInt64 = 3) -> [RawBlock] {
        var generator = SplitMix64(seed: seed)
        var blocks: [RawBlock] = []
        for b in 0 ..< 12 {
            var acceleration: [Int32] = [], ppg: [Int32] = []
            for i in 0 ..< 250 {
                let t = Double(b * 250 + i) / 50
                let noise = Int32(truncatingIfNeeded: generator.next() % 21) - 10
                acceleration += [Int32(300 * sin(t * 5.8)) + noise, Int32(-980 + 200 * sin(t * 11.6)) + noise, Int32(150 * cos(t * 5.8)) - noise]
            }
            for i in 0 ..< 500 {
                let t = Double(b * 500 + i) / 100
                let noise = Int32(truncatingIfNeeded: generator.next() % 41)
                ppg += [120_000 + Int32(800 * sin(t * 7.5)) + noise, 98_000 + Int32(500 * sin(t * 7.5)) + noise]
            }
            blocks.append(RawBlock(sensor: .accelerometer, startMilliseconds: b * 5000 + 7, rateMillihertz: 49_950, channels: 3, values: acceleration))
            blocks.append(RawBlock(sensor: .ppg, startMilliseconds: b * 5000 + 3, rateMillihertz: 100_020, channels: 2, values: ppg))
        }
        return blocks
    }

    @Test func rawSamplesRoundTripExactly() throws {
        var record = testRecord(seconds: 60)
        record.raw = Self.rawMinute()
        let bytes = SessionCoding.encode(record)
        #expect(bytes[0] == 3, "version 3 with raw samples")
        let decoded = try SessionCoding.decode(bytes)
        #expect(decoded == SessionCoding.quantized(record))
        #expect(decoded.raw == record.raw, "raw values are kept exactly")
        #expect(decoded.raw.sampleCount(of: .accelerometer) == 3000 && decoded.raw.sampleCount(of: .ppg) == 6000)
    }

    @Test func aSessionWithoutRawSamplesIsVersion2ByteForByte() throws {
        let record = testRecord(seconds: 120)
        let bytes = SessionCoding.encode(record)
        #expect(bytes[0] == 2, "an older laptop still reads it")
        #expect(try SessionCoding.decode(bytes).raw.isEmpty)
    }

    @Test func truncatedOrGarbageRawSectionsAreRefusedWithoutACrash() throws {
        var record = testRecord(seconds: 5)
        record.raw = Array(Self.rawMinute().prefix(2))
        // The columns inflated, cut anywhere in the raw section, and compressed again.
        let full = try inflated(SessionCoding.encode(record))
        let rawStart = try inflated(SessionCoding.encode(testRecord(seconds: 5))).count
        for cut in stride(from: rawStart, to: full.count, by: 7) {
            #expect(throws: CodingError.self) { try SessionCoding.decode(Self.sessionData(Array(full.prefix(cut)))) }
        }
        // Bytes after the last block.
        #expect(throws: CodingError.self) { try SessionCoding.decode(Self.sessionData(full + [0])) }
        // Random raw sections never crash the decoder.
        var generator = SplitMix64(seed: 5)
        for _ in 0 ..< 5000 {
            let count = Int(generator.next() % 48)
            let garbage = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? SessionCoding.decode(Self.sessionData(Array(full.prefix(rawStart)) + garbage))
        }
    }

    @Test func hostileCountsAndValuesAreRefusedBeforeAnythingIsAllocated() throws {
        let prefix = try inflated(SessionCoding.encode(testRecord(seconds: 3)))
        func section(_ build: (inout BinaryWriter) -> Void) -> [UInt8] {
            var w = BinaryWriter()
            build(&w)
            return Self.sessionData(prefix + w.bytes)
        }
        let cases: [(String, [UInt8])] = [
            ("2^40 blocks", section { $0.varint(UInt64(1) << 40) }),
            ("a block claiming 65 536 samples in 3 bytes", section { $0.varint(1); $0.byte(1); $0.varint(0); $0.varint(50_000); $0.byte(3); $0.varint(65_536); $0.raw([0, 0, 0]) }),
            ("more samples than a block holds", section { $0.varint(1); $0.byte(1); $0.varint(0); $0.varint(50_000); $0.byte(3); $0.varint(65_537) }),
            ("sensor 7", section { $0.varint(1); $0.byte(7) }),
            ("an accelerometer with 2 channels", section { $0.varint(1); $0.byte(1); $0.varint(0); $0.varint(50_000); $0.byte(2); $0.varint(1); $0.raw([0, 0]) }),
            ("a rate of 0", section { $0.varint(1); $0.byte(2); $0.varint(0); $0.varint(0); $0.byte(1); $0.varint(1); $0.raw([0]) }),
            ("no samples", section { $0.varint(1); $0.byte(2); $0.varint(0); $0.varint(100_000); $0.byte(1); $0.varint(0) }),
            ("mg beyond 16 bits", section { $0.varint(1); $0.byte(1); $0.varint(0); $0.varint(50_000); $0.byte(3); $0.varint(1); $0.signed(40_000); $0.signed(0); $0.signed(0) }),
            ("a negative count", section { $0.varint(1); $0.byte(2); $0.varint(0); $0.varint(100_000); $0.byte(1); $0.varint(2); $0.signed(5); $0.signed(-6) }),
            ("differences that overflow", section { $0.varint(1); $0.byte(2); $0.varint(0); $0.varint(100_000); $0.byte(1); $0.varint(2); $0.signed(.max); $0.signed(.max) }),
        ]
        for (name, bytes) in cases {
            #expect(throws: CodingError.self, "\(name)") { try SessionCoding.decode(bytes) }
        }
        // The limit on values in a session: blocks within their own limits that add up beyond it.
        #expect(SessionCoding.maximumRawValues == 4 << 20)
    }

    @Test func theEncoderKeepsOnlyWhatTheDecoderTakes() throws {
        var record = testRecord(seconds: 10)
        let good = Self.rawMinute()[0]
        var invalid = good
        invalid.channels = 2
        record.raw = [good, invalid, good]
        let decoded = try SessionCoding.decode(SessionCoding.encode(record))
        #expect(decoded.raw == [good, good], "an invalid block is left out")
        // Past the limit on values, the blocks after it are left out.
        let big = RawBlock(sensor: .ppg, startMilliseconds: 0, rateMillihertz: 100_000, channels: 1, values: [Int32](repeating: 7, count: RawBlock.maximumSamples))
        record.raw = Array(repeating: big, count: SessionCoding.maximumRawValues / RawBlock.maximumSamples + 3)
        let capped = try SessionCoding.decode(SessionCoding.encode(record))
        #expect(capped.raw.count == SessionCoding.maximumRawValues / RawBlock.maximumSamples)
    }

    static func sessionData(_ columns: [UInt8]) -> [UInt8] {
        var w = BinaryWriter()
        w.byte(3)
        w.varint(columns.count)
        w.raw(SessionCoding.compress(columns))
        return w.bytes
    }

    func inflated(_ data: [UInt8]) throws -> [UInt8] {
        var outer = BinaryReader(data)
        _ = try outer.byte()
        let length = try outer.count(limit: SessionCoding.maximumRawLength)
        return try SessionCoding.decompress(try outer.raw(outer.remaining), expectedLength: length)
    }
}
