import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Noise `CipherState` (spec revision 34, section 5.1) for ChaChaPoly: a 32-byte key `k`
/// (or none, during the first steps of a handshake) and a 64-bit message counter `n`.
///
/// Each encryption uses the nonce 32 zero bits followed by `n` as 64-bit little-endian, then
/// increments `n`; a failed decryption leaves `n` where it was. `n` = 2^64 - 1 is reserved,
/// so after 2^64 - 1 messages every call throws `nonceExhausted`. Without a key, encryption
/// and decryption return their input unchanged, as the spec says.
public struct NoiseCipherState: Sendable {
    /// ChaCha20-Poly1305 key length, bytes.
    public static let keyLength = 32
    /// Poly1305 tag length, bytes, added to every encrypted message.
    public static let tagLength = 16
    /// The longest Noise message, bytes (spec section 3): ciphertext and tag together.
    public static let maximumMessageLength = 65535

    /// The raw key; nil before a handshake has mixed in a key.
    private var key: [UInt8]?
    /// The nonce the next encryption or decryption uses, 0 ... 2^64 - 2.
    public private(set) var nonce: UInt64 = 0

    /// `InitializeKey(k)`: a state with the given key (or none) and `n` = 0. Keys come from
    /// HKDF, never from the wire, so a wrong length is a programming error.
    init(key: [UInt8]?) {
        if let key { precondition(key.count == Self.keyLength, "a ChaCha20-Poly1305 key has 32 bytes") }
        self.key = key
    }

    /// Whether a key is set (`HasKey()`).
    public var hasKey: Bool { key != nil }

    /// `SetNonce(n)`: only tests use it, to reach the end of the nonce space. The secure
    /// channel's replay protection rests on `n` only ever going up.
    mutating func setNonce(_ value: UInt64) {
        nonce = value
    }

    /// `EncryptWithAd(ad, plaintext)`: the ciphertext followed by its 16-byte tag.
    /// Throws `messageTooLong` when the result would exceed 65535 bytes, `nonceExhausted`.
    public mutating func encrypt(associatedData: [UInt8], plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else {
            guard plaintext.count <= Self.maximumMessageLength else {
                throw .messageTooLong(byteCount: plaintext.count, limit: Self.maximumMessageLength)
            }
            return plaintext
        }
        guard plaintext.count + Self.tagLength <= Self.maximumMessageLength else {
            throw .messageTooLong(byteCount: plaintext.count + Self.tagLength, limit: Self.maximumMessageLength)
        }
        guard nonce < UInt64.max else { throw .nonceExhausted }
        let sealed = try Self.seal(key: key, nonce: nonce, associatedData: associatedData, plaintext: plaintext)
        nonce += 1
        return sealed
    }

    /// `DecryptWithAd(ad, ciphertext)`: the plaintext, or `decryptionFailed` when the tag does
    /// not verify (and then `n` does not move, so the genuine message can still be read).
    public mutating func decrypt(associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard ciphertext.count <= Self.maximumMessageLength else {
            throw .messageTooLong(byteCount: ciphertext.count, limit: Self.maximumMessageLength)
        }
        guard let key else { return ciphertext }
        guard ciphertext.count >= Self.tagLength else {
            throw .messageTooShort(byteCount: ciphertext.count, minimum: Self.tagLength)
        }
        guard nonce < UInt64.max else { throw .nonceExhausted }
        let plaintext = try Self.open(key: key, nonce: nonce, associatedData: associatedData, ciphertext: ciphertext)
        nonce += 1
        return plaintext
    }

    /// `Rekey()`: the key becomes the first 32 bytes of the encryption of 32 zero bytes under
    /// the reserved nonce 2^64 - 1 (spec section 4.2); `n` is unchanged. Both sides must rekey
    /// at the same message for their states to stay in step.
    public mutating func rekey() {
        guard let key,
              let sealed = try? Self.seal(key: key, nonce: UInt64.max, associatedData: [], plaintext: [UInt8](repeating: 0, count: 32))
        else { return }
        self.key = Array(sealed.prefix(Self.keyLength))
    }

    // MARK: ChaCha20-Poly1305 (RFC 8439) as Noise uses it

    /// The 96-bit nonce: 4 zero bytes, then `n` little-endian.
    private static func chachaNonce(_ n: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * UInt64($0))) }
    }

    /// Fails only for a key that is not 32 bytes, which `init(key:)` does not let in.
    private static func seal(key: [UInt8], nonce: UInt64, associatedData: [UInt8], plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        do {
            let box = try ChaChaPoly.seal(
                plaintext, using: SymmetricKey(data: key), nonce: ChaChaPoly.Nonce(data: chachaNonce(nonce)), authenticating: associatedData)
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .badKeyLength(what: "ChaCha20-Poly1305 key", byteCount: key.count, expected: keyLength)
        }
    }

    private static func open(key: [UInt8], nonce: UInt64, associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let split = ciphertext.count - tagLength
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: chachaNonce(nonce)), ciphertext: ciphertext[..<split], tag: ciphertext[split...])
            return Array(try ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: associatedData))
        } catch {
            throw .decryptionFailed
        }
    }
}
