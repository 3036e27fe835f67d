/// Why a Noise handshake or transport message was refused. Hostile or damaged input ends
/// here, never in a crash: every length is checked before it is read.
public enum NoiseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A message (or the message a payload would make) is longer than Noise allows
    /// (65535 bytes, `NoiseCipherState.maximumMessageLength`).
    case messageTooLong(byteCount: Int, limit: Int)
    /// A message is shorter than the keys and tags its pattern step must carry.
    case messageTooShort(byteCount: Int, minimum: Int)
    /// A key of the wrong size: `what` names it ("local static private key", "pre-shared key 1").
    case badKeyLength(what: String, byteCount: Int, expected: Int)
    /// The ChaCha20-Poly1305 tag did not verify: the message was tampered with, damaged,
    /// replayed from another handshake, or sealed with another key.
    case decryptionFailed
    /// A Diffie-Hellman result was all zeros: the peer sent a low-order Curve25519 point,
    /// which would let it fix the shared secret.
    case invalidPublicKey
    /// The 64-bit nonce reached 2^64 - 1 (reserved by Noise); the keys must not be used again.
    case nonceExhausted
    /// The call does not fit where the handshake is: not this side's turn, already
    /// complete, or aborted by an earlier error.
    case wrongState(String)
    /// The pattern needs a key that was not given ("a local static key", "the remote static key").
    case missingKey(String)
    /// A key was given that the pattern never uses, which is a mistake in the caller.
    case unusedKey(String)
    /// A pattern name this implementation does not know.
    case unknownPattern(String)

    public var description: String {
        switch self {
        case .messageTooLong(let count, let limit):
            return "Noise message of \(count) bytes is longer than the \(limit)-byte limit"
        case .messageTooShort(let count, let minimum):
            return "Noise message of \(count) bytes is shorter than the \(minimum) bytes this step needs"
        case .badKeyLength(let what, let count, let expected):
            return "\(what) has \(count) bytes, expected \(expected)"
        case .decryptionFailed:
            return "Noise message did not authenticate (tampered, damaged, replayed or wrongly keyed)"
        case .invalidPublicKey:
            return "the peer sent an invalid (low-order) Curve25519 public key"
        case .nonceExhausted:
            return "Noise nonce exhausted; start a new handshake"
        case .wrongState(let detail):
            return "Noise handshake: \(detail)"
        case .missingKey(let what):
            return "Noise handshake needs \(what)"
        case .unusedKey(let what):
            return "Noise handshake does not use \(what)"
        case .unknownPattern(let name):
            return "unknown Noise handshake pattern \"\(name)\""
        }
    }
}
