@testable import AmbleCLI
@testable import AmbleCompanion
@testable import AmbleCompanionStore
import AmbleModel
import AmbleStateMachines
import ArgumentParser
import Foundation
import Testing

/// Goals: progress per local day and week, the strip across days, zones and daylight saving,
/// the line the band shows, and `amble goals` itself. Every figure comes from a manual
/// clock: "now" and the zone are arguments.
struct GoalsTests {
    static let paris = zone("Europe/Paris")
    static let newYork = zone("America/New_York")

    static func zone(_ identifier: String) -> LocalTime {
        let zone = TimeZone(identifier: identifier)!
        return LocalTime { zone.secondsFromGMT(for: Date(timeIntervalSince1970: $0)) }
    }

    /// Seconds since 1970 of a UTC date and time.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Double {
        Double(CivilDay(year: year, month: month, day: day)!.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60)
    }

    static func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDay { CivilDay(year: year, month: month, day: day)! }

    static let band = (id: "cccc1111-0000-4000-8000-000000000001", name: "Goal band")

    /// Stores a session of `minutes` minutes with 2 steps a second (paused for its last
    /// `pausedMinutes`).
    @discardableResult
    static func session(_ store: CompanionStore, start: Double, minutes: Int = 10, pausedMinutes: Int = 0, kind: SessionKind = .mindfulWalk) throws -> Int64 {
        let count = minutes * 60
        let seconds = (0 ..< count).map { t in
            SessionSecond(offsetSeconds: t, steps: 2, cadenceStepsPerMinute: 100, heartRateBPM: nil, heartRateConfidence: nil,
                          overLimit: false, alerts: 0, paused: t >= count - pausedMinutes * 60)
        }
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        let summary = SessionTally(seconds).summary(kind: kind, startUnixSeconds: start, endUnixSeconds: start + Double(count), parameters: parameters)
        let bandSessionID = Int64((try store.sessions().map(\.bandSessionID).max() ?? 0) + 1)
        return try #require(try store.insert(bandID: band.id, bandName: band.name, bandSessionID: bandSessionID,
                                             record: SessionRecord(summary: summary, seconds: seconds), syncedAtUnixSeconds: start + 3600))
    }

    // MARK: Days and weeks

    @Test func aDayCountsStepsOfTheDayAndTheWeeklyGoalsAtTheirPace() throws {
        let store = try CompanionStore(path: nil)
        try store.setGoals(GoalTargets(stepsPerDay: 1000, walksPerWeek: 3, mindfulMinutesPerWeek: 70), nowUnixSeconds: Self.utc(2026, 3, 16, 7))
        // Mon 16 and Wed 18 March, 10:00 in Paris (09:00 UTC, winter time): 10 minutes, 1200 steps each.
        try Self.session(store, start: Self.utc(2026, 3, 16, 9))
        try Self.session(store, start: Self.utc(2026, 3, 18, 9), pausedMinutes: 2)
        let log = ActivityLog(try store.sessions(), time: Self.paris)
        #expect(log[Self.day(2026, 3, 16)] == DayActivity(walks: 1, mindfulMinutes: 10, steps: 1200))
        #expect(log[Self.day(2026, 3, 18)].mindfulMinutes == 8, "pauses are left out")

        // Wednesday's end: 2 walks of 3 x 3/7 = 1.29 by then (counted fully), 18 of 30 minutes, 1200 of 1000 steps.
        let wednesday = GoalProgress.day(Self.day(2026, 3, 18), targets: GoalTargets(stepsPerDay: 1000, walksPerWeek: 3, mindfulMinutesPerWeek: 70), log: log)
        #expect(wednesday.parts.map(\.kind) == [.steps, .walks, .mindfulMinutes])
        #expect(abs(wednesday.parts[1].target - 9.0 / 7) < 1e-9)
        #expect(abs(wednesday.parts[2].share - 0.6) < 1e-9)
        #expect(abs(wednesday.share - (1 + 1 + 0.6) / 3) < 1e-9)

        // Thursday 19, 20:00 in Paris: no session today.
        let snapshot = try #require(GoalProgress.snapshot(history: try store.goalChanges(), sessions: try store.sessions(),
                                                          nowUnixSeconds: Self.utc(2026, 3, 19, 19), time: Self.paris))
        #expect(snapshot.today.day == Self.day(2026, 3, 19))
        #expect(snapshot.today.parts[0].done == 0)
        #expect(snapshot.weekStart == Self.day(2026, 3, 16))
        #expect(snapshot.week.map(\.done) == [2400, 2, 18])
        #expect(snapshot.week.map(\.target) == [7000, 3, 70])
        #expect(snapshot.strip.map(\.day) == [Self.day(2026, 3, 16), Self.day(2026, 3, 17), Self.day(2026, 3, 18)], "the days since the goals were set")
    }

    @Test func theStripWeakensOnAMissedDayAndNeverStartsOver() throws {
        let store = try CompanionStore(path: nil)
        try store.setGoals(GoalTargets(stepsPerDay: 1000), nowUnixSeconds: Self.utc(2026, 4, 1, 6))
        for day in 1 ... 10 { try Self.session(store, start: Self.utc(2026, 4, day, 9)) }
        func strength(atEndOf day: Int) throws -> Double? {
            try GoalProgress.snapshot(history: try store.goalChanges(), sessions: try store.sessions(),
                                      nowUnixSeconds: Self.utc(2026, 4, day + 1, 12), time: Self.paris)?.stripStrength
        }
        #expect(try strength(atEndOf: 10) == 1)
        // Day 11 missed: a tenth less, not nothing.
        #expect(try strength(atEndOf: 11) == 0.9)
        try Self.session(store, start: Self.utc(2026, 4, 12, 9))
        #expect(try strength(atEndOf: 12) == 0.9, "the missed day is still among the last 10")
        for day in 13 ... 21 { try Self.session(store, start: Self.utc(2026, 4, day, 9)) }
        #expect(try strength(atEndOf: 21) == 1, "ten good days later it is whole again")
        func glyphs(atEndOf day: Int) throws -> String {
            try #require(GoalProgress.snapshot(history: try store.goalChanges(), sessions: try store.sessions(),
                                               nowUnixSeconds: Self.utc(2026, 4, day + 1, 12), time: Self.paris)).strip.map { GoalsText.glyph($0.share) }.joined()
        }
        #expect(try glyphs(atEndOf: 11) == "█████████·")
        #expect(try glyphs(atEndOf: 12) == "████████·█")
        #expect(try glyphs(atEndOf: 21) == "██████████")
    }

    @Test func onlyDaysWithAGoalMatter() throws {
        let store = try CompanionStore(path: nil)
        // Walks long before the goals, goals set mid-day on the 10th (they hold for all of it),
        // dropped on the 13th, set again on the 15th.
        for day in 1 ... 16 { try Self.session(store, start: Self.utc(2026, 6, day, 8)) }
        try store.setGoals(GoalTargets(walksPerWeek: 2), nowUnixSeconds: Self.utc(2026, 6, 10, 15))
        try store.setGoals(GoalTargets(), nowUnixSeconds: Self.utc(2026, 6, 13, 15))
        try store.setGoals(GoalTargets(stepsPerDay: 500), nowUnixSeconds: Self.utc(2026, 6, 15, 15))
        let history = try store.goalChanges()
        let snapshot = try #require(GoalProgress.snapshot(history: history, sessions: try store.sessions(),
                                                          nowUnixSeconds: Self.utc(2026, 6, 17, 12), time: Self.paris))
        #expect(snapshot.strip.map(\.day.components.day) == [10, 11, 12, 15, 16])
        #expect(snapshot.strip.first?.parts.map(\.kind) == [.walks], "the goals of the day, not today's")
        #expect(snapshot.strip.last?.parts.map(\.kind) == [.steps])
        #expect(GoalProgress.snapshot(history: history, sessions: [], nowUnixSeconds: Self.utc(2026, 6, 14, 12), time: Self.paris) == nil,
                "no goals on the 14th")
        #expect(GoalProgress.snapshot(history: [], sessions: [], nowUnixSeconds: Self.utc(2026, 6, 14, 12), time: Self.paris) == nil)
    }

    // MARK: Zones, midnight and daylight saving

    @Test func aSessionNearMidnightBelongsToTheLocalDayOfEachZone() throws {
        let store = try CompanionStore(path: nil)
        try store.setGoals(GoalTargets(walksPerWeek: 2), nowUnixSeconds: Self.utc(2026, 3, 20, 12))
        // Sunday 29 March 2026: Paris moves to summer time at 01:00 UTC (a 23-hour day).
        try Self.session(store, start: Self.utc(2026, 3, 25, 12))          // Wed 25 everywhere
        try Self.session(store, start: Self.utc(2026, 3, 28, 23, 30))      // Paris Sun 29 00:30 (winter time); New York Sat 28 19:30
        try Self.session(store, start: Self.utc(2026, 3, 29, 22, 30))      // Paris Mon 30 00:30 (summer time); New York Sun 29 18:30
        let sessions = try store.sessions()
        let paris = ActivityLog(sessions, time: Self.paris), newYork = ActivityLog(sessions, time: Self.newYork), utc = ActivityLog(sessions, time: .utc)
        #expect(paris[Self.day(2026, 3, 29)].walks == 1 && paris[Self.day(2026, 3, 30)].walks == 1)
        #expect(newYork[Self.day(2026, 3, 28)].walks == 1 && newYork[Self.day(2026, 3, 29)].walks == 1)
        #expect(utc[Self.day(2026, 3, 28)].walks == 1 && utc[Self.day(2026, 3, 29)].walks == 1)
        #expect(Self.paris.startOfDay(Self.day(2026, 3, 30)) - Self.paris.startOfDay(Self.day(2026, 3, 29)) == 23 * 3600)

        // The same instant, 23:00 UTC on Sunday 29: Monday 30 (a new week) in Paris, still Sunday in New York.
        let now = Self.utc(2026, 3, 29, 23)
        let history = try store.goalChanges()
        let inParis = try #require(GoalProgress.snapshot(history: history, sessions: sessions, nowUnixSeconds: now, time: Self.paris))
        let inNewYork = try #require(GoalProgress.snapshot(history: history, sessions: sessions, nowUnixSeconds: now, time: Self.newYork))
        #expect(inParis.weekStart == Self.day(2026, 3, 30))
        #expect(inParis.week.first?.done == 1, "the 00:30 walk opens Paris's week")
        #expect(inParis.today.share == 1, "1 walk by Monday's end is ahead of 2/7")
        #expect(inNewYork.weekStart == Self.day(2026, 3, 23))
        #expect(inNewYork.week.first?.done == 3)
        #expect(inNewYork.weekShare == 1)
        #expect(inParis.strip.last?.day == Self.day(2026, 3, 29))
        #expect(inNewYork.strip.last?.day == Self.day(2026, 3, 28))
    }

    // MARK: The band's line

    @Test func theBandLineFitsTheScreenAndIsAValidSetting() throws {
        let store = try CompanionStore(path: nil)
        try store.setGoals(GoalTargets(stepsPerDay: 2000, walksPerWeek: 3), nowUnixSeconds: Self.utc(2026, 3, 16, 7))
        try Self.session(store, start: Self.utc(2026, 3, 17, 9))
        let line = try #require(try GoalsAfterSync.bandLine(store: store, nowUnixSeconds: Self.utc(2026, 3, 17, 20), time: Self.paris))
        // Tuesday: 1200 of 2000 steps (60 %), 1 walk against 6/7 by today's end (100 %): 80 %.
        #expect(line == "Today 80% walks 1/3")
        #expect(try BandSetting.goalProgress.validate(line) == line)

        try store.setGoals(GoalTargets(stepsPerDay: 100_000, walksPerWeek: 50), nowUnixSeconds: Self.utc(2026, 3, 17, 21))
        for hour in 0 ..< 12 { try Self.session(store, start: Self.utc(2026, 3, 18, hour)) }
        let long = try #require(try GoalsAfterSync.bandLine(store: store, nowUnixSeconds: Self.utc(2026, 3, 18, 20), time: Self.paris))
        #expect(long.count <= 21)
        #expect(try BandSetting.goalProgress.validate(long) == long)
        try store.setGoals(GoalTargets(), nowUnixSeconds: Self.utc(2026, 3, 18, 21))
        #expect(try GoalsAfterSync.bandLine(store: store, nowUnixSeconds: Self.utc(2026, 3, 18, 22), time: Self.paris) == nil, "no goals: nothing is sent")
    }

    @Test func theBandChecksTheLineAndShowsItOverTheMenu() throws {
        #expect(throws: BandSettingError.self) { try BandSetting.goalProgress.validate(String(repeating: "x", count: 33)) }
        #expect(throws: BandSettingError.self) { try BandSetting.goalProgress.validate("Today 50% \u{7}") }
        #expect(throws: BandSettingError.self) { try BandSetting.goalProgress.validate("Heute 50 % · 1/3") }
        #expect(try BandSetting.goalProgress.validate("") == "")
        #expect(BandSetting.goalProgress.defaultValue == "")

        var practice = PracticeMachine(calibration: nil)
        guard case .show(.menu(_, _, nil))? = practice.start().last else { Issue.record("no status without goals"); return }
        practice.apply(.goalProgress, "Today 80% walks 1/3")
        guard case .show(.menu(_, _, "Today 80% walks 1/3"))? = practice.redraw().last else { Issue.record("the status is over the menu"); return }
    }

    // MARK: The command

    @Test func goalsSetKeepsWhatIsNotGivenAndZeroDropsAGoal() throws {
        let store = try CompanionStore(path: nil)
        var targets = try SetGoalsCommand.set(store: store, stepsPerDay: 6000, walksPerWeek: 3, mindfulMinutesPerWeek: nil, nowUnixSeconds: Self.utc(2026, 3, 16, 7))
        #expect(targets == GoalTargets(stepsPerDay: 6000, walksPerWeek: 3))
        targets = try SetGoalsCommand.set(store: store, stepsPerDay: 0, walksPerWeek: nil, mindfulMinutesPerWeek: 60, nowUnixSeconds: Self.utc(2026, 3, 17, 7))
        #expect(targets == GoalTargets(walksPerWeek: 3, mindfulMinutesPerWeek: 60))
        #expect(try store.goalChanges().count == 2)
    }

    @Test func badValuesNameTheOptionAndWhatToDo() throws {
        func message(_ arguments: [String]) -> String {
            do {
                _ = try AmbleCommand.parseAsRoot(arguments)
                return ""
            } catch {
                return AmbleCommand.message(for: error)
            }
        }
        #expect(message(["goals", "set", "--stepz-per-day", "8000"]) == "Unknown option '--stepz-per-day'. Did you mean '--steps-per-day'?")
        var nothing = try AmbleCommand.parseAsRoot(["--store", "/nonexistent/amble.sqlite", "goals", "set"])
        let error = #expect(throws: CommandError.self) { try nothing.run() }
        #expect(error?.description == "give at least one of --steps-per-day, --walks-per-week, --mindful-minutes-per-week")
        #expect(message(["goals", "set", "--walks-per-week", "99"]) == "--walks-per-week 99 is out of range: give 1 to 50 walks, or 0 to drop this goal")
        #expect(message(["goals", "set", "--steps-per-day", "-5"]).contains("--steps-per-day"))
        #expect(message(["goals", "set", "--mindful-minutes-per-week", "lots"]).contains("mindful-minutes-per-week"))
    }

    @Test func goalsShowsTodayTheWeekAndTheStripInTextAndJSON() throws {
        let store = try CompanionStore(path: nil)
        try store.setGoals(GoalTargets(stepsPerDay: 1000, walksPerWeek: 3, mindfulMinutesPerWeek: 30), nowUnixSeconds: Self.utc(2026, 3, 16, 7))
        try Self.session(store, start: Self.utc(2026, 3, 16, 9))
        try Self.session(store, start: Self.utc(2026, 3, 18, 9))
        let now = Self.utc(2026, 3, 18, 19)
        let text = try ShowGoalsCommand.render(store: store, nowUnixSeconds: now, time: Self.paris, json: false)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Goals: 1000 steps a day, 3 walks a week, 30 mindful minutes a week (set Mon 16 Mar 2026)")
        #expect(lines.contains("Today, Wed 18 Mar 2026: 100 %"))
        #expect(lines.contains { $0.hasPrefix("  steps today") && $0.contains("1200 of 1000 steps") && $0.hasSuffix("120 %") })
        #expect(lines.contains { $0.hasPrefix("  walks this week") && $0.contains("2 so far, pace 1.3") && $0.hasSuffix("156 %") }, "\(text)")
        #expect(lines.contains("This week, from Mon 16 Mar 2026: 56 %"), "\(text)")
        #expect(lines.contains { $0.hasPrefix("  walks ") && $0.contains("2 of 3 walks") && $0.hasSuffix("67 %") })
        #expect(lines.contains("Strip, the last 2 days with a goal: █▄  83 %"), "\(text)")
        #expect(lines.contains("  Mon 16 100 % · Tue 17 67 %"))

        let json = try ShowGoalsCommand.render(store: store, nowUnixSeconds: now, time: Self.paris, json: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let goals = try #require(object["goals"] as? [String: Any])
        #expect(goals["walks_per_week"] as? Int == 3 && goals["since"] as? String == "2026-03-16")
        let week = try #require(object["week"] as? [String: Any])
        #expect(week["first_day"] as? String == "2026-03-16")
        let strip = try #require(object["strip"] as? [String: Any])
        #expect((strip["days"] as? [[String: Any]])?.map { $0["day"] as? String } == ["2026-03-16", "2026-03-17"])
        #expect(strip["strength"] as? Double == 0.833)
        #expect(object["band_line"] as? String == "Today 100% walks 2/3")

        let empty = try CompanionStore(path: nil)
        #expect(try ShowGoalsCommand.render(store: empty, nowUnixSeconds: now, time: Self.paris, json: false).hasPrefix("No goals set."))
        #expect(try ShowGoalsCommand.render(store: empty, nowUnixSeconds: now, time: Self.paris, json: true) == "null")
    }

    @Test func readingCommandsMakeNoStore() throws {
        let folder = NSTemporaryDirectory() + "amble-goals-\(UUID().uuidString)"
        let path = folder + "/amble.sqlite"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for arguments in [["goals"], ["goals", "--json"], ["challenge"], ["challenge", "reports"]] {
            var command = try AmbleCommand.parseAsRoot(["--store", path] + arguments)
            try command.run()
            #expect(!FileManager.default.fileExists(atPath: path), "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: folder), "\(arguments)")
        }
        var set = try AmbleCommand.parseAsRoot(["--store", path, "goals", "set", "--walks-per-week", "3"])
        #expect(throws: CommandError.self) { try set.run() }
        #expect(!FileManager.default.fileExists(atPath: path), "only pair makes a store")
    }
}
