import AmbleModel
import AmbleSync
import Testing

struct FramingTests {
    let messages: [SyncMessage] = [
        .hello(protocolVersion: 1, client: "amble"),
        .listSessions(afterID: nil),
        .getSession(id: 42),
        .failure(code: .notFound, message: "no session 42 here"),
    ]

    @Test func decodesFramesFedOneByteAtATime() throws {
        var decoder = FrameDecoder()
        var got: [SyncMessage] = []
        for message in messages {
            for byte in Framing.frame(try message.encoded()) {
                for event in decoder.feed([byte]) {
                    guard case .frame(let payload) = event else { Issue.record("unexpected \(event)"); continue }
                    got.append(try SyncMessage.decode(payload))
                }
            }
        }
        #expect(got == messages)
    }

    @Test func skipsLineNoiseAndFindsTheNextFrame() throws {
        var decoder = FrameDecoder()
        let frame = Framing.frame(try messages[2].encoded())
        let events = decoder.feed([0x00, 0x41, 0xFF, 0x13] + frame + [0x41])
        let frames = events.compactMap { if case .frame(let p) = $0 { return p } else { return nil } }
        #expect(frames.count == 1)
        #expect(try SyncMessage.decode(frames[0]) == messages[2])
        #expect(events.contains { if case .discarded = $0 { return true } else { return false } })
    }

    @Test func dropsAFrameWithABadChecksum() throws {
        var decoder = FrameDecoder()
        var corrupted = Framing.frame(try messages[0].encoded())
        corrupted[10] ^= 0x20
        let good = Framing.frame(try messages[1].encoded())
        let frames = decoder.feed(corrupted + good).compactMap { if case .frame(let p) = $0 { return p } else { return nil } }
        #expect(frames.count == 1)
        #expect(try SyncMessage.decode(frames[0]) == messages[1])
    }

    @Test func aCorruptedLengthDoesNotStallTheDecoder() throws {
        var decoder = FrameDecoder()
        var corrupted = Framing.frame(try messages[0].encoded())
        corrupted[3] ^= 0x10  // the length's high byte: 256 MB would never arrive
        var frames = decoder.feed(corrupted).compactMap { if case .frame(let p) = $0 { return p } else { return nil } }
        for _ in 0..<5 {
            frames += decoder.feed(Framing.frame(try messages[1].encoded())).compactMap { if case .frame(let p) = $0 { return p } else { return nil } }
        }
        #expect(frames.count == 5, "every good frame after the bad one arrives")
    }

    @Test func refusesFramesLargerThanItsLimit() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 100)
        let big = Framing.frame(Array(repeating: 0x20, count: 500))
        let small = Framing.frame(try messages[1].encoded())
        let frames = decoder.feed(big + small).compactMap { if case .frame(let p) = $0 { return p } else { return nil } }
        #expect(frames.count == 1)
        #expect(try SyncMessage.decode(frames[0]) == messages[1])
    }

    @Test func crcMatchesZlib() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
