import AmbleServer
import Foundation
import PostgresNIO
import Testing

/// The read-only role `amble_analyst` (migration 0002-researcher-web): its views show the
/// uploads per arm; the tables behind them, tokens included, and every write are refused.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct AnalystRoleTests {
    @Test func theAnalystReadsTheViewsAndNothingElse() async throws {
        try await ServerFixture.run { server in
            let person = try await server.joined()
            try await server.uploadWalk(person, start: server.clock.now + 60, seconds: 600)
            try await server.uploadAnswers(person, questionnaire: "evening", at: server.clock.now + 900, answers: ["calm": "4"])
            let logger = TestDatabase.logger
            let myArm = try await server.arm(of: person)
            try await server.database.withConnection { connection in
                try await connection.query("SET ROLE amble_analyst", logger: logger)
                for try await (arm, minutes) in try await connection.query(
                    "SELECT arm, mindful_seconds / 60 FROM analyst.sessions", logger: logger).decode((String, Double).self) {
                    #expect(arm == myArm && minutes == 10)
                }
                var answers: [String] = []
                for try await (item, value) in try await connection.query(
                    "SELECT item, value FROM analyst.answers ORDER BY item", logger: logger).decode((String, String).self) {
                    answers.append("\(item)=\(value)")
                }
                #expect(answers == ["calm=4"])
                for try await count in try await connection.query("SELECT count(*) FROM analyst.participants", logger: logger).decode(Int.self) {
                    #expect(count == 1)
                }
                for statement in ["SELECT * FROM refresh_tokens", "SELECT * FROM items", "SELECT * FROM researchers",
                                  "DELETE FROM analyst.sessions", "UPDATE analyst.participants SET arm = 'control'"] {
                    await #expect(throws: PSQLError.self, "\(statement)") {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                }
                try await connection.query("RESET ROLE", logger: logger)
            }
        }
    }
}
