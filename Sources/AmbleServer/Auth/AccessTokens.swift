#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import Crypto

/// Short-lived access tokens: JWTs signed with Ed25519 (JWS `alg` "EdDSA", RFC 8037), carrying
/// the participant (`sub`), the study (`aud`), and when they were issued and expire (`iat`,
/// `exp`, seconds since 1970). Verification accepts nothing but EdDSA with this server's key
/// (no `alg: none`, no key from the token), checks the expiry against the `now` it is given,
/// and is pure. Revocation is the database's: a participant's `tokens_revoked_at` refuses every
/// token issued before it (`ParticipantAuth`).
///
/// Written here on swift-crypto rather than with jwt-kit: jwt-kit 5 needs swift-crypto 4, and
/// the package keeps swift-crypto 3 for the band (docs/server.md).
public struct AccessTokens: Sendable {
    /// Lifetime of an access token, seconds.
    public static let lifetimeSeconds = 600

    public struct Claims: Codable, Sendable, Equatable {
        public var sub: String
        public var aud: String
        public var iat: Int
        public var exp: Int
    }

    public enum Failure: Error, Equatable {
        case malformed, wrongAlgorithm, badSignature, expired
    }

    /// The Ed25519 key's 32 bytes (swift-crypto 3's key types are not Sendable; a key is
    /// remade from them for each use, which costs far less than the signature).
    private let rawKey: [UInt8]
    private var key: Curve25519.Signing.PrivateKey { try! Curve25519.Signing.PrivateKey(rawRepresentation: rawKey) }
    /// The key's id in the header: the first 16 hex digits of the public key's SHA-256.
    public let keyID: String

    public init(key: Curve25519.Signing.PrivateKey) {
        self.rawKey = Array(key.rawRepresentation)
        self.keyID = String(Digest.sha256Hex(key.publicKey.rawRepresentation).prefix(16))
    }

    struct Header: Codable { var alg: String; var typ: String?; var kid: String? }

    /// A token for `participant` of `study`, issued at `now` (seconds since 1970).
    public func issue(participant: String, study: String, now: Int) throws -> String {
        let header = try JSONEncoder().encode(Header(alg: "EdDSA", typ: "JWT", kid: keyID))
        let claims = try JSONEncoder().encode(Claims(sub: participant, aud: study, iat: now, exp: now + Self.lifetimeSeconds))
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The token's claims when it is one of ours and not expired at `now`.
    public func verify(_ token: some StringProtocol, now: Int) throws(Failure) -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 2048,
              let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes))
        else { throw .malformed }
        guard header.alg == "EdDSA", signature.count == 64 else { throw .wrongAlgorithm }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.publicKey.isValidSignature(signature, for: signingInput) else { throw .badSignature }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)) else { throw .malformed }
        guard now < claims.exp else { throw .expired }
        return claims
    }
}
