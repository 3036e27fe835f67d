#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleLinux
import AmbleStudyAPI
import Crypto
import NIOSSL
import SwiftASN1
import X509

/// What `amble-server init DIR` makes and `serve` reads: a self-signed TLS certificate
/// (ECDSA P-256, valid 825 days, for the names given) with its key, and the Ed25519 key that
/// signs access tokens. Every file 0600. Laptops pin the certificate by its SHA-256
/// fingerprint, which the join link carries.
public struct ServerIdentity: Sendable {
    public static let certificateFile = "tls-cert.pem"
    public static let certificateKeyFile = "tls-key.pem"
    public static let signingKeyFile = "signing-key"

    public var directory: String
    public var certificatePath: String { directory + "/" + Self.certificateFile }
    public var certificateKeyPath: String { directory + "/" + Self.certificateKeyFile }
    public var signingKeyPath: String { directory + "/" + Self.signingKeyFile }

    public init(directory: String) { self.directory = directory }

    /// Makes the files; refuses to replace any. Returns the certificate's SHA-256 fingerprint
    /// (64 lowercase hex digits).
    public func create(hosts: [String], now: Date = Date()) async throws -> String {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("amble-server") }
        var names: [GeneralName] = []
        for host in hosts {
            if let ip = Self.ipv4(host) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(ip))))
            } else {
                names.append(.dnsName(host))
            }
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(825 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let der = serializer.serializedBytes
        let signing = Curve25519.Signing.PrivateKey()
        try write(Array(try certificate.serializeAsPEM().pemString.utf8) + [10], to: certificatePath)
        try write(Array(key.pemRepresentation.utf8) + [10], to: certificateKeyPath)
        try write(Array(Base64URL.encode(signing.rawRepresentation).utf8) + [10], to: signingKeyPath)
        return Digest.sha256Hex(der)
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        do {
            try writeFile(bytes, to: path, replacing: false, sharing: .ownerOnly)
        } catch .exists {
            throw StoreError.invalid("\(path) exists already; `amble-server init` never replaces a key (choose an empty folder)")
        } catch {
            throw StoreError.invalid("\(path): \(error.description)")
        }
    }

    /// The access-token signing key.
    public func signingKey() throws -> Curve25519.Signing.PrivateKey {
        let text = try read(signingKeyPath, limit: 256)
        guard let raw = Base64URL.decode(text.filter { !$0.isWhitespace }), raw.count == 32,
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw StoreError.invalid("\(signingKeyPath) is not a signing key made by `amble-server init`; make a new folder with it")
        }
        return key
    }

    /// The certificate's SHA-256 fingerprint, as `init` printed it.
    public func fingerprint() throws -> String {
        let document = try PEMDocument(pemString: try read(certificatePath, limit: 64 << 10))
        return Digest.sha256Hex(document.derBytes)
    }

    /// The TLS configuration `serve` uses: this certificate and key, TLS 1.2 or newer.
    public func tlsConfiguration(certificatePath: String? = nil, keyPath: String? = nil) throws -> TLSConfiguration {
        let certificatePath = certificatePath ?? self.certificatePath
        let keyPath = keyPath ?? self.certificateKeyPath
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            return configuration
        } catch {
            throw StoreError.invalid("\(certificatePath) / \(keyPath): not a PEM certificate and key (\(error)); make them with `amble-server init DIR`")
        }
    }

    private func read(_ path: String, limit: Int) throws -> String {
        do {
            return String(decoding: try readWholeFile(atPath: path, limitBytes: limit), as: UTF8.self)
        } catch {
            throw StoreError.invalid(error.sentence(given: path))
        }
    }

    static func ipv4(_ host: String) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }
}
