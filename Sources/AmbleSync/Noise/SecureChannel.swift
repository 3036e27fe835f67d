/// The encrypted link after a Noise handshake: each frame's payload is sealed into
///
///     counter (u64, big-endian, 8 bytes) | ChaCha20-Poly1305 ciphertext | tag (16 bytes)
///
/// where the counter counts this direction's frames from 0 and is also the Noise nonce, so
/// the tag authenticates it. A receiver takes only the exact next counter: an older one is a
/// replay, a newer one means a frame was lost or reordered, and both are refused without
/// touching the channel. A frame whose tag does not verify (tampered, damaged, or sealed with
/// other keys) is refused too and leaves the channel as it was, so the genuine frame can still
/// be accepted when it is sent again.
///
/// A sealed frame is at most 65535 bytes (Noise's message limit), so a payload is at most
/// 65511 bytes; larger transfers go in chunks. Each direction can carry 2^64 - 1 frames.
public struct SecureChannel: Sendable {
    /// Length of the counter in front of each sealed frame, bytes.
    public static let counterLength = 8
    /// The longest sealed frame, bytes.
    public static let maximumFrameLength = NoiseCipherState.maximumMessageLength
    /// The longest payload, bytes: 65535 - 8 - 16 = 65511.
    public static let maximumPayloadLength = maximumFrameLength - counterLength - NoiseCipherState.tagLength

    private var sender: NoiseCipherState
    private var receiver: NoiseCipherState
    /// The handshake hash, 32 bytes: identifies this channel (pairing codes derive from it).
    public let handshakeHash: [UInt8]
    /// The peer's static public key (32 bytes), when the pattern had one: who is on the other end.
    public let remoteStaticKey: [UInt8]?

    /// The channel over a completed handshake's transport.
    public init(_ transport: NoiseTransport) {
        sender = transport.sender
        receiver = transport.receiver
        handshakeHash = transport.handshakeHash
        remoteStaticKey = transport.remoteStaticKey
    }

    /// The counter the next sealed frame will carry, 0 ... 2^64 - 2.
    public var nextSendCounter: UInt64 { sender.nonce }
    /// The only counter `open` accepts next.
    public var nextReceiveCounter: UInt64 { receiver.nonce }

    /// The sealed frame for `payload` (at most `maximumPayloadLength` bytes).
    public mutating func seal(_ payload: [UInt8]) throws(SecureChannelError) -> [UInt8] {
        guard payload.count <= Self.maximumPayloadLength else {
            throw .payloadTooLong(byteCount: payload.count, limit: Self.maximumPayloadLength)
        }
        let counter = sender.nonce
        do {
            let ciphertext = try sender.encrypt(associatedData: [], plaintext: payload)
            return Self.bigEndian(counter) + ciphertext
        } catch {
            // The length was checked above and the key is 32 bytes, so only the end of the
            // counter space is left.
            throw .counterExhausted
        }
    }

    /// The payload of a sealed frame from the peer.
    ///
    /// - Throws: `frameTooShort`, `frameTooLong`; `replayed` for a counter already taken,
    ///   `outOfOrder` for one beyond the next; `tampered` when the tag does not verify;
    ///   `counterExhausted`. None of them changes the channel.
    public mutating func open(_ frame: [UInt8]) throws(SecureChannelError) -> [UInt8] {
        let minimum = Self.counterLength + NoiseCipherState.tagLength
        guard frame.count >= minimum else { throw .frameTooShort(byteCount: frame.count, minimum: minimum) }
        guard frame.count <= Self.maximumFrameLength else {
            throw .frameTooLong(byteCount: frame.count, limit: Self.maximumFrameLength)
        }
        let counter = frame[..<Self.counterLength].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let expected = receiver.nonce
        guard counter >= expected else { throw .replayed(counter: counter, expected: expected) }
        guard counter == expected else { throw .outOfOrder(counter: counter, expected: expected) }
        do {
            return try receiver.decrypt(associatedData: [], ciphertext: Array(frame[Self.counterLength...]))
        } catch .nonceExhausted {
            throw .counterExhausted
        } catch {
            throw .tampered(counter: counter)
        }
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }
}

/// Why a secure channel refused to seal or open a frame. Opening errors leave the channel
/// unchanged: the link may ask for the frame again.
public enum SecureChannelError: Error, Equatable, Sendable, CustomStringConvertible {
    case payloadTooLong(byteCount: Int, limit: Int)
    case frameTooShort(byteCount: Int, minimum: Int)
    case frameTooLong(byteCount: Int, limit: Int)
    /// A counter already accepted: a replayed (or duplicated) frame.
    case replayed(counter: UInt64, expected: UInt64)
    /// A counter beyond the next: a frame in between was lost, or frames were reordered.
    case outOfOrder(counter: UInt64, expected: UInt64)
    /// The tag did not verify: the frame was changed on the way or not sealed by the peer.
    case tampered(counter: UInt64)
    /// 2^64 - 1 frames went one way; a new handshake is needed.
    case counterExhausted

    public var description: String {
        switch self {
        case .payloadTooLong(let count, let limit):
            return "secure channel: payload of \(count) bytes is longer than \(limit); send it in chunks"
        case .frameTooShort(let count, let minimum):
            return "secure channel: frame of \(count) bytes is shorter than \(minimum)"
        case .frameTooLong(let count, let limit):
            return "secure channel: frame of \(count) bytes is longer than \(limit)"
        case .replayed(let counter, let expected):
            return "secure channel: frame \(counter) replayed (expected \(expected))"
        case .outOfOrder(let counter, let expected):
            return "secure channel: frame \(counter) out of order (expected \(expected)); ask for \(expected) again"
        case .tampered(let counter):
            return "secure channel: frame \(counter) did not authenticate (tampered, damaged or wrongly keyed)"
        case .counterExhausted:
            return "secure channel: frame counter exhausted; pair or reconnect for new keys"
        }
    }
}
