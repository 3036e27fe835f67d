#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import Crypto
import Hummingbird
import HummingbirdCore

/// Every decoder of outside input the server has, as one function of bytes (the `server-input`
/// fuzz target, Sources/AmbleFuzzTargets): the API's JSON bodies, the items (session bytes,
/// answer sheets, consent events, with their digest), access tokens, join codes, the login
/// form and the export's query. The first byte picks the decoder, the rest is its input.
/// Refusals (`ServerError`) are the expected outcome; a trap, a hang or growth is a bug.
public enum ServerInputs {
    /// The decoders, in the order the first byte picks them.
    public static let decoders = ["join", "token", "withdraw", "session", "answer", "consent", "access-token", "join-code", "login-form", "export-query"]

    /// A fixed key: the fuzzer cannot forge its signature, so tokens exercise the parsing.
    static let tokens = AccessTokens(key: try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32)))

    public static func decode(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        let text = String(decoding: input, as: UTF8.self)
        switch Int(first) % decoders.count {
        case 0: _ = try? JSONDecoder().decode(JoinRequest.self, from: Data(input))
        case 1: _ = try? JSONDecoder().decode(TokenRequest.self, from: Data(input))
        case 2: _ = try? JSONDecoder().decode(WithdrawRequest.self, from: Data(input))
        case 3, 4, 5:
            let kind = [ItemKind.session, .answer, .consent][Int(first) % decoders.count - 3]
            _ = try? CheckedItem.check(kind: kind.rawValue, id: String(repeating: "a", count: 32), bytes: input, digest: Digest.sha256Hex(input))
        case 6: _ = try? tokens.verify(text, now: 1_772_000_000)
        case 7: _ = Secrets.normalizedJoinCode(text)
        case 8: _ = try? URLEncodedFormDecoder().decode(ResearcherLogin.Form.self, from: text)
        default:
            var query: [String: String] = [:]
            for (name, value) in URI("/export?" + text).queryParameters { query[String(name)] = String(value) }
            _ = try? StudyExportRequest(query: query)
        }
    }

    /// Well-formed inputs, one or more per decoder, for the fuzzer's corpus.
    public static let seeds: [[UInt8]] = {
        func json(_ decoder: UInt8, _ value: some Encodable) -> [UInt8] { [decoder] + Array(try! JSONEncoder().encode(value)) }
        var seeds = [
            json(0, JoinRequest(code: "ABCDE-FGHIJ", consentVersion: "2", consentSHA256: String(repeating: "0", count: 64), acceptedAt: 1_772_000_000)),
            json(1, TokenRequest(refreshToken: "abc")), json(2, WithdrawRequest(deleteData: true)),
            json(4, AnswerItem(questionnaire: "evening", answeredAt: 1_772_000_100, answers: ["calm": "5"])),
            json(5, ConsentItem(event: .accepted, version: "2", sha256: String(repeating: "0", count: 64), at: 1_772_000_000)),
        ]
        let token = try! tokens.issue(participant: UUID().uuidString, study: UUID().uuidString, now: 1_772_000_000)
        seeds += [[6] + Array(token.utf8), [7] + Array("abcde-fghij".utf8), [8] + Array("name=ada&password=correct+horse%20battery".utf8),
                  [9] + Array("format=csv&table=seconds&participant=\(UUID().uuidString)&after=12&through=40".utf8)]
        return seeds
    }()
}
