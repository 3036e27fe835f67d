import AmbleCompanion
import AmbleCompanionStore
import AmbleStudyAPI
import NIOHTTP1
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the study server refused, in its own words (`{"error", "message"}`), or an answer that
/// is not what the API promises.
struct StudyServerError: Error, Equatable, CustomStringConvertible {
    var status: Int
    var code: String
    var message: String

    var description: String { "the study server refused it (\(status) \(code)): \(message)" }

    /// From an answer that is not a success.
    init(_ response: HTTPResponse) {
        status = response.status
        if let body = try? JSONDecoder().decode(APIError.self, from: Data(response.body)) {
            code = body.error
            message = String(body.message.prefix(500))
        } else {
            code = "http_\(response.status)"
            message = "an answer without the API's error body; check that the address is the study server's"
        }
    }

    init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }
}

/// The API of the study server as the laptop speaks it (docs/server-api.yaml): joining, tokens,
/// items, withdrawal. Access tokens come from the store and are refreshed through `/v1/token`
/// when they are about to expire or the server refuses one (401); each refresh rotates the
/// refresh token, kept in the store at once.
struct StudyServerClient: Sendable {
    let transport: any StudyTransport
    let store: CompanionStore
    /// The wall clock, seconds since 1970 (token expiry; the server's are wall-clock times too).
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// An access token is refreshed this long before it expires, seconds.
    static let expiryMarginSeconds = 30.0

    // MARK: Before joining

    /// `GET /v1/join/{code}`: the study and its consent document; does not use the code up.
    static func preview(code: String, transport: any StudyTransport) throws -> JoinPreview {
        try decode(JoinPreview.self, try ok(transport.send(HTTPRequest(method: .GET, path: "/v1/join/" + percentEncoded(code)))))
    }

    /// `POST /v1/join`: accepts the consent document; the code is used up.
    static func join(_ request: JoinRequest, transport: any StudyTransport) throws -> JoinResponse {
        try decode(JoinResponse.self, try ok(transport.send(jsonRequest(.POST, "/v1/join", request))))
    }

    // MARK: Joined

    /// `PUT /v1/items/{kind}/{id}` with the item's bytes and digest: the server's answer, or
    /// why there was none. A refused access token is refreshed and the item sent once more.
    func put(_ item: OutboxItem) -> OutboxPolicy.Answer {
        let request = HTTPRequest(method: .PUT, path: "/v1/items/\(item.kind.rawValue)/\(item.itemID)",
                                  headers: [("Content-Type", item.kind == .session ? "application/octet-stream" : "application/json"),
                                            (StudyAPI.digestHeader, item.sha256)],
                                  body: item.body)
        // Only the PUT's own answer may acknowledge the item: a failure on the way to a token
        // (whatever status it carries) never does.
        do {
            let response = try authorized(request)
            let error = response.status < 300 ? nil : StudyServerError(response)
            return .response(status: response.status, errorCode: error?.code, message: error?.message,
                             retryAfterSeconds: response.header("Retry-After").flatMap(Double.init))
        } catch let error as TransportError {
            return .failed(error)
        } catch let error as CommandError {
            return .noToken(message: error.description, permanent: true)
        } catch {
            return .noToken(message: "no access token: \(error)", permanent: false)
        }
    }

    /// `GET /v1/study`.
    func study() throws -> StudyResponse {
        try Self.decode(StudyResponse.self, try Self.ok(authorized(HTTPRequest(method: .GET, path: "/v1/study"))))
    }

    /// `POST /v1/withdraw`.
    func withdraw(deleteData: Bool?) throws -> WithdrawResponse {
        try Self.decode(WithdrawResponse.self, try Self.ok(authorized(Self.jsonRequest(.POST, "/v1/withdraw", WithdrawRequest(deleteData: deleteData)))))
    }

    /// Sends `request` with a valid access token; on 401 gets a new one and sends it once more.
    /// The study's id goes along (`X-Amble-Study`): a token of another study is refused (403).
    func authorized(_ request: HTTPRequest) throws -> HTTPResponse {
        var token = try accessToken()
        let study = try store.studyServer()?.studyID
        for attempt in 0 ..< 2 {
            var signed = request
            signed.headers.append(("Authorization", "Bearer " + token))
            if let study { signed.headers.append((StudyAPI.studyHeader, study)) }
            let response = try transport.send(signed)
            guard response.status == 401, attempt == 0 else { return response }
            token = try refresh()
        }
        preconditionFailure("the loop returns")
    }

    /// The stored access token while it has more than `expiryMarginSeconds` left; a new one otherwise.
    func accessToken() throws -> String {
        guard let server = try store.studyServer(), server.withdrawnUnixSeconds == nil else {
            throw CommandError("no study server joined here (or you withdrew); join with `amble study join https://HOST:PORT --code CODE`")
        }
        if let token = server.accessToken, let expires = server.accessExpiresUnixSeconds, expires - Self.expiryMarginSeconds > now() {
            return token
        }
        return try refresh()
    }

    /// `POST /v1/token`: a new access token and the next refresh token, both kept at once.
    func refresh() throws -> String {
        guard let server = try store.studyServer(), let refreshToken = server.refreshToken else {
            throw CommandError("this laptop holds no token for the study server (you withdrew); join again with a new code")
        }
        let asked = now()
        let response = try transport.send(Self.jsonRequest(.POST, "/v1/token", TokenRequest(refreshToken: refreshToken)))
        guard response.status == 200 else {
            let error = StudyServerError(response)
            if response.status == 401 {
                throw CommandError("the study server no longer accepts this laptop's token (\(error.message)). "
                                   + "Ask the research team for a new join code, then `amble study join` again: what waits here is kept")
            }
            throw error
        }
        let tokens = try Self.decode(TokenResponse.self, response)
        try store.saveStudyTokens(refreshToken: tokens.refreshToken, accessToken: tokens.accessToken,
                                  accessExpiresUnixSeconds: asked + Double(tokens.accessExpiresIn))
        return tokens.accessToken
    }

    // MARK: Helpers

    static func jsonRequest(_ method: HTTPMethod, _ path: String, _ body: some Encodable) -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: [("Content-Type", "application/json")], body: json(body))
    }

    /// JSON with sorted keys: the same value gives the same bytes (items are sent again byte for byte).
    static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? [UInt8](encoder.encode(value))) ?? []
    }

    static func ok(_ response: HTTPResponse) throws -> HTTPResponse {
        guard (200 ..< 300).contains(response.status) else { throw StudyServerError(response) }
        return response
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw StudyServerError(status: response.status, code: "bad_answer",
                                   message: "its answer is not the API's \(type) (\(error)); check that the address is the study server's and that amble is up to date")
        }
    }

    /// A join code in a path: letters, digits and `-` pass; anything else is %-encoded.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if (0x30 ... 0x39).contains(byte) || (0x41 ... 0x5A).contains(byte) || (0x61 ... 0x7A).contains(byte) || byte == 0x2D {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
