@testable import AmbleSync
import Testing

struct NoiseHandshakeTests {
    let band = NoiseKeyPair.generate()
    let laptop = NoiseKeyPair.generate()

    @Test func xxPairsAndLearnsBothStaticKeys() throws {
        var pair = try HandshakePair(.xx, initiatorStatic: laptop, responderStatic: band)
        try pair.run()
        let laptopSide = try #require(pair.initiatorTransport)
        let bandSide = try #require(pair.responderTransport)
        #expect(laptopSide.remoteStaticKey == band.publicKey)
        #expect(bandSide.remoteStaticKey == laptop.publicKey)
        #expect(laptopSide.handshakeHash == bandSide.handshakeHash)
        #expect(pair.initiator.handshakeHash == laptopSide.handshakeHash)
        try expectTransportWorks(laptopSide, bandSide)
    }

    @Test(arguments: ["IK", "KK"])
    func laterConnectionsUseTheStoredKeys(patternName: String) throws {
        let pattern = try NoisePattern(name: patternName)
        var pair = try HandshakePair(pattern, initiatorStatic: laptop, responderStatic: band,
                                     initiatorKnows: band.publicKey,
                                     responderKnows: pattern == .kk ? laptop.publicKey : nil)
        try pair.run()
        #expect(pattern.messages.count == 2, "one round trip")
        let laptopSide = try #require(pair.initiatorTransport)
        let bandSide = try #require(pair.responderTransport)
        #expect(bandSide.remoteStaticKey == laptop.publicKey)
        try expectTransportWorks(laptopSide, bandSide)
    }

    @Test func ikToAnImpostorBandFails() throws {
        // The laptop believes it talks to `band`; an impostor with another key answers.
        let impostor = NoiseKeyPair.generate()
        var pair = try HandshakePair(.ik, initiatorStatic: laptop, responderStatic: impostor, initiatorKnows: band.publicKey)
        #expect(throws: NoiseError.decryptionFailed) { try pair.step() }
    }

    @Test func kkWithAForgottenLaptopFails() throws {
        // The band has a different laptop key on record (it forgot this laptop and paired another).
        let other = NoiseKeyPair.generate()
        var pair = try HandshakePair(.kk, initiatorStatic: laptop, responderStatic: band,
                                     initiatorKnows: band.publicKey, responderKnows: other.publicKey)
        #expect(throws: NoiseError.decryptionFailed) { try pair.step() }
    }

    @Test func aDifferentPrologueFailsAtTheFirstEncryptedMessage() throws {
        var initiator = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: [1], localStaticKey: laptop)
        var responder = try NoiseHandshakeState(pattern: .xx, role: .responder, prologue: [2], localStaticKey: band)
        _ = try responder.readMessage(initiator.writeMessage(payload: []).message)
        let second = try responder.writeMessage(payload: []).message
        #expect(throws: NoiseError.decryptionFailed) { try initiator.readMessage(second) }
    }

    @Test func everyFlippedBitOfMessageTwoIsRefusedAndAbortsTheHandshake() throws {
        var pair = try HandshakePair(.xx, initiatorStatic: laptop, responderStatic: band)
        try pair.step()
        let second = try pair.responder.writeMessage(payload: Array("hello".utf8)).message
        for index in second.indices {
            var initiator = pair.initiator
            var tampered = second
            tampered[index] ^= 0x01
            #expect(throws: NoiseError.self) { try initiator.readMessage(tampered) }
            // Aborted: even the genuine message is refused now.
            #expect(throws: NoiseError.self) { try initiator.readMessage(second) }
        }
        // The untouched state still takes the genuine message.
        _ = try pair.initiator.readMessage(second)
    }

    @Test func aTamperedEphemeralKeyIsDetectedWhenTheNextTagFails() throws {
        var pair = try HandshakePair(.xx, initiatorStatic: laptop, responderStatic: band)
        var first = try pair.initiator.writeMessage(payload: []).message
        first[5] ^= 0x40
        _ = try pair.responder.readMessage(first)  // message 1 carries no tag: nothing to check yet
        let second = try pair.responder.writeMessage(payload: []).message
        #expect(throws: NoiseError.decryptionFailed) { try pair.initiator.readMessage(second) }
    }

    @Test func replayedMessagesAreRefused() throws {
        var pair = try HandshakePair(.xx, initiatorStatic: laptop, responderStatic: band)
        let first = try pair.step()
        // The same message 1 again: the responder is due to write, not read.
        #expect(throws: NoiseError.self) { try pair.responder.readMessage(first) }
        let second = try pair.step()
        try pair.step()
        #expect(pair.initiator.isComplete && pair.responder.isComplete)
        // Message 2 again after completion.
        #expect(throws: NoiseError.wrongState("the handshake is already complete")) { try pair.initiator.readMessage(second) }

        // Message 2 of that handshake replayed into a new one: other ephemeral keys, so the tag fails.
        var fresh = try HandshakePair(.xx, initiatorStatic: laptop, responderStatic: band)
        _ = try fresh.initiator.writeMessage(payload: [])
        #expect(throws: NoiseError.decryptionFailed) { try fresh.initiator.readMessage(second) }
    }

    @Test func outOfTurnCallsAreRefusedWithoutAborting() throws {
        var initiator = try NoiseHandshakeState(pattern: .xx, role: .initiator, localStaticKey: laptop)
        var responder = try NoiseHandshakeState(pattern: .xx, role: .responder, localStaticKey: band)
        #expect(throws: NoiseError.self) { try initiator.readMessage([UInt8](repeating: 9, count: 32)) }
        #expect(throws: NoiseError.self) { try responder.writeMessage(payload: []) }
        // Both can still go on.
        _ = try responder.readMessage(initiator.writeMessage(payload: []).message)
    }

    @Test func lengthsAreCheckedBeforeAnythingIsRead() throws {
        var pair = try HandshakePair(.xx, initiatorStatic: laptop, responderStatic: band)
        try pair.step()
        // Message 2 of XX: e (32) + encrypted s (48) + payload tag (16) = at least 96 bytes.
        var initiator = pair.initiator
        #expect(throws: NoiseError.messageTooShort(byteCount: 95, minimum: 96)) {
            try initiator.readMessage([UInt8](repeating: 0x55, count: 95))
        }
        initiator = pair.initiator
        #expect(throws: NoiseError.messageTooLong(byteCount: 65536, limit: 65535)) {
            try initiator.readMessage([UInt8](repeating: 0x55, count: 65536))
        }
        initiator = pair.initiator
        #expect(throws: NoiseError.self) { try initiator.readMessage([]) }
    }

    @Test func aPayloadTooLongIsRefusedAndTheHandshakeGoesOn() throws {
        var initiator = try NoiseHandshakeState(pattern: .xx, role: .initiator, localStaticKey: laptop)
        #expect(initiator.maximumPayloadLength == 65535 - 32)
        #expect(throws: NoiseError.messageTooLong(byteCount: 65536, limit: 65535)) {
            try initiator.writeMessage(payload: [UInt8](repeating: 1, count: 65535 - 32 + 1))
        }
        let written = try initiator.writeMessage(payload: [UInt8](repeating: 1, count: 65535 - 32))
        #expect(written.message.count == 65535)
        var responder = try NoiseHandshakeState(pattern: .xx, role: .responder, localStaticKey: band)
        #expect(try responder.readMessage(written.message).payload.count == 65535 - 32)
        #expect(responder.maximumPayloadLength == 65535 - 96)
    }

    @Test func aLowOrderEphemeralKeyIsRefused() throws {
        // u = 0 is a point of small order: X25519 with it gives all zeros.
        let lowOrder = [UInt8](repeating: 0, count: 32)
        var responder = try NoiseHandshakeState(pattern: .xx, role: .responder, localStaticKey: band)
        _ = try responder.readMessage(lowOrder)
        #expect(throws: NoiseError.invalidPublicKey) { try responder.writeMessage(payload: []) }
        #expect(throws: NoiseError.self) { try responder.writeMessage(payload: []) }

        // In IK the responder computes es while reading message 1.
        var ikResponder = try NoiseHandshakeState(pattern: .ik, role: .responder, localStaticKey: band)
        #expect(throws: NoiseError.invalidPublicKey) { try ikResponder.readMessage(lowOrder + [UInt8](repeating: 0, count: 48 + 16)) }
    }

    @Test func keysMustMatchThePattern() throws {
        #expect(throws: NoiseError.self) { try NoiseHandshakeState(pattern: .xx, role: .initiator) }
        #expect(throws: NoiseError.self) { try NoiseHandshakeState(pattern: .ik, role: .initiator, localStaticKey: laptop) }
        #expect(throws: NoiseError.self) {
            try NoiseHandshakeState(pattern: .xx, role: .initiator, localStaticKey: laptop, remoteStaticKey: band.publicKey)
        }
        #expect(throws: NoiseError.self) {
            try NoiseHandshakeState(pattern: .ik, role: .initiator, localStaticKey: laptop, remoteStaticKey: [1, 2, 3])
        }
        #expect(throws: NoiseError.self) { try NoiseHandshakeState(pattern: .init(name: "NN"), role: .initiator, localStaticKey: laptop) }
        #expect(throws: NoiseError.self) { try NoiseHandshakeState(pattern: .init(name: "XXpsk3"), role: .initiator, localStaticKey: laptop) }
        #expect(throws: NoiseError.badKeyLength(what: "Curve25519 private key", byteCount: 31, expected: 32)) {
            try NoiseKeyPair(privateKey: [UInt8](repeating: 7, count: 31))
        }
    }

    @Test func patternNames() throws {
        #expect(try NoisePattern(name: "XX") == .xx)
        #expect(try NoisePattern(name: "XXpsk3").messages == [[.e], [.e, .ee, .s, .es], [.s, .se, .psk]])
        #expect(try NoisePattern(name: "NNpsk0+psk2").messages == [[.psk, .e], [.e, .ee, .psk]])
        #expect(NoisePattern.ik.protocolName == "Noise_IK_25519_ChaChaPoly_SHA256")
        #expect(NoisePattern.kk.description == "KK: -> s; <- s; ...; -> e, es, ss; <- e, ee, se")
        for bad in ["", "ZZ", "XXpsk", "XXpsk9", "XXpsk01", "XX+psk1", "XXfallback", "xx"] {
            #expect(throws: NoiseError.unknownPattern(bad)) { try NoisePattern(name: bad) }
        }
    }

    @Test func randomBytesNeverCrashTheReader() throws {
        var random = SplitMix64(seed: 16)
        for pattern in [NoisePattern.xx, .ik, .kk] {
            for _ in 0..<300 {
                var pair = try HandshakePair(pattern, initiatorStatic: laptop, responderStatic: band,
                                             initiatorKnows: pattern == .xx ? nil : band.publicKey,
                                             responderKnows: pattern == .kk ? laptop.publicKey : nil)
                // Advance a random number of honest messages, then feed garbage to the reader.
                let honest = Int(random.next() % UInt64(pattern.messages.count))
                for _ in 0..<honest { try pair.step() }
                let length = Int(random.next() % 200)
                let garbage = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                // XX's first message is a clear ephemeral key and payload: any 32 bytes or more
                // read as one. Every other message carries a tag that random bytes cannot match.
                let unauthenticated = pattern == .xx && honest == 0
                do {
                    if pair.initiator.isWriting {
                        _ = try pair.responder.readMessage(garbage)
                    } else {
                        _ = try pair.initiator.readMessage(garbage)
                    }
                    #expect(unauthenticated && garbage.count >= 32, "\(pattern.name) message \(honest + 1) took \(length) random bytes")
                } catch {
                    #expect(!unauthenticated || garbage.count < 32, "\(error)")
                }
            }
        }
    }

    // MARK: CipherState

    @Test func aFailedDecryptionDoesNotMoveTheNonce() throws {
        let key = [UInt8](repeating: 3, count: 32)
        var writer = NoiseCipherState(key: key)
        var reader = NoiseCipherState(key: key)
        let sealed = try writer.encrypt(associatedData: [], plaintext: [1, 2, 3])
        var damaged = sealed
        damaged[0] ^= 1
        #expect(throws: NoiseError.decryptionFailed) { try reader.decrypt(associatedData: [], ciphertext: damaged) }
        #expect(reader.nonce == 0)
        #expect(try reader.decrypt(associatedData: [], ciphertext: sealed) == [1, 2, 3])
        #expect(reader.nonce == 1)
        #expect(throws: NoiseError.messageTooShort(byteCount: 15, minimum: 16)) {
            try reader.decrypt(associatedData: [], ciphertext: [UInt8](repeating: 0, count: 15))
        }
    }

    @Test func theNonceRunsOutAtTwoToTheSixtyFourMinusOne() throws {
        let key = [UInt8](repeating: 5, count: 32)
        var writer = NoiseCipherState(key: key)
        var reader = NoiseCipherState(key: key)
        writer.setNonce(UInt64.max - 1)
        reader.setNonce(UInt64.max - 1)
        let last = try writer.encrypt(associatedData: [], plaintext: [9])
        #expect(try reader.decrypt(associatedData: [], ciphertext: last) == [9])
        #expect(throws: NoiseError.nonceExhausted) { try writer.encrypt(associatedData: [], plaintext: [9]) }
        #expect(throws: NoiseError.nonceExhausted) { try reader.decrypt(associatedData: [], ciphertext: last) }
    }

    @Test func rekeyKeepsBothSidesInStep() throws {
        let key = [UInt8](repeating: 8, count: 32)
        var writer = NoiseCipherState(key: key)
        var reader = NoiseCipherState(key: key)
        var unchanged = NoiseCipherState(key: key)
        writer.rekey()
        reader.rekey()
        let sealed = try writer.encrypt(associatedData: [], plaintext: [4, 2])
        #expect(try reader.decrypt(associatedData: [], ciphertext: sealed) == [4, 2])
        #expect(throws: NoiseError.decryptionFailed) { try unchanged.decrypt(associatedData: [], ciphertext: sealed) }
    }

    @Test func withoutAKeyTheCipherPassesBytesThrough() throws {
        var cipher = NoiseCipherState(key: nil)
        #expect(!cipher.hasKey)
        #expect(try cipher.encrypt(associatedData: [1], plaintext: [7, 7]) == [7, 7])
        #expect(try cipher.decrypt(associatedData: [1], ciphertext: [7, 7]) == [7, 7])
    }
}
