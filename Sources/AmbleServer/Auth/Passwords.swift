import Crypto
import _CryptoExtras

/// Researchers' passwords: PBKDF2-HMAC-SHA256 with a 16-byte random salt per researcher and
/// 600,000 rounds (OWASP's figure for PBKDF2-SHA256 in 2023), 32-byte hash; compared in
/// constant time. The rounds are stored with each hash, so raising them later leaves old
/// hashes verifiable.
public struct PasswordHash: Sendable, Equatable {
    public static let kdf = "pbkdf2-sha256"
    public static let defaultRounds = 600_000
    /// Shortest password `admin researcher add` accepts, characters.
    public static let minimumLength = 12

    public var rounds: Int
    public var salt: [UInt8]
    public var hash: [UInt8]

    public init(rounds: Int, salt: [UInt8], hash: [UInt8]) {
        self.rounds = rounds
        self.salt = salt
        self.hash = hash
    }

    /// A new hash of `password` with a fresh salt.
    public static func make(_ password: String, rounds: Int = defaultRounds) throws -> PasswordHash {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = generator.next() }
        return PasswordHash(rounds: rounds, salt: salt, hash: try derive(password, salt: salt, rounds: rounds))
    }

    /// Whether `password` is the one hashed (constant time in the hash's bytes).
    public func verifies(_ password: String) -> Bool {
        guard let candidate = try? Self.derive(password, salt: salt, rounds: rounds), candidate.count == hash.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, hash) { difference |= a ^ b }
        return difference == 0
    }

    static func derive(_ password: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: .sha256,
                                                     outputByteCount: 32, unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Array($0) }
    }
}
