import AmbleModel
import AmbleServer
import AmbleStudyAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

/// The researcher's side in a test: logging in with the fixture's researcher, pages with its cookie.
extension ServerFixture {
    static let password = "correct horse battery"

    /// The arm a participant was allocated to (the researcher's view of it).
    func arm(of participant: JoinResponse) async throws -> String {
        let id = try #require(UUID(uuidString: participant.participantID))
        for try await arm in try await database.query("SELECT arm_name FROM participants WHERE id = \(id)", logger: TestDatabase.logger)
            .decode(String.self) { return arm }
        throw ServerError(.notFound, "no_participant", "no participant \(id)")
    }

    /// POST /login with a form; the response.
    func login(name: String = "ada", password: String = ServerFixture.password) async throws -> TestResponse {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "name", value: name), URLQueryItem(name: "password", value: password)]
        return try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                        body: ByteBuffer(string: components.percentEncodedQuery ?? ""))
    }

    /// The `Cookie` header value a browser would send back after `response`.
    static func cookie(_ response: TestResponse) -> String? {
        response.headers[.setCookie]?.split(separator: ";").first.map(String.init)
    }

    /// Logs in and returns the cookie to send.
    func loggedIn(name: String = "ada", password: String = ServerFixture.password) async throws -> String {
        let response = try await login(name: name, password: password)
        #expect(response.status == .seeOther)
        return try #require(Self.cookie(response))
    }

    func page(_ uri: String, cookie: String?) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: uri, method: .get, headers: headers)
    }

    func text(_ response: TestResponse) -> String { String(buffer: response.body) }

    /// Uploads a mindful walk for `participant` starting at `start`; expects it stored.
    func uploadWalk(_ participant: JoinResponse, start: Double, seconds: Int = 600, steps: Int = 1) async throws {
        let response = try await put("session", itemID(), sessionBytes(start: start, seconds: seconds, steps: steps), token: participant.accessToken)
        #expect(response.status == .created, "\(text(response))")
    }

    /// Uploads an answer sheet of `questionnaire` answered at `at`, with its period when given.
    func uploadAnswers(_ participant: JoinResponse, questionnaire: String, at: Double, answers: [String: String], period: String? = nil) async throws {
        let bytes = Array(try JSONEncoder().encode(AnswerItem(questionnaire: questionnaire, answeredAt: at, answers: answers, period: period)))
        let response = try await put("answer", itemID(), bytes, token: participant.accessToken)
        #expect(response.status == .created, "\(text(response))")
    }
}
