import AmbleStudyAPI
import Crypto

/// Random secrets handed out once and stored only as their SHA-256: join codes and refresh tokens.
public enum Secrets {
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0 ..< count).map { _ in generator.next() }
    }

    static func sha256(_ text: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(text.utf8)))
    }

    // MARK: Join codes

    /// RFC 4648's base32 alphabet: A-Z and 2-7 (no 0, 1, 8 or 9 to misread as O, I, B or g).
    static let base32 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// A new join code: 48 random bits as 10 base32 characters in two groups, `ABCDE-FGH23`.
    public static func newJoinCode() -> String {
        let bytes = randomBytes(6)
        var value: UInt64 = 0
        for b in bytes { value = value << 8 | UInt64(b) }
        var chars: [UInt8] = []
        for i in stride(from: 45, through: 0, by: -5) { chars.append(base32[Int(value >> UInt64(i) & 31)]) }
        return String(decoding: chars[0 ..< 5], as: UTF8.self) + "-" + String(decoding: chars[5...], as: UTF8.self)
    }

    /// The code as stored and compared: upper case, without spaces or dashes; nil when it is
    /// not 10 base32 characters. A participant may type it in lower case or without the dash.
    public static func normalizedJoinCode(_ typed: String) -> String? {
        let chars = typed.uppercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
        guard chars.count == 10, chars.allSatisfy({ base32.contains($0) }) else { return nil }
        return String(decoding: chars, as: UTF8.self)
    }

    /// What `join_codes.code_sha256` holds for a normalized code.
    public static func joinCodeHash(_ normalized: String) -> [UInt8] { sha256(normalized) }

    // MARK: Refresh tokens

    /// A new refresh token: 32 random bytes, base64url without padding (43 characters).
    public static func newRefreshToken() -> String { Base64URL.encode(randomBytes(32)) }

    /// What `refresh_tokens.token_sha256` holds.
    public static func refreshTokenHash(_ token: String) -> [UInt8] { sha256(token) }
}

/// Base64url without padding (RFC 4648 §5), as JWS uses.
public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(buffer >> UInt32(bits) & 63)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(6 - bits) & 63)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil for a character outside the alphabet, padding, or a length no encoding has.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let value: UInt8
            switch c {
            case UInt8(ascii: "A") ... UInt8(ascii: "Z"): value = c - UInt8(ascii: "A")
            case UInt8(ascii: "a") ... UInt8(ascii: "z"): value = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): value = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(buffer >> UInt32(bits) & 0xff))
            }
        }
        // Leftover bits must be zero (a canonical encoding).
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
