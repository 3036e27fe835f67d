import AmbleServer
import AmbleStudyAPI
import Foundation
import Hummingbird
import PostgresNIO
import Testing

/// `GET /v1/study`'s questionnaires: AmbleCompanion's due rules over the answers uploaded with
/// their periods, at the server's clock (2026-02-25 06:13 UTC, day 3 of the study) in the
/// participant's time zone.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct QuestionnaireStateTests {
    static let definition: StudyDefinition = {
        let questionnaires = [("baseline", "start"), ("final", "end")].map { name, due in
            "[[questionnaire]]\nname = \"\(name)\"\ntitle = \"\(name)\"\ndue = \"\(due)\"\n  [[questionnaire.item]]\n  id = \"calm\"\n  type = \"likert\"\n  text = \"Calm?\"\n  scale = [1, 5]\n"
        }.joined()
        let file = ServerFixture.studyFile().replacingOccurrences(of: "[[questionnaire]]", with: questionnaires + "[[questionnaire]]")
        return try! StudyDefinition.read(text: file, file: "due.toml")
    }()

    func states(_ f: ServerFixture, _ token: String) async throws -> [String: QuestionnaireState.State] {
        let response = try await f.get("/v1/study", token: token)
        #expect(response.status == .ok)
        return Dictionary(uniqueKeysWithValues: try f.decode(StudyResponse.self, response).questionnaires.map { ($0.name, $0.state) })
    }

    func answer(_ questionnaire: String, at: Double, period: String?) throws -> [UInt8] {
        Array(try JSONEncoder().encode(AnswerItem(questionnaire: questionnaire, answeredAt: at, answers: ["calm": "4"], period: period)))
    }

    @Test func theBaselineIsDueUntilItsAnswerArrivesWithItsPeriod() async throws {
        try await ServerFixture.run(Self.definition) { f in
            let joined = try await f.joined()
            let token = joined.accessToken
            #expect(try await states(f, token) == ["baseline": .due, "final": .notOpen, "evening": .due])
            // An older client's sheet carries no period: accepted and kept, but the rules cannot place it.
            #expect(try await f.put("answer", itemID(), try answer("baseline", at: f.clock.now + 10, period: nil), token: token).status == .created)
            #expect(try await states(f, token)["baseline"] == .due)
            let bad = try await f.put("answer", itemID(), try answer("baseline", at: f.clock.now + 15, period: "sheet:1"), token: token)
            #expect(bad.status == .badRequest && f.errorCode(bad) == "bad_period")
            #expect(try await f.put("answer", itemID(), try answer("baseline", at: f.clock.now + 20, period: "start"), token: token).status == .created)
            #expect(try await states(f, token) == ["baseline": .completed, "final": .notOpen, "evening": .due])
            var periods: [String?] = []
            for try await period in try await f.database.query("SELECT period FROM items WHERE kind = 'answer' ORDER BY seq").decode(String?.self) {
                periods.append(period)
            }
            #expect(periods == [nil, "start"])
            f.clock.advance(12 * 86_400)   // 2026-03-09: the study is over
            let later = try f.decode(TokenResponse.self, try await f.post("/v1/token", TokenRequest(refreshToken: joined.refreshToken))).accessToken
            #expect(try await states(f, later) == ["baseline": .completed, "final": .due, "evening": .over])
        }
    }

    /// The day's answer counts on the participant's own day: at 06:13 UTC it is already the 25th
    /// in UTC and at +14:00, still the 24th at -10:00.
    @Test func localDaysAreTheParticipantsTimeZones() async throws {
        try await ServerFixture.run(Self.definition) { f in
            let cases: [(String?, HTTPResponse.Status, QuestionnaireState.State?)] = [
                (nil, .created, .completed), ("+14:00", .created, .completed), ("Europe/Berlin", .created, .completed),
                ("-10:00", .created, .due), ("Pacific/Honolulu", .created, .due),
                ("Mars/Olympus", .badRequest, nil), ("+15:00", .badRequest, nil), ("CET-1CEST", .badRequest, nil),
            ]
            for (zone, status, evening) in cases {
                let code = try await f.codes(1)[0]
                let response = try await f.post("/v1/join", JoinRequest(code: code, consentVersion: f.consent.version, consentSHA256: f.consent.sha256,
                                                                        acceptedAt: f.clock.now, timeZone: zone))
                #expect(response.status == status, "\(zone ?? "none")")
                guard status == .created else {
                    #expect(f.errorCode(response) == "bad_time_zone")
                    continue
                }
                let token = try f.decode(JoinResponse.self, response).accessToken
                #expect(try await f.put("answer", itemID(), try answer("evening", at: f.clock.now + 1, period: "day:2026-02-25"), token: token).status == .created)
                #expect(try await states(f, token)["evening"] == evening, "\(zone ?? "none")")
            }
        }
    }
}
