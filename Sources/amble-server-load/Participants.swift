import AmbleStudyAPI
import NIOCore
import NIOPosix
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a joined participant's laptop keeps: its tokens. Written to the participants file by
/// `join`, read back by `run` (and written again there with the refresh tokens rotated).
struct ParticipantRecord: Codable, Sendable {
    var participantID: String
    var studyID: String
    var acceptedAt: Double
    var refreshToken: String
    var accessToken: String
    var accessExpiresAt: Double
}

/// One simulated laptop's tokens, refreshed through `POST /v1/token` as the laptop does: when
/// the access token has under 30 s left or is refused (401); one refresh at a time (two at once
/// would present a spent refresh token, which revokes every token of the participant).
actor Participant {
    private(set) var record: ParticipantRecord
    private var refreshing: Task<String, any Error>?
    private(set) var refreshes = 0

    init(_ record: ParticipantRecord) { self.record = record }

    var id: String { record.participantID }

    /// Whether the access token has under 30 s left (by this machine's clock).
    var needsRefresh: Bool { record.accessExpiresAt - 30 <= Date().timeIntervalSince1970 }

    /// A valid access token, refreshed over `connection` when needed (or when `refused` is it).
    func accessToken(over connection: Connection, refused: String? = nil) async throws -> String {
        if refused == nil || refused != record.accessToken, record.accessExpiresAt - 30 > Date().timeIntervalSince1970 {
            return record.accessToken
        }
        if let refreshing { return try await refreshing.value }
        let token = record.refreshToken
        let task = Task { () async throws -> String in
            let asked = Date().timeIntervalSince1970
            let body = try JSONEncoder().encode(TokenRequest(refreshToken: token))
            let response = try await connection.send(Request(method: .POST, path: "/v1/token", headers: [("Content-Type", "application/json")], body: Array(body)))
            guard response.status == 200 else { throw LoadError("refresh answered \(response.status): \(String(decoding: response.body, as: UTF8.self))") }
            let tokens = try JSONDecoder().decode(TokenResponse.self, from: Data(response.body))
            self.store(tokens, asked: asked)
            return tokens.accessToken
        }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    private func store(_ tokens: TokenResponse, asked: Double) {
        record.accessToken = tokens.accessToken
        record.refreshToken = tokens.refreshToken
        record.accessExpiresAt = asked + Double(tokens.accessExpiresIn)
        refreshes += 1
    }
}

/// Joins with each code as `amble study join` does (`GET /v1/join/CODE`, then `POST /v1/join`
/// accepting the consent shown), `parallel` joins at a time.
enum Joining {
    static func join(codes: [String], target: Target, parallel: Int, acceptedAt: Double) async throws -> [ParticipantRecord] {
        let group = MultiThreadedEventLoopGroup.singleton
        let context = try Connection.sslContext(for: target)
        let next = Counter()
        return try await withThrowingTaskGroup(of: [ParticipantRecord].self) { tasks in
            for _ in 0 ..< min(parallel, codes.count) {
                tasks.addTask {
                    let connection = Connection(target: target, group: group, sslContext: context)
                    defer { connection.close() }
                    var joined: [ParticipantRecord] = []
                    while let index = next.take(below: codes.count) {
                        joined.append(try await joinOne(codes[index], over: connection, acceptedAt: acceptedAt))
                    }
                    return joined
                }
            }
            var all: [ParticipantRecord] = []
            for try await some in tasks { all += some }
            return all
        }
    }

    static func joinOne(_ code: String, over connection: Connection, acceptedAt: Double) async throws -> ParticipantRecord {
        let preview = try await connection.send(Request(method: .GET, path: "/v1/join/\(code)"))
        guard preview.status == 200 else { throw LoadError("GET /v1/join/\(code) answered \(preview.status): \(String(decoding: preview.body, as: UTF8.self))") }
        let study = try JSONDecoder().decode(JoinPreview.self, from: Data(preview.body))
        let request = JoinRequest(code: code, consentVersion: study.consent.version, consentSHA256: study.consent.sha256,
                                  acceptedAt: acceptedAt, timeZone: "UTC")
        // The server's clock may be set back (joins in the past): the token expires by it.
        let asked = Date().timeIntervalSince1970
        let now = acceptedAt + 60 > asked ? acceptedAt : asked
        let response = try await connection.send(Request(method: .POST, path: "/v1/join", headers: [("Content-Type", "application/json")],
                                                         body: Array(try JSONEncoder().encode(request))))
        guard response.status == 201 else { throw LoadError("POST /v1/join answered \(response.status): \(String(decoding: response.body, as: UTF8.self))") }
        let joined = try JSONDecoder().decode(JoinResponse.self, from: Data(response.body))
        return ParticipantRecord(participantID: joined.participantID, studyID: joined.studyID, acceptedAt: acceptedAt,
                                 refreshToken: joined.refreshToken, accessToken: joined.accessToken,
                                 accessExpiresAt: asked - (now - acceptedAt) + Double(joined.accessExpiresIn))
    }
}
