import Crypto

/// A Curve25519 key pair for Noise's `25519` DH functions: a 32-byte private key (any 32
/// bytes; X25519 clamps it) and its 32-byte public key. A band's or laptop's static key is
/// one of these, kept in a 0600 file as `privateKey`; ephemeral keys are made fresh for each
/// handshake.
public struct NoiseKeyPair: Sendable, CustomStringConvertible {
    /// Private and public key length, bytes (`DHLEN`).
    public static let keyLength = 32

    /// The private scalar. Keep it secret: it is the device's identity.
    public let privateKey: [UInt8]
    /// The public key (a Montgomery u-coordinate, little-endian).
    public let publicKey: [UInt8]
    /// The private key as swift-crypto holds it, made once: making it computes the public key
    /// (a fixed-base multiplication, about a third of a DH), which each DH would otherwise repeat.
    /// swift-crypto does not mark it Sendable; it is a value never changed after `init`, and only
    /// read (its storage is copy-on-write).
    nonisolated(unsafe) private let key: Curve25519.KeyAgreement.PrivateKey

    /// A new random key pair (`GenerateKeypair()`), from the system's secure random source.
    public static func generate() -> NoiseKeyPair {
        NoiseKeyPair(key: Curve25519.KeyAgreement.PrivateKey())
    }

    /// The key pair of a stored private key; `badKeyLength` unless it has 32 bytes.
    public init(privateKey: [UInt8]) throws(NoiseError) {
        guard privateKey.count == Self.keyLength,
              let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey)
        else { throw .badKeyLength(what: "Curve25519 private key", byteCount: privateKey.count, expected: Self.keyLength) }
        self.init(key: key)
    }

    private init(key: Curve25519.KeyAgreement.PrivateKey) {
        self.key = key
        privateKey = Array(key.rawRepresentation)
        publicKey = Array(key.publicKey.rawRepresentation)
    }

    /// `DH(key_pair, public_key)`: the 32-byte X25519 shared secret. A result of all zeros
    /// means the peer sent a low-order point, and is refused as `invalidPublicKey` (swift-crypto
    /// itself accepts it).
    func sharedSecret(with remotePublicKey: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard remotePublicKey.count == Self.keyLength else {
            throw .badKeyLength(what: "Curve25519 public key", byteCount: remotePublicKey.count, expected: Self.keyLength)
        }
        let secret: [UInt8]
        do {
            let remote = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: remotePublicKey)
            secret = try key.sharedSecretFromKeyAgreement(with: remote).withUnsafeBytes { Array($0) }
        } catch {
            throw .invalidPublicKey
        }
        guard secret.contains(where: { $0 != 0 }) else { throw .invalidPublicKey }
        return secret
    }

    /// Shows the public key only.
    public var description: String {
        "NoiseKeyPair(public: \(publicKey.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()))"
    }
}
