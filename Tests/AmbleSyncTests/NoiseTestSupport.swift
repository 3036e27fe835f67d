@testable import AmbleSync
import Testing

// Helpers shared by the Noise, pairing and secure-channel tests.

/// Both sides of a handshake, driven in memory: no I/O, every message handed across by hand.
struct HandshakePair {
    var initiator: NoiseHandshakeState
    var responder: NoiseHandshakeState
    var initiatorTransport: NoiseTransport?
    var responderTransport: NoiseTransport?

    init(_ pattern: NoisePattern, initiatorStatic: NoiseKeyPair? = nil, responderStatic: NoiseKeyPair? = nil,
         initiatorKnows: [UInt8]? = nil, responderKnows: [UInt8]? = nil, prologue: [UInt8] = Array("amble 2".utf8)) throws {
        initiator = try NoiseHandshakeState(pattern: pattern, role: .initiator, prologue: prologue,
                                            localStaticKey: initiatorStatic, remoteStaticKey: initiatorKnows)
        responder = try NoiseHandshakeState(pattern: pattern, role: .responder, prologue: prologue,
                                            localStaticKey: responderStatic, remoteStaticKey: responderKnows)
    }

    /// Hands the next message (with `payload`) from its writer to its reader; returns the wire bytes.
    @discardableResult
    mutating func step(_ payload: [UInt8] = []) throws -> [UInt8] {
        if initiator.isWriting {
            let written = try initiator.writeMessage(payload: payload)
            let read = try responder.readMessage(written.message)
            #expect(read.payload == payload)
            initiatorTransport = written.transport
            responderTransport = read.transport
            return written.message
        } else {
            let written = try responder.writeMessage(payload: payload)
            let read = try initiator.readMessage(written.message)
            #expect(read.payload == payload)
            responderTransport = written.transport
            initiatorTransport = read.transport
            return written.message
        }
    }

    mutating func run() throws {
        while !initiator.isComplete { try step(Array("payload \(initiator.isWriting)".utf8)) }
    }
}

/// Both directions of a fresh transport carry messages.
func expectTransportWorks(_ initiatorSide: NoiseTransport, _ responderSide: NoiseTransport) throws {
    var a = initiatorSide
    var b = responderSide
    for round in 0..<3 {
        let there = try a.sender.encrypt(associatedData: [], plaintext: [UInt8(round)])
        #expect(try b.receiver.decrypt(associatedData: [], ciphertext: there) == [UInt8(round)])
        let back = try b.sender.encrypt(associatedData: [], plaintext: [UInt8(round), 1])
        #expect(try a.receiver.decrypt(associatedData: [], ciphertext: back) == [UInt8(round), 1])
    }
}

/// A small seeded generator (SplitMix64) so random-input tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
