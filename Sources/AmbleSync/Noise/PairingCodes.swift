import Crypto

/// The short codes a wearer uses to confirm that the band and the laptop paired with each
/// other and not with a machine in the middle: a 6-digit code both show (numeric
/// comparison, on a band with a display) and a 4-digit passkey the band buzzes and the
/// wearer types into `amble pair` (passkey entry).
///
/// **Why nonces, not the handshake hash alone.** Codes derived from the XX handshake hash
/// alone can be forced to match: a machine in the middle runs one handshake with each side,
/// and since it writes the last message of one of them, it can try payloads offline until
/// the short codes agree (about 10^4 tries for 4 digits, 10^6 for 6; each is a SHA-256 and
/// a ChaCha20-Poly1305). So the codes also mix in a 32-byte random nonce from each side,
/// with a commitment, as Bluetooth's numeric comparison does:
///
/// 1. the responder (the band) sends `commitment(toResponderNonce:)` of its nonce in
///    handshake message 2;
/// 2. the initiator (the laptop) sends its own nonce in handshake message 3;
/// 3. the responder reveals its nonce in its first transport message; the initiator checks it
///    against the commitment (`init(handshakeHash:initiatorNonce:responderNonce:responderCommitment:)`).
///
/// Each side's nonce is fixed before it sees the other's, and the committed nonce stays hidden
/// until the initiator's is sent, so a machine in the middle cannot steer either code:
/// they match by chance only, with probability 10^-6 (comparison) or 10^-4 (passkey) per
/// attempt.
///
/// **Reduction without bias.** A code is one 64-bit word `x` of HKDF-SHA256 output (RFC 5869;
/// input key material `h`, salt = initiator nonce || responder nonce, info = a label naming
/// the code) taken modulo m = 10^6 or 10^4. A word is used only if `x` < 2^64 - (2^64 mod m),
/// the largest multiple of m that fits, so each residue is hit by exactly the same number of
/// words; otherwise the next word is tried. A word is rejected with probability below
/// m / 2^64 (5.4 * 10^-14 for 10^6); eight words are derived, so running out has probability
/// below 10^-105, and then the last word is reduced anyway.
public struct PairingCodes: Equatable, Sendable {
    /// The numeric-comparison code, 0 ... 999_999, shown as six digits.
    public let comparisonCode: Int
    /// The passkey, 0 ... 9999, buzzed and typed as four digits.
    public let passkey: Int

    /// Length of each side's nonce and of the commitment, bytes.
    public static let nonceLength = 32

    static let commitmentLabel = Array("Amble pairing v1: responder nonce commitment".utf8)
    static let comparisonLabel = Array("Amble pairing v1: 6-digit comparison code".utf8)
    static let passkeyLabel = Array("Amble pairing v1: 4-digit passkey".utf8)

    /// The codes for a completed handshake, given both nonces: the responder's side (it
    /// knows its own nonce). `badLength` unless the hash and nonces have 32 bytes each.
    public init(handshakeHash: [UInt8], initiatorNonce: [UInt8], responderNonce: [UInt8]) throws(PairingError) {
        try Self.check(handshakeHash, "handshake hash")
        try Self.check(initiatorNonce, "initiator nonce")
        try Self.check(responderNonce, "responder nonce")
        let salt = initiatorNonce + responderNonce
        comparisonCode = Int(Self.uniformCode(Self.words(handshakeHash, salt: salt, label: Self.comparisonLabel), modulus: 1_000_000))
        passkey = Int(Self.uniformCode(Self.words(handshakeHash, salt: salt, label: Self.passkeyLabel), modulus: 10_000))
    }

    /// The initiator's side: first checks that the revealed responder nonce is the one
    /// committed to in handshake message 2 (`commitmentMismatch` otherwise: the responder
    /// changed its nonce after seeing the initiator's, as only a machine in the middle would).
    public init(handshakeHash: [UInt8], initiatorNonce: [UInt8], responderNonce: [UInt8], responderCommitment: [UInt8]) throws(PairingError) {
        try Self.check(responderCommitment, "responder commitment")
        guard try Self.commitment(toResponderNonce: responderNonce) == responderCommitment else {
            throw .commitmentMismatch
        }
        try self.init(handshakeHash: handshakeHash, initiatorNonce: initiatorNonce, responderNonce: responderNonce)
    }

    /// A fresh 32-byte nonce from the system's secure random source.
    public static func makeNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The responder's commitment to its nonce: SHA-256(label || nonce), 32 bytes. The nonce
    /// is 256 random bits, so the commitment hides it; SHA-256's collision resistance binds it.
    public static func commitment(toResponderNonce nonce: [UInt8]) throws(PairingError) -> [UInt8] {
        try check(nonce, "responder nonce")
        return Array(SHA256.hash(data: commitmentLabel + nonce))
    }

    /// The comparison code as six digits with leading zeros, e.g. "042917".
    public var comparisonDigits: String { Self.digits(comparisonCode, count: 6) }

    /// The passkey as four digits with leading zeros, e.g. "0718".
    public var passkeyDigits: String { Self.digits(passkey, count: 4) }

    /// How the band buzzes the passkey: one group of pulses per digit.
    public var passkeyBuzzPattern: [[PasskeyPulse]] {
        Self.buzzPattern(forDigits: passkeyDigits) ?? []
    }

    /// The pulses for a string of decimal digits: digit n (1 ... 9) is n short pulses, 0 is
    /// one long pulse; nil if a character is not a digit. Timing is the motor's business.
    public static func buzzPattern(forDigits digits: String) -> [[PasskeyPulse]]? {
        var groups: [[PasskeyPulse]] = []
        for character in digits {
            guard character.isASCII, let digit = character.wholeNumberValue else { return nil }
            groups.append(digit == 0 ? [.long] : Array(repeating: .short, count: digit))
        }
        return groups
    }

    // MARK: Derivation

    /// Eight 64-bit big-endian words of HKDF-SHA256(ikm: hash, salt, info: label).
    static func words(_ handshakeHash: [UInt8], salt: [UInt8], label: [UInt8]) -> [UInt64] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: handshakeHash), salt: salt, info: label, outputByteCount: 64)
        let bytes = key.withUnsafeBytes { Array($0) }
        return stride(from: 0, to: bytes.count, by: 8).map { start in
            bytes[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }

    /// The first word below the largest multiple of `modulus` under 2^64, reduced modulo
    /// `modulus`: uniform on 0 ..< modulus when the words are. `modulus` > 0.
    static func uniformCode(_ words: [UInt64], modulus: UInt64) -> UInt64 {
        // 2^64 mod m, computed without overflow: (2^64 - 1) mod m, plus one, mod m.
        let remainder = (UInt64.max % modulus + 1) % modulus
        // Accept x <= 2^64 - 1 - remainder, i.e. x < 2^64 - remainder.
        let largestAccepted = UInt64.max - remainder
        let word = words.first { $0 <= largestAccepted } ?? words.last ?? 0
        return word % modulus
    }

    private static func digits(_ value: Int, count: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }

    private static func check(_ bytes: [UInt8], _ what: String) throws(PairingError) {
        guard bytes.count == nonceLength else {
            throw .badLength(what: what, byteCount: bytes.count, expected: nonceLength)
        }
    }
}

/// One pulse of a buzzed passkey digit.
public enum PasskeyPulse: Equatable, Sendable {
    /// Counts one: digit n is n of these.
    case short
    /// Stands for the digit 0.
    case long
}

/// Why pairing codes could not be derived.
public enum PairingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A hash, nonce or commitment of the wrong size (all are 32 bytes).
    case badLength(what: String, byteCount: Int, expected: Int)
    /// The responder's revealed nonce is not the one it committed to: refuse the pairing.
    case commitmentMismatch

    public var description: String {
        switch self {
        case .badLength(let what, let count, let expected):
            return "pairing: \(what) has \(count) bytes, expected \(expected)"
        case .commitmentMismatch:
            return "pairing refused: the band's revealed nonce does not match its commitment (a machine in the middle?)"
        }
    }
}
