@testable import AmbleSync
import Foundation
import Testing

/// The published Noise test vectors of the one cipher suite Amble uses, carried in
/// `Tests/Reference/noise/` (see its README.md): cacophony's, from an independent Haskell
/// implementation, and snow's. Every `Noise_*_25519_ChaChaPoly_SHA256` vector is run,
/// initiator and responder with the vector's fixed keys, each handshake and transport message
/// compared byte for byte.
struct NoiseVectorTests {
    static let suffix = "_25519_ChaChaPoly_SHA256"
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Reference/noise").standardized

    @Test func cacophonyVectorsPass() throws {
        let passed = try runAll(file: "cacophony-25519-chachapoly-sha256.json")
        // 59 patterns: 15 fundamental, 21 with one PSK, 23 deferred.
        #expect(passed.values.reduce(0, +) == 59)
        for pattern in ["XX", "IK", "KK"] { #expect(passed[pattern] == 1, "\(pattern)") }
    }

    @Test func snowVectorsPass() throws {
        let passed = try runAll(file: "snow-25519-chachapoly-sha256.json")
        // 51 patterns: 15 fundamental, 13 with several PSKs, 23 deferred.
        #expect(passed.values.reduce(0, +) == 51)
        for pattern in ["XX", "IK", "KK"] { #expect(passed[pattern] == 1, "\(pattern)") }
    }

    /// Runs every 25519/ChaChaPoly/SHA256 vector of the file; returns how many passed per pattern.
    func runAll(file: String) throws -> [String: Int] {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
        let vectors = try JSONDecoder().decode(VectorFile.self, from: data).vectors
            .filter { $0.protocol_name.hasPrefix("Noise_") && $0.protocol_name.hasSuffix(Self.suffix) }
        var passed: [String: Int] = [:]
        for vector in vectors {
            let name = String(vector.protocol_name.dropFirst("Noise_".count).dropLast(Self.suffix.count))
            do {
                if try run(vector, patternName: name) { passed[name, default: 0] += 1 }
            } catch {
                Issue.record("\(file) \(vector.protocol_name): \(error)")
            }
        }
        print("\(file): \(passed.values.reduce(0, +)) of \(vectors.count) \(Self.suffix) vectors pass; "
            + "XX \(passed["XX", default: 0]), IK \(passed["IK", default: 0]), KK \(passed["KK", default: 0])")
        return passed
    }

    /// One vector: true when every message, the handshake hash and the transport matched.
    func run(_ vector: Vector, patternName: String) throws -> Bool {
        let pattern = try NoisePattern(name: patternName)
        var initiator = try NoiseHandshakeState(
            pattern: pattern, role: .initiator, prologue: hex(vector.init_prologue),
            localStaticKey: try vector.init_static.map { try NoiseKeyPair(privateKey: hex($0)) },
            remoteStaticKey: vector.init_remote_static.map(hex),
            presharedKeys: (vector.init_psks ?? []).map(hex),
            fixedEphemeralKey: try vector.init_ephemeral.map { try NoiseKeyPair(privateKey: hex($0)) })
        var responder = try NoiseHandshakeState(
            pattern: pattern, role: .responder, prologue: hex(vector.resp_prologue),
            localStaticKey: try vector.resp_static.map { try NoiseKeyPair(privateKey: hex($0)) },
            remoteStaticKey: vector.resp_remote_static.map(hex),
            presharedKeys: (vector.resp_psks ?? []).map(hex),
            fixedEphemeralKey: try vector.resp_ephemeral.map { try NoiseKeyPair(privateKey: hex($0)) })

        var initiatorTransport: NoiseTransport?
        var responderTransport: NoiseTransport?
        var allMatched = true
        for (index, message) in vector.messages.enumerated() {
            let fromInitiator = pattern.isOneWay || index % 2 == 0
            let payload = hex(message.payload)
            let expected = hex(message.ciphertext)
            let sent: [UInt8]
            let received: [UInt8]
            if var senderTransport = fromInitiator ? initiatorTransport : responderTransport,
               var receiverTransport = fromInitiator ? responderTransport : initiatorTransport {
                sent = try senderTransport.sender.encrypt(associatedData: [], plaintext: payload)
                received = try receiverTransport.receiver.decrypt(associatedData: [], ciphertext: sent)
                if fromInitiator {
                    (initiatorTransport, responderTransport) = (senderTransport, receiverTransport)
                } else {
                    (responderTransport, initiatorTransport) = (senderTransport, receiverTransport)
                }
            } else if fromInitiator {
                let written = try initiator.writeMessage(payload: payload)
                let read = try responder.readMessage(written.message)
                (sent, received) = (written.message, read.payload)
                initiatorTransport = written.transport
                responderTransport = read.transport
            } else {
                let written = try responder.writeMessage(payload: payload)
                let read = try initiator.readMessage(written.message)
                (sent, received) = (written.message, read.payload)
                responderTransport = written.transport
                initiatorTransport = read.transport
            }
            if sent != expected {
                Issue.record("\(vector.protocol_name) message \(index): ciphertext differs")
                allMatched = false
            }
            if received != payload {
                Issue.record("\(vector.protocol_name) message \(index): payload differs")
                allMatched = false
            }
        }
        guard initiator.isComplete, responder.isComplete else {
            Issue.record("\(vector.protocol_name): handshake not complete after \(vector.messages.count) messages")
            return false
        }
        if initiator.handshakeHash != responder.handshakeHash {
            Issue.record("\(vector.protocol_name): the two sides' handshake hashes differ")
            allMatched = false
        }
        if let expectedHash = vector.handshake_hash, hex(expectedHash) != initiator.handshakeHash {
            Issue.record("\(vector.protocol_name): handshake hash differs")
            allMatched = false
        }
        return allMatched
    }

    struct VectorFile: Decodable {
        let vectors: [Vector]
    }

    /// The wiki's vector format; field names as in the files.
    struct Vector: Decodable {
        struct Message: Decodable {
            let payload: String
            let ciphertext: String
        }
        let protocol_name: String
        let init_prologue: String
        let init_psks: [String]?
        let init_static: String?
        let init_ephemeral: String?
        let init_remote_static: String?
        let resp_prologue: String
        let resp_psks: [String]?
        let resp_static: String?
        let resp_ephemeral: String?
        let resp_remote_static: String?
        let handshake_hash: String?
        let messages: [Message]
    }
}

/// Lowercase or uppercase hex to bytes; stray characters end the conversion (test data only).
private func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var high: UInt8?
    for character in text {
        guard let nibble = character.hexDigitValue.map(UInt8.init) else { break }
        if let h = high {
            bytes.append(h << 4 | nibble)
            high = nil
        } else {
            high = nibble
        }
    }
    return bytes
}
