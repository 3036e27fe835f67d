/// The two transport `CipherState`s a completed handshake yields (`Split()`), from this
/// side's point of view, with the handshake hash both sides share.
public struct NoiseTransport: Sendable {
    /// Encrypts what this side sends: `c1` for the initiator, `c2` for the responder. In a
    /// one-way pattern (N, K, X) the responder must not send.
    public var sender: NoiseCipherState
    /// Decrypts what this side receives: `c2` for the initiator, `c1` for the responder.
    public var receiver: NoiseCipherState
    /// `h` at the end of the handshake (32 bytes): identical on both sides only if nobody
    /// changed a byte; pairing codes derive from it (with both sides' nonces, `PairingCodes`).
    public let handshakeHash: [UInt8]
    /// The peer's static public key (32 bytes), learned or known in advance; nil in patterns
    /// where the peer has none (NN, NK, ...).
    public let remoteStaticKey: [UInt8]?
}

/// A Noise `HandshakeState` (spec revision 34, section 5.3) for
/// `Noise_<pattern>_25519_ChaChaPoly_SHA256`: a value that interprets a pattern's tokens
/// one message at a time. Each side calls `writeMessage(payload:)` and `readMessage(_:)` in
/// the pattern's order; the call that completes the handshake also returns the transport.
///
/// Every message is at most 65535 bytes. A message that does not fit where the handshake is
/// (too short, too long, a tag that does not verify, a low-order public key) throws a
/// `NoiseError` and aborts the handshake: later calls throw `wrongState`. The state is a
/// value, so nothing is shared between copies; `writeMessage` checks the payload's length
/// before it changes anything.
public struct NoiseHandshakeState: Sendable {
    public enum Role: Equatable, Sendable {
        case initiator, responder
    }

    private enum Phase: Sendable {
        case handshaking
        case complete
        case aborted(NoiseError)
    }

    /// What `writeMessage(payload:)` produced: the bytes to send and, on the last message of
    /// the handshake, this side's transport.
    public struct Written: Sendable {
        public let message: [UInt8]
        public let transport: NoiseTransport?
    }

    /// What `readMessage(_:)` produced: the peer's payload and, on the last message of the
    /// handshake, this side's transport.
    public struct Read: Sendable {
        public let payload: [UInt8]
        public let transport: NoiseTransport?
    }

    public let pattern: NoisePattern
    public let role: Role
    private var symmetric: NoiseSymmetricState
    private let localStatic: NoiseKeyPair?
    private var localEphemeral: NoiseKeyPair?
    /// The ephemeral key to use instead of a fresh one (test vectors only).
    private let fixedEphemeral: NoiseKeyPair?
    /// The peer's static public key, known in advance or learned from an `s` token.
    public private(set) var remoteStaticKey: [UInt8]?
    private var remoteEphemeralKey: [UInt8]?
    private let presharedKeys: [[UInt8]]
    private var presharedKeysUsed = 0
    /// Index of the next handshake message in `pattern.messages`.
    private var messageIndex = 0
    private var phase = Phase.handshaking

    /// `Initialize(...)`: a handshake in `role` over `pattern`.
    ///
    /// - Parameters:
    ///   - prologue: bytes both sides must agree on without sending them (e.g. the link's
    ///     protocol version); a difference makes the first encrypted message fail.
    ///   - localStaticKey: this side's static key pair, when the pattern has one for it.
    ///   - remoteStaticKey: the peer's static public key (32 bytes), when the pattern has the
    ///     peer's `s` as a pre-message (IK and KK for the initiator, KK for the responder).
    ///   - presharedKeys: 32 bytes each, one per `psk` token, in token order.
    /// - Throws: `missingKey` or `unusedKey` when the keys given do not match the pattern,
    ///   `badKeyLength`.
    public init(
        pattern: NoisePattern, role: Role, prologue: [UInt8] = [],
        localStaticKey: NoiseKeyPair? = nil, remoteStaticKey: [UInt8]? = nil, presharedKeys: [[UInt8]] = []
    ) throws(NoiseError) {
        try self.init(
            pattern: pattern, role: role, prologue: prologue, localStaticKey: localStaticKey,
            remoteStaticKey: remoteStaticKey, presharedKeys: presharedKeys, fixedEphemeralKey: nil)
    }

    /// As the public initializer, with the ephemeral key fixed instead of generated: for the
    /// published test vectors only, since reusing an ephemeral key breaks Noise's guarantees.
    init(
        pattern: NoisePattern, role: Role, prologue: [UInt8] = [],
        localStaticKey: NoiseKeyPair? = nil, remoteStaticKey: [UInt8]? = nil, presharedKeys: [[UInt8]] = [],
        fixedEphemeralKey: NoiseKeyPair?
    ) throws(NoiseError) {
        let (ownPreMessage, peerPreMessage) = role == .initiator
            ? (pattern.initiatorPreMessage, pattern.responderPreMessage)
            : (pattern.responderPreMessage, pattern.initiatorPreMessage)
        let ownMessages = pattern.messages.enumerated().filter { ($0.offset % 2 == 0) == (role == .initiator) }.map(\.element)
        let needsLocalStatic = ownPreMessage.contains(.s) || ownMessages.joined().contains(.s)
        if needsLocalStatic && localStaticKey == nil {
            throw .missingKey("a local static key (pattern \(pattern.name), \(role))")
        }
        if !needsLocalStatic && localStaticKey != nil {
            throw .unusedKey("a local static key (pattern \(pattern.name), \(role))")
        }
        if peerPreMessage.contains(.s) && remoteStaticKey == nil {
            throw .missingKey("the peer's static public key in advance (pattern \(pattern.name), \(role))")
        }
        if !peerPreMessage.contains(.s) && remoteStaticKey != nil {
            throw .unusedKey("a remote static key in advance (pattern \(pattern.name), \(role))")
        }
        if let remoteStaticKey, remoteStaticKey.count != NoiseKeyPair.keyLength {
            throw .badKeyLength(what: "remote static public key", byteCount: remoteStaticKey.count, expected: NoiseKeyPair.keyLength)
        }
        guard presharedKeys.count == pattern.presharedKeyCount else {
            throw pattern.presharedKeyCount > presharedKeys.count
                ? .missingKey("\(pattern.presharedKeyCount) pre-shared keys (pattern \(pattern.name)), got \(presharedKeys.count)")
                : .unusedKey("\(presharedKeys.count) pre-shared keys (pattern \(pattern.name) takes \(pattern.presharedKeyCount))")
        }
        for (index, key) in presharedKeys.enumerated() where key.count != NoiseCipherState.keyLength {
            throw .badKeyLength(what: "pre-shared key \(index + 1)", byteCount: key.count, expected: NoiseCipherState.keyLength)
        }
        for token in pattern.initiatorPreMessage + pattern.responderPreMessage where token != .s {
            throw .unknownPattern("\(pattern.name): pre-message token \(token.rawValue)")
        }

        self.pattern = pattern
        self.role = role
        self.localStatic = localStaticKey
        self.remoteStaticKey = remoteStaticKey
        self.presharedKeys = presharedKeys
        self.fixedEphemeral = fixedEphemeralKey
        symmetric = NoiseSymmetricState(protocolName: pattern.protocolName)
        symmetric.mixHash(prologue)
        // Pre-messages: the initiator's keys first, then the responder's (only `s` occurs).
        let initiatorStatic = role == .initiator ? localStaticKey?.publicKey : remoteStaticKey
        let responderStatic = role == .responder ? localStaticKey?.publicKey : remoteStaticKey
        if pattern.initiatorPreMessage.contains(.s), let key = initiatorStatic { symmetric.mixHash(key) }
        if pattern.responderPreMessage.contains(.s), let key = responderStatic { symmetric.mixHash(key) }
    }

    // MARK: Where the handshake is

    /// Whether the last handshake message has been written or read.
    public var isComplete: Bool {
        if case .complete = phase { return true }
        return false
    }

    /// Whether the next call should be `writeMessage` (this side's turn) rather than `readMessage`.
    public var isWriting: Bool { (messageIndex % 2 == 0) == (role == .initiator) }

    /// `h` so far (32 bytes); after the last message, `GetHandshakeHash()`.
    public var handshakeHash: [UInt8] { symmetric.handshakeHash }

    /// The longest payload the next message can carry, bytes: 65535 less its keys and tags
    /// (e.g. 65535 - 32 for XX's first message, 65535 - 96 for its second).
    public var maximumPayloadLength: Int {
        guard messageIndex < pattern.messages.count else { return 0 }
        return NoiseCipherState.maximumMessageLength - overhead(of: pattern.messages[messageIndex])
    }

    // MARK: Messages

    /// `WriteMessage(payload, message_buffer)`: the next handshake message, carrying `payload`
    /// (in clear in messages before any DH token, so never put secrets there).
    ///
    /// - Throws: `wrongState` when it is the peer's turn or the handshake is over;
    ///   `messageTooLong` when the payload exceeds `maximumPayloadLength` (nothing changes,
    ///   so a shorter payload can be written instead); `invalidPublicKey` when a DH with the
    ///   peer's key gives zeros, which aborts the handshake.
    public mutating func writeMessage(payload: [UInt8]) throws(NoiseError) -> Written {
        try checkTurn(writing: true)
        let tokens = pattern.messages[messageIndex]
        let overhead = overhead(of: tokens)
        guard payload.count + overhead <= NoiseCipherState.maximumMessageLength else {
            throw .messageTooLong(byteCount: payload.count + overhead, limit: NoiseCipherState.maximumMessageLength)
        }
        var next = self
        do throws(NoiseError) {
            var message: [UInt8] = []
            for token in tokens {
                switch token {
                case .e:
                    let ephemeral = fixedEphemeral ?? NoiseKeyPair.generate()
                    next.localEphemeral = ephemeral
                    message += ephemeral.publicKey
                    next.mixEphemeral(ephemeral.publicKey)
                case .s:
                    guard let localStatic else { throw NoiseError.missingKey("a local static key") }
                    message += try next.symmetric.encryptAndHash(localStatic.publicKey)
                case .ee, .es, .se, .ss:
                    try next.mixDiffieHellman(token)
                case .psk:
                    next.mixPresharedKey()
                }
            }
            message += try next.symmetric.encryptAndHash(payload)
            let transport = next.advance()
            self = next
            return Written(message: message, transport: transport)
        } catch {
            phase = .aborted(error)
            throw error
        }
    }

    /// `ReadMessage(message, payload_buffer)`: the payload of the peer's next handshake message.
    ///
    /// - Throws: `wrongState` when it is this side's turn to write or the handshake is over
    ///   (a replayed message); `messageTooLong`, `messageTooShort`; `decryptionFailed` for a
    ///   tampered message or one from another handshake; `invalidPublicKey`. All but
    ///   `wrongState` abort the handshake.
    public mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> Read {
        try checkTurn(writing: false)
        var next = self
        do throws(NoiseError) {
            let tokens = pattern.messages[messageIndex]
            guard message.count <= NoiseCipherState.maximumMessageLength else {
                throw NoiseError.messageTooLong(byteCount: message.count, limit: NoiseCipherState.maximumMessageLength)
            }
            // Every length below is fixed by the tokens, so one check covers them all.
            let minimum = overhead(of: tokens)
            guard message.count >= minimum else {
                throw NoiseError.messageTooShort(byteCount: message.count, minimum: minimum)
            }
            var rest = message[...]
            func take(_ count: Int) -> [UInt8] {
                defer { rest = rest.dropFirst(count) }
                return Array(rest.prefix(count))
            }
            for token in tokens {
                switch token {
                case .e:
                    let key = take(NoiseKeyPair.keyLength)
                    next.remoteEphemeralKey = key
                    next.mixEphemeral(key)
                case .s:
                    let sealedLength = NoiseKeyPair.keyLength + (next.symmetric.cipher.hasKey ? NoiseCipherState.tagLength : 0)
                    next.remoteStaticKey = try next.symmetric.decryptAndHash(take(sealedLength))
                case .ee, .es, .se, .ss:
                    try next.mixDiffieHellman(token)
                case .psk:
                    next.mixPresharedKey()
                }
            }
            let payload = try next.symmetric.decryptAndHash(Array(rest))
            let transport = next.advance()
            self = next
            return Read(payload: payload, transport: transport)
        } catch {
            phase = .aborted(error)
            throw error
        }
    }

    // MARK: Token interpretation

    private func checkTurn(writing: Bool) throws(NoiseError) {
        switch phase {
        case .complete:
            throw .wrongState("the handshake is already complete")
        case .aborted(let cause):
            throw .wrongState("the handshake was aborted (\(cause))")
        case .handshaking:
            guard writing == isWriting else {
                let sender = messageIndex % 2 == 0 ? "initiator" : "responder"
                throw .wrongState("message \(messageIndex + 1) of \(pattern.name) is the \(sender)'s to write; this side is the \(role)")
            }
        }
    }

    /// The bytes a message's tokens add besides the payload: 32 per public key, 16 per tag
    /// once a key is set (including the payload's own tag).
    private func overhead(of tokens: [NoisePattern.Token]) -> Int {
        var hasKey = symmetric.cipher.hasKey
        var count = 0
        for token in tokens {
            switch token {
            case .e:
                count += NoiseKeyPair.keyLength
                if pattern.usesPresharedKeys { hasKey = true }
            case .s:
                count += NoiseKeyPair.keyLength + (hasKey ? NoiseCipherState.tagLength : 0)
            case .ee, .es, .se, .ss, .psk:
                hasKey = true
            }
        }
        return count + (hasKey ? NoiseCipherState.tagLength : 0)
    }

    /// `e`: the public key goes into `h` and, in PSK handshakes, into the key as well.
    private mutating func mixEphemeral(_ publicKey: [UInt8]) {
        symmetric.mixHash(publicKey)
        if pattern.usesPresharedKeys { symmetric.mixKey(publicKey) }
    }

    /// `ee`, `es`, `se`, `ss`: `MixKey(DH(...))`, the first letter naming the initiator's key
    /// and the second the responder's.
    private mutating func mixDiffieHellman(_ token: NoisePattern.Token) throws(NoiseError) {
        let initiatorUsesEphemeral = token == .ee || token == .es
        let responderUsesEphemeral = token == .ee || token == .se
        let (localUsesEphemeral, remoteUsesEphemeral) = role == .initiator
            ? (initiatorUsesEphemeral, responderUsesEphemeral)
            : (responderUsesEphemeral, initiatorUsesEphemeral)
        guard let local = localUsesEphemeral ? localEphemeral : localStatic else {
            throw .missingKey("a local \(localUsesEphemeral ? "ephemeral" : "static") key for \(token.rawValue)")
        }
        guard let remote = remoteUsesEphemeral ? remoteEphemeralKey : remoteStaticKey else {
            throw .missingKey("the peer's \(remoteUsesEphemeral ? "ephemeral" : "static") key for \(token.rawValue)")
        }
        symmetric.mixKey(try local.sharedSecret(with: remote))
    }

    /// `psk`: `MixKeyAndHash` with the next pre-shared key (their number was checked at init).
    private mutating func mixPresharedKey() {
        symmetric.mixKeyAndHash(presharedKeys[presharedKeysUsed])
        presharedKeysUsed += 1
    }

    /// Moves to the next message; after the last one, splits into the transport.
    private mutating func advance() -> NoiseTransport? {
        messageIndex += 1
        guard messageIndex == pattern.messages.count else { return nil }
        phase = .complete
        let (c1, c2) = symmetric.split()
        return NoiseTransport(
            sender: role == .initiator ? c1 : c2,
            receiver: role == .initiator ? c2 : c1,
            handshakeHash: symmetric.handshakeHash,
            remoteStaticKey: remoteStaticKey)
    }
}
