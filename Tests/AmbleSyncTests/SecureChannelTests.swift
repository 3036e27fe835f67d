@testable import AmbleSync
import Testing

struct SecureChannelTests {
    /// The laptop's and the band's channels after an XX handshake.
    func channels() throws -> (laptop: SecureChannel, band: SecureChannel) {
        var pair = try HandshakePair(.xx, initiatorStatic: .generate(), responderStatic: .generate())
        try pair.run()
        return (SecureChannel(try #require(pair.initiatorTransport)), SecureChannel(try #require(pair.responderTransport)))
    }

    @Test func framesGoBothWaysWithCountersFromZero() throws {
        var (laptop, band) = try channels()
        #expect(laptop.handshakeHash == band.handshakeHash)
        for n in UInt64(0)..<5 {
            let request = try laptop.seal(Array("request \(n)".utf8))
            #expect(Array(request.prefix(8)) == [0, 0, 0, 0, 0, 0, 0, UInt8(n)], "big-endian counter")
            #expect(request.count == 8 + "request \(n)".utf8.count + 16)
            #expect(try band.open(request) == Array("request \(n)".utf8))
            let answer = try band.seal([UInt8](repeating: UInt8(n), count: Int(n) * 100))
            #expect(try laptop.open(answer) == [UInt8](repeating: UInt8(n), count: Int(n) * 100))
        }
        #expect(laptop.nextSendCounter == 5 && laptop.nextReceiveCounter == 5)
        #expect(band.nextSendCounter == 5 && band.nextReceiveCounter == 5)
        // An empty payload is a frame too (a keep-alive).
        #expect(try band.open(laptop.seal([])) == [])
    }

    @Test func aReplayedFrameIsRefused() throws {
        var (laptop, band) = try channels()
        let first = try laptop.seal([1])
        _ = try band.open(first)
        #expect(throws: SecureChannelError.replayed(counter: 0, expected: 1)) { try band.open(first) }
        // The channel goes on.
        #expect(try band.open(laptop.seal([2])) == [2])
    }

    @Test func reorderedFramesAreRefusedUntilTheMissingOneArrives() throws {
        var (laptop, band) = try channels()
        let zero = try laptop.seal([0])
        let one = try laptop.seal([1])
        let two = try laptop.seal([2])
        #expect(throws: SecureChannelError.outOfOrder(counter: 1, expected: 0)) { try band.open(one) }
        #expect(throws: SecureChannelError.outOfOrder(counter: 2, expected: 0)) { try band.open(two) }
        #expect(try band.open(zero) == [0])
        #expect(try band.open(one) == [1])
        #expect(try band.open(two) == [2])
    }

    @Test func everyFlippedBitIsDetectedAndTheGenuineFrameStillOpens() throws {
        var (laptop, band) = try channels()
        let frame = try laptop.seal(Array("settings: reduction 20".utf8))
        for index in frame.indices {
            for bit in 0..<8 {
                var tampered = frame
                tampered[index] ^= 1 << bit
                #expect(throws: SecureChannelError.self) { try band.open(tampered) }
            }
        }
        // A changed counter is refused by the counter check, a changed body by the tag.
        var body = frame
        body[12] ^= 0x80
        #expect(throws: SecureChannelError.tampered(counter: 0)) { try band.open(body) }
        #expect(band.nextReceiveCounter == 0)
        #expect(try band.open(frame) == Array("settings: reduction 20".utf8))
    }

    @Test func aFrameMovedToTheOtherDirectionOrAnotherChannelIsRefused() throws {
        var (laptop, band) = try channels()
        var (_, otherBand) = try channels()
        let request = try laptop.seal([7])
        // Reflected back to the laptop: the other direction has its own key.
        #expect(throws: SecureChannelError.tampered(counter: 0)) { try laptop.open(request) }
        // Sent to another session: other keys.
        #expect(throws: SecureChannelError.tampered(counter: 0)) { try otherBand.open(request) }
        #expect(try band.open(request) == [7])
    }

    @Test func lengthsAreBounded() throws {
        var (laptop, band) = try channels()
        #expect(SecureChannel.maximumPayloadLength == 65511)
        let largest = try laptop.seal([UInt8](repeating: 0xAB, count: 65511))
        #expect(largest.count == 65535)
        #expect(try band.open(largest).count == 65511)
        #expect(throws: SecureChannelError.payloadTooLong(byteCount: 65512, limit: 65511)) {
            try laptop.seal([UInt8](repeating: 0, count: 65512))
        }
        #expect(throws: SecureChannelError.frameTooShort(byteCount: 23, minimum: 24)) { try band.open([UInt8](repeating: 0, count: 23)) }
        #expect(throws: SecureChannelError.frameTooShort(byteCount: 0, minimum: 24)) { try band.open([]) }
        #expect(throws: SecureChannelError.frameTooLong(byteCount: 65536, limit: 65535)) {
            try band.open([0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 65528))
        }
    }

    @Test func randomFramesAreRefusedWithoutChangingTheChannel() throws {
        var (laptop, band) = try channels()
        var random = SplitMix64(seed: 4)
        for _ in 0..<2000 {
            let length = Int(random.next() % 120)
            var garbage = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if length >= 8 && random.next() % 2 == 0 { garbage.replaceSubrange(0..<8, with: [UInt8](repeating: 0, count: 8)) }
            #expect(throws: SecureChannelError.self) { try band.open(garbage) }
        }
        #expect(band.nextReceiveCounter == 0)
        #expect(try band.open(laptop.seal([5])) == [5])
    }

    @Test func theCounterRunsOutBeforeTheReservedNonce() throws {
        var pair = try HandshakePair(.xx, initiatorStatic: .generate(), responderStatic: .generate())
        try pair.run()
        var laptopTransport = try #require(pair.initiatorTransport)
        var bandTransport = try #require(pair.responderTransport)
        laptopTransport.sender.setNonce(UInt64.max - 1)
        bandTransport.receiver.setNonce(UInt64.max - 1)
        var laptop = SecureChannel(laptopTransport)
        var band = SecureChannel(bandTransport)
        let last = try laptop.seal([1])
        #expect(Array(last.prefix(8)) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])
        #expect(try band.open(last) == [1])
        #expect(throws: SecureChannelError.counterExhausted) { try laptop.seal([2]) }
        var forged = last
        forged[7] = 0xFF
        #expect(throws: SecureChannelError.self) { try band.open(forged) }
    }
}
