import AmbleServer
import AmbleStudyAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The dashboard against the real server and database: two participants of the fixture's study
/// (2026-02-23 to 03-08, an evening questionnaire due daily), one walking twice and answering
/// on March 2, the other silent.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct DashboardTests {
    /// 2026-03-02T00:00:00Z.
    static let march2 = 1_772_409_600.0

    /// Two participants; the first walks 10 and 5 minutes on March 2 (5 s over the
    /// limit each) and answers the evening questionnaire; the clock is then March 4, 00:00 UTC.
    static func twoParticipants(_ server: ServerFixture) async throws -> (walker: JoinResponse, silent: JoinResponse) {
        let walker = try await server.joined(), silent = try await server.joined()
        server.clock.advance(march2 + 12 * 3600 - server.clock.now)
        let token = try server.decode(TokenResponse.self, try await server.post("/v1/token", TokenRequest(refreshToken: walker.refreshToken)))
        var fresh = walker
        fresh.accessToken = token.accessToken
        try await server.uploadWalk(fresh, start: march2 + 9 * 3600, seconds: 600)
        try await server.uploadWalk(fresh, start: march2 + 10 * 3600, seconds: 300)
        try await server.uploadAnswers(fresh, questionnaire: "evening", at: march2 + 11 * 3600, answers: ["calm": "5"])
        server.clock.advance(march2 + 2 * 86_400 - server.clock.now)
        return (walker, silent)
    }

    static func short(_ id: String) -> String { String(id.prefix(8)) }

    @Test func eachParticipantsDayIsSummedAndSilenceFlagged() async throws {
        try await ServerFixture.run { server in
            let (walker, silent) = try await Self.twoParticipants(server)
            let (walkerArm, silentArm) = (try await server.arm(of: walker), try await server.arm(of: silent))
            // The arms' rows (UTC days) are the rollup's: the job sums the days uploads marked.
            try await server.runJob { _ = try await ServerJobs.rollup(on: $0, logger: TestDatabase.logger) }
            let cookie = try await server.loggedIn()
            let response = try await server.page("/studies/\(server.study.uuidString.lowercased())/dashboard?days=3&to=2026-03-03", cookie: cookie)
            #expect(response.status == .ok)
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let html = server.text(response)
            let (w, s) = (Self.short(walker.participantID), Self.short(silent.participantID))
            // Per participant and day: walks, mindful minutes, within the limit (1 - 10/900 s),
            // surveys due (the daily one), answered.
            let cells = { (day: String, numbers: [String]) in
                "<td class=\"when\">\(day)</td>" + numbers.map { "<td class=\"num\">\($0)</td>" }.joined()
            }
            #expect(html.contains("<tr><td>\(w)</td><td>\(walkerArm)</td>" + cells("2026-03-02", ["2", "15", "99 %", "1", "1"]) + "</tr>"))
            #expect(html.contains("<tr><td>\(w)</td><td>\(walkerArm)</td>" + cells("2026-03-03", ["0", "0", "–", "1", "0"]) + "</tr>"))
            #expect(html.contains("<tr><td>\(s)</td><td>\(silentArm)</td>" + cells("2026-03-02", ["0", "0", "–", "1", "0"]) + "</tr>"))
            // Per arm and day, summed; the silent participant counted as such.
            if walkerArm == silentArm {
                #expect(html.contains("<tr><td>\(walkerArm)</td><td class=\"num\">2 (1 silent)</td>" + cells("2026-03-02", ["2", "15", "99 %", "2", "1"])))
            } else {
                #expect(html.contains("<tr><td>\(walkerArm)</td><td class=\"num\">1</td>" + cells("2026-03-02", ["2", "15", "99 %", "1", "1"])))
                #expect(html.contains("<tr><td>\(silentArm)</td><td class=\"num\">1 (1 silent)</td>" + cells("2026-03-02", ["0", "0", "–", "1", "0"])))
            }
            // Last upload and band contact (the 5-minute walk's end); the flag after 3 days.
            #expect(html.contains("<td class=\"when\">2026-03-02 12:00 UTC</td><td class=\"when\">2026-03-02 10:05 UTC</td><td class=\"ok\">active</td>"))
            #expect(html.contains("<td class=\"when\">never</td><td class=\"when\">never</td><td class=\"flag\">silent 6 days</td>"))
            server.clock.advance(2 * 86_400)
            let again = try await server.loggedIn()   // the first login has expired
            let later = server.text(try await server.page("/studies/\(server.study.uuidString.lowercased())/dashboard", cookie: again))
            #expect(later.contains("<td class=\"when\">2026-03-02 10:05 UTC</td><td class=\"flag\">silent 3 days</td>"))
            #expect(later.contains("2026-03-06</td>"))   // the default range ends today
        }
    }

    @Test func badRangesAreRefusedSayingWhatToGive() async throws {
        try await ServerFixture.run { server in
            let cookie = try await server.loggedIn()
            let base = "/studies/\(server.study.uuidString.lowercased())/dashboard"
            for (query, code) in [("days=0", "bad_days"), ("days=400", "bad_days"), ("to=March", "bad_day"), ("tz=Mars/Olympus", "unknown_time_zone"), ("tz=UTC%00", "unknown_time_zone")] {
                let response = try await server.page("\(base)?\(query)", cookie: cookie)
                #expect(response.status == .badRequest, "\(query)")
                #expect(server.errorCode(response) == code, "\(query)")
            }
            #expect(try await server.page("\(base)?tz=Europe/Berlin", cookie: cookie).status == .ok)
        }
    }
}
