import AmbleModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything said on the sync link, in both directions. One message per frame, JSON-encoded.
public enum SyncMessage: Codable, Equatable, Sendable {
    // Companion -> band
    case hello(protocolVersion: Int, client: String)
    case listSessions(afterID: Int64?)
    case getSession(id: Int64)
    // Band -> companion
    case welcome(protocolVersion: Int, bandID: String, bandName: String)
    case sessionList([SessionListing])
    case session(id: Int64, record: SessionRecord)
    case failure(code: FailureCode, message: String)

    public enum FailureCode: String, Codable, Sendable {
        case unsupportedVersion = "unsupported-version"
        case notFound = "not-found"
        case badRequest = "bad-request"
        case internalError = "internal-error"
    }

    public static let protocolVersion = 1

    public func encoded() throws -> [UInt8] {
        Array(try JSONEncoder().encode(self))
    }

    public static func decode(_ payload: [UInt8]) throws -> SyncMessage {
        try JSONDecoder().decode(SyncMessage.self, from: Data(payload))
    }
}
