import Crypto

/// A Noise `SymmetricState` (spec revision 34, section 5.2) with SHA-256: the chaining key
/// `ck` and handshake hash `h` (32 bytes each), and the `CipherState` that encrypts handshake
/// payloads once a key has been mixed in.
struct NoiseSymmetricState: Sendable {
    /// SHA-256 output length, bytes (`HASHLEN`).
    static let hashLength = 32

    private(set) var cipher: NoiseCipherState
    private(set) var chainingKey: [UInt8]
    /// `h`: binds everything said so far; after the handshake, `GetHandshakeHash()`.
    private(set) var handshakeHash: [UInt8]

    /// `InitializeSymmetric(protocol_name)`: `h` is the name padded with zeros to 32 bytes,
    /// or its SHA-256 when longer; `ck` = `h`; no key.
    init(protocolName: String) {
        let name = Array(protocolName.utf8)
        if name.count <= Self.hashLength {
            handshakeHash = name + [UInt8](repeating: 0, count: Self.hashLength - name.count)
        } else {
            handshakeHash = Array(SHA256.hash(data: name))
        }
        chainingKey = handshakeHash
        cipher = NoiseCipherState(key: nil)
    }

    /// `MixKey(ikm)`: `ck, k = HKDF(ck, ikm, 2)`; the new key starts at `n` = 0.
    mutating func mixKey(_ inputKeyMaterial: [UInt8]) {
        let (newChainingKey, key, _) = Self.hkdf(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputs: 2)
        chainingKey = newChainingKey
        cipher = NoiseCipherState(key: key)
    }

    /// `MixHash(data)`: `h = SHA-256(h || data)`.
    mutating func mixHash(_ data: [UInt8]) {
        handshakeHash = Array(SHA256.hash(data: handshakeHash + data))
    }

    /// `MixKeyAndHash(ikm)` (for `psk` tokens): `ck, temp_h, k = HKDF(ck, ikm, 3)`, then
    /// `MixHash(temp_h)` and the new key.
    mutating func mixKeyAndHash(_ inputKeyMaterial: [UInt8]) {
        let (newChainingKey, hashInput, key) = Self.hkdf(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputs: 3)
        chainingKey = newChainingKey
        mixHash(hashInput)
        cipher = NoiseCipherState(key: key)
    }

    /// `EncryptAndHash(plaintext)`: encrypts with `h` as associated data (or passes the
    /// plaintext through before any key), then mixes the result into `h`.
    mutating func encryptAndHash(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let ciphertext = try cipher.encrypt(associatedData: handshakeHash, plaintext: plaintext)
        mixHash(ciphertext)
        return ciphertext
    }

    /// `DecryptAndHash(ciphertext)`: the reverse of `encryptAndHash`; `decryptionFailed` when
    /// the tag does not verify.
    mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let plaintext = try cipher.decrypt(associatedData: handshakeHash, ciphertext: ciphertext)
        mixHash(ciphertext)
        return plaintext
    }

    /// `Split()`: the two transport states from `HKDF(ck, "", 2)`; the first encrypts
    /// initiator -> responder, the second responder -> initiator.
    func split() -> (initiatorToResponder: NoiseCipherState, responderToInitiator: NoiseCipherState) {
        let (first, second, _) = Self.hkdf(chainingKey: chainingKey, inputKeyMaterial: [], outputs: 2)
        return (NoiseCipherState(key: first), NoiseCipherState(key: second))
    }

    /// `HKDF(chaining_key, input_key_material, num_outputs)` exactly as the spec defines it
    /// (section 4.3), over HMAC-SHA256:
    ///
    ///     temp_key = HMAC(chaining_key, input_key_material)
    ///     output1  = HMAC(temp_key, 0x01)
    ///     output2  = HMAC(temp_key, output1 || 0x02)
    ///     output3  = HMAC(temp_key, output2 || 0x03)     (only when num_outputs is 3)
    ///
    /// Each output is 32 bytes; the third is empty when `outputs` is 2.
    static func hkdf(chainingKey: [UInt8], inputKeyMaterial: [UInt8], outputs: Int) -> ([UInt8], [UInt8], [UInt8]) {
        let tempKey = hmac(key: chainingKey, data: inputKeyMaterial)
        let output1 = hmac(key: tempKey, data: [0x01])
        let output2 = hmac(key: tempKey, data: output1 + [0x02])
        let output3 = outputs == 3 ? hmac(key: tempKey, data: output2 + [0x03]) : []
        return (output1, output2, output3)
    }

    static func hmac(key: [UInt8], data: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }
}
