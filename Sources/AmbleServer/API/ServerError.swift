#if canImport(FoundationEssentials)
import AmbleModel
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import Hummingbird

/// An error answered to a client: its status and `{"error": code, "message": sentence}`. Every
/// refusal the API documents is one of these; nothing is stored when one is thrown inside a
/// transaction.
public struct ServerError: HTTPResponseError, Equatable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Seconds to wait (429).
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONBody.response(APIError(error: code, message: message), status: status)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    static func unauthorized(_ code: String, _ message: String) -> ServerError { ServerError(.unauthorized, code, message) }
    static func badRequest(_ code: String, _ message: String) -> ServerError { ServerError(.badRequest, code, message) }
    static let unknownCode = ServerError(.notFound, "unknown_code",
                                         "This join code is unknown, already used or expired; ask the study team for a new one.")
}

/// JSON bodies in and out, with the limits of the API.
enum JSONBody {
    static func response(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The request's body decoded as `T`, at most `limit` bytes; a clear 400 or 413 otherwise.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int = StudyAPILimits.maxJSONBytes) async throws -> T {
        let bytes = try await Body.collect(request, limit: limit)
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw ServerError.badRequest("malformed_body", "The request body is not the JSON this endpoint takes (\(String(describing: T.self))): \(printableError(error)).")
        }
    }

    static func printableError(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing key \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted: "not valid JSON"
        default: "not valid JSON"
        }
    }
}

enum Body {
    /// The whole body, refused with 413 past `limit` bytes (by its Content-Length before reading).
    static func collect(_ request: Request, limit: Int) async throws -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw tooLarge(limit)
        }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge(limit)
        }
    }

    static func tooLarge(_ limit: Int) -> ServerError {
        ServerError(.contentTooLarge, "too_large", "The body is larger than this endpoint takes (\(limit) bytes); nothing was stored.")
    }
}
