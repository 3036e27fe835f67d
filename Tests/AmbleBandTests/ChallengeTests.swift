@testable import AmbleCLI
@testable import AmbleCompanion
@testable import AmbleCompanionStore
import AmbleModel
import ArgumentParser
import Foundation
import Testing

/// Challenges: levels opening, repeating a level, the completion rate, the end report (text
/// and HTML with its graph), reports listed and shown again. A manual clock throughout.
struct ChallengeTests {
    let paris = GoalsTests.paris
    func utc(_ month: Int, _ day: Int, _ hour: Int = 0) -> Double { GoalsTests.utc(2026, month, day, hour) }

    @Test func theCompletionRateCountsEachWeekUpToItsTarget() {
        #expect(ChallengeRules.completionRate(walksPerDay: [1, 0, 1, 0, 1, 0, 0], walksPerWeek: 3) == 1)
        #expect(ChallengeRules.completionRate(walksPerDay: [1, 1, 1, 1, 1, 1, 1] + [0, 0, 0, 0, 0, 0, 0], walksPerWeek: 3) == 0.5,
                "a busy week does not make up for an empty one")
        #expect(ChallengeRules.completionRate(walksPerDay: [0, 0, 2, 0, 0, 0, 0] + [1, 0, 0, 0, 0, 0, 0], walksPerWeek: 4) == 3.0 / 8)
    }

    @Test func levelsOpenOneAfterTheOtherAndCanBeRepeated() throws {
        let store = try CompanionStore(path: nil)
        // Monday 2 March 2026, 09:00 in Paris.
        #expect(try StartChallengeCommand.start(store: store, weeks: 1, walksPerWeek: 3, nowUnixSeconds: utc(3, 2, 8), time: paris)
                == "Challenge #1 started: level 1, 3 walks a week from today, Mon 2 Mar 2026, to Sun 8 Mar 2026.")
        let underWay = #expect(throws: CommandError.self) {
            try StartChallengeCommand.start(store: store, weeks: 1, walksPerWeek: 2, nowUnixSeconds: utc(3, 3, 8), time: paris)
        }
        #expect(underWay?.description.contains("one challenge at a time") == true)

        // Two walks of three: 67 %, level 2 opens.
        try GoalsTests.session(store, start: utc(3, 2, 17))
        try GoalsTests.session(store, start: utc(3, 8, 20))    // Sunday 21:00, the last day
        try GoalsTests.session(store, start: utc(3, 8, 23))    // Monday 00:00 in Paris: after the end (and the first day of the next)
        let progress = try ShowChallengeCommand.render(store: store, nowUnixSeconds: utc(3, 5, 12), time: paris, json: false)
        #expect(progress.contains("4 days left · week 1 of 1: 1 of 3 walks · so far 33 % of the challenge"), "\(progress)")
        #expect(progress.hasSuffix("Levels open: 1"))

        let notYet = #expect(throws: CommandError.self) {
            try StartChallengeCommand.start(store: store, weeks: 3, walksPerWeek: 3, nowUnixSeconds: utc(3, 9, 8), time: paris)
        }
        #expect(notYet?.description == "level 3 is not open yet: it opens when a level 2 challenge ends with half its walks or more. Levels open: 1, 2.")

        let said = try StartChallengeCommand.start(store: store, weeks: 2, walksPerWeek: 4, nowUnixSeconds: utc(3, 9, 8), time: paris)
        #expect(said.hasPrefix("Challenge #2 started: level 2"), "the attempt at level 3 closed #1 already")
        let first = try #require(try store.challenges().first)
        #expect(first.state == .finished)
        #expect(first.result?.walksPerDay == [1, 0, 0, 0, 0, 0, 1])

        // Level 2, one walk in two weeks (12 %): the report suggests repeating it; level 3 stays shut.
        try GoalsTests.session(store, start: utc(3, 12, 9))
        let now = utc(3, 23, 9)
        let report = try ShowChallengeCommand.render(store: store, nowUnixSeconds: now, time: paris, json: false)
        #expect(report.contains("Completion: 25 % (2 walks of 8 asked; each week counts up to its 4)"), "\(report)")
        #expect(report.contains("Try level 2 again: amble challenge start --weeks 2 --walks-per-week 4"))
        #expect(report.hasSuffix("Levels open: 1, 2. Past reports: amble challenge reports"))
        #expect(throws: CommandError.self) { try StartChallengeCommand.start(store: store, weeks: 3, walksPerWeek: 4, nowUnixSeconds: now, time: paris) }
        #expect(try StartChallengeCommand.start(store: store, weeks: 2, walksPerWeek: 4, nowUnixSeconds: now, time: paris).contains("Challenge #3 started: level 2"),
                "a level can be repeated")
        #expect(try store.challenges().map(\.state) == [.finished, .finished, .active])
    }

    @Test func theReportIsPositiveAndKeptAsItWas() throws {
        let store = try CompanionStore(path: nil)
        try StartChallengeCommand.start(store: store, weeks: 1, walksPerWeek: 2, nowUnixSeconds: utc(3, 2, 8), time: paris)
        let walks = [try GoalsTests.session(store, start: utc(3, 3, 8)), try GoalsTests.session(store, start: utc(3, 4, 8)),
                     try GoalsTests.session(store, start: utc(3, 4, 17))]
        let after = utc(3, 10, 8)
        let text = try ChallengeReportCommand.find("latest", store: store, nowUnixSeconds: after, time: paris)
        let shown = ChallengeReport.reportText(text)
        #expect(shown.contains("Challenge complete: every walk you set out to take, and 3 in all. Well done!"))
        #expect(shown.contains("Completion: 100 % (3 walks of 2 asked"))
        #expect(shown.contains("Level 2 (2 weeks) is open: amble challenge start --weeks 2 --walks-per-week 2"))
        #expect(shown.contains("walks day by day: .12...."))

        // Closed at the next write (a sync), then its sessions deleted: the report stays the same.
        #expect(try ChallengeCommand.closeFinished(store: store, nowUnixSeconds: after, time: paris).count == 1)
        try store.deleteSessions(ids: walks)
        let again = try ChallengeReportCommand.find("1", store: store, nowUnixSeconds: after + 86_400, time: paris)
        #expect(ChallengeReport.reportText(again) == shown)
        #expect(try ChallengeReportsCommand.render(store: store, nowUnixSeconds: after, time: paris)
                == "#1  level 1  2026-03-02 to 2026-03-08  3/2 walks     100 %\nShow one again with: amble challenge report ID [--html FILE]")

        let html = ChallengeReport.html(again, time: paris)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("<script"))
        #expect(html.contains("id=\"performance\""))
        #expect(html.contains("<svg viewBox="))
        #expect(html.contains("<rect class=\"bar\""))
        #expect(html.contains("<polyline class=\"cadence\""))
        #expect(html.contains("<line class=\"limit\""))
        #expect(html.contains("Challenge complete"))
        #expect(html.contains(">100 %<"))
        #expect(html.contains("UTC+01:00"))

        let json = try ShowChallengeCommand.render(store: store, nowUnixSeconds: after, time: paris, json: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["completion_rate"] as? Double == 1)
        #expect(object["walks_per_day"] as? [Int] == [0, 1, 2, 0, 0, 0, 0])
        #expect(object["over"] as? Bool == true)
    }

    @Test func aReportWhileUnderWayOrUnknownIsRefusedPlainly() throws {
        let store = try CompanionStore(path: nil)
        #expect(try ChallengeReportsCommand.render(store: store, nowUnixSeconds: utc(3, 2), time: paris) == "No reports yet: a challenge's report comes at its end.")
        #expect(try ShowChallengeCommand.render(store: store, nowUnixSeconds: utc(3, 2), time: paris, json: false).hasPrefix("No challenge yet."))
        try StartChallengeCommand.start(store: store, weeks: 1, walksPerWeek: 2, nowUnixSeconds: utc(3, 2, 8), time: paris)
        let underWay = #expect(throws: CommandError.self) { try ChallengeReportCommand.find("1", store: store, nowUnixSeconds: utc(3, 4), time: paris) }
        #expect(underWay?.description.contains("is under way (5 days left)") == true)
        #expect(throws: CommandError.self) { try ChallengeReportCommand.find("7", store: store, nowUnixSeconds: utc(3, 4), time: paris) }
        #expect(throws: CommandError.self) { try ChallengeReportCommand.find("latest", store: store, nowUnixSeconds: utc(3, 4), time: paris) }
    }

    @Test func badValuesNameTheOption() {
        func message(_ arguments: [String]) -> String {
            do { _ = try AmbleCommand.parseAsRoot(arguments); return "" } catch { return AmbleCommand.message(for: error) }
        }
        #expect(message(["challenge", "start", "--weeks", "5", "--walks-per-week", "3"]) == "--weeks 5 is not a level: give 1, 2, 3 or 4 (level N lasts N weeks)")
        #expect(message(["challenge", "start", "--weeks", "1", "--walks-per-week", "0"]) == "--walks-per-week 0 is out of range: give 1 to 21 walks")
        #expect(message(["challenge", "start", "--weeks", "1"]).contains("--walks-per-week"))
        #expect(message(["challenge", "report", "first"]).contains("is not a challenge id"))
    }
}
