import AmbleModel
@testable import AmbleSync
import Testing

struct FramingTests {
    let payloads: [[UInt8]] = [[], [1, 2, 3], Array(repeating: 0x41, count: 300), (0 ..< 2000).map { UInt8($0 % 251) }]

    func frames(_ events: [FrameDecoder.Event]) -> [[UInt8]] {
        events.compactMap { if case .frame(_, let p) = $0 { return p } else { return nil } }
    }

    @Test func decodesFramesFedOneByteAtATime() {
        var decoder = FrameDecoder()
        var got: [[UInt8]] = []
        for payload in payloads {
            for byte in Framing.frame(.secure, payload) { got += frames(decoder.feed([byte])) }
        }
        #expect(got == payloads)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func theHeaderIsLaidOutAsDocumented() {
        let frame = Framing.frame(.pair, [0xAA, 0xBB])
        // docs/protocol.md: "AM" | version | kind | length u16 BE | check u16 | payload | CRC-32 BE
        #expect(Array(frame.prefix(6)) == [0x41, 0x4D, 2, 0x01, 0x00, 0x02])
        let check = UInt16(truncatingIfNeeded: CRC32.checksum(frame.prefix(6)))
        #expect(frame[6] == UInt8(check >> 8) && frame[7] == UInt8(check & 0xFF))
        let crc = CRC32.checksum([0xAA, 0xBB])
        #expect(Array(frame.suffix(4)) == [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(frame.count == Framing.headerLength + 2 + Framing.trailerLength)
    }

    @Test func skipsLineNoiseAndFindsTheNextFrame() {
        var decoder = FrameDecoder()
        let events = decoder.feed([0x00, 0x41, 0xFF, 0x13] + Framing.frame(.secure, payloads[1]) + [0x41])
        #expect(frames(events) == [payloads[1]])
        #expect(events.contains { if case .discarded(_, .noFrameStart) = $0 { return true } else { return false } })
    }

    @Test func aDamagedPayloadIsReportedAsDamaged() {
        var decoder = FrameDecoder()
        var damaged = Framing.frame(.secure, payloads[2])
        damaged[20] ^= 0x20
        let events = decoder.feed(damaged + Framing.frame(.secure, payloads[1]))
        #expect(frames(events) == [payloads[1]])
        #expect(events.contains { if case .discarded(_, .damaged) = $0 { return true } else { return false } })
    }

    @Test func aCorruptedLengthDoesNotStallTheDecoder() {
        var decoder = FrameDecoder()
        var corrupted = Framing.frame(.secure, payloads[1])
        corrupted[4] ^= 0x10
        var got = frames(decoder.feed(corrupted))
        for _ in 0 ..< 5 { got += frames(decoder.feed(Framing.frame(.secure, payloads[1]))) }
        #expect(got.count == 5, "every good frame after the bad one arrives")
    }

    @Test func aHeaderDeclaringMoreThanTheLimitIsSkipped() {
        var decoder = FrameDecoder()
        // The 9-byte header of the old link that declared 60,000 bytes, in today's layout.
        var header: [UInt8] = [0x41, 0x4D, Framing.version, FrameKind.secure.rawValue, 0xEA, 0x60]
        let check = Framing.headerCheck(header[...])
        header += [UInt8(check >> 8), UInt8(check & 0xFF)]
        let events = decoder.feed(header + Framing.frame(.secure, payloads[1]))
        #expect(frames(events) == [payloads[1]])
        #expect(events.contains { if case .discarded(_, .tooLong(60_000)) = $0 { return true } else { return false } })
    }

    @Test func theDecoderHoldsNoMoreThanItsCapacity() {
        var decoder = FrameDecoder()
        let refused = decoder.append(Array(repeating: 0x41, count: decoder.capacity + 1000))
        #expect(refused == 1000)
        #expect(decoder.freeCapacity == 0)
        while decoder.next() != nil {}
        #expect(decoder.bufferedByteCount <= 1)
    }

    @Test func crcMatchesZlib() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
