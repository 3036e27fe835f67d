import AmbleCompanionStore
import Foundation
import AmbleSQLite
import Testing

/// The "goals" migration: goals kept as they change, challenges with their reports' figures,
/// and what the schema itself refuses.
struct GoalStoreTests {
    @Test func theGoalsMigrationComesAfterTheRawSamples() {
        let versions = CompanionStore.versions
        #expect(versions.firstIndex(of: "goals").map { versions[$0 - 1] } == "v6-band-state", "\(versions)")
    }

    @Test func goalsAreKeptAsTheyChange() throws {
        let store = try CompanionStore(path: nil)
        #expect(try store.goalChanges().isEmpty)
        try store.setGoals(GoalTargets(stepsPerDay: 5000, walksPerWeek: 3), nowUnixSeconds: 200)
        try store.setGoals(GoalTargets(mindfulMinutesPerWeek: 90), nowUnixSeconds: 100)
        #expect(try store.goalChanges() == [GoalChange(setUnixSeconds: 100, targets: GoalTargets(mindfulMinutesPerWeek: 90)),
                                            GoalChange(setUnixSeconds: 200, targets: GoalTargets(stepsPerDay: 5000, walksPerWeek: 3))],
                "in time order")
        #expect(throws: (any Error).self) { try store.setGoals(GoalTargets(walksPerWeek: 51), nowUnixSeconds: 300) }
        #expect(throws: (any Error).self) { try store.setGoals(GoalTargets(stepsPerDay: 0), nowUnixSeconds: 300) }
        #expect(try store.goalChanges().count == 2)
    }

    @Test func oneChallengeAtATimeAndItsFiguresOnceFinished() throws {
        let store = try CompanionStore(path: nil)
        let id = try store.startChallenge(weeks: 1, walksPerWeek: 3, startUnixSeconds: 1000, firstDay: "2026-03-02")
        #expect(throws: GoalStoreError.challengeUnderWay(id)) {
            try store.startChallenge(weeks: 2, walksPerWeek: 3, startUnixSeconds: 2000, firstDay: "2026-03-03")
        }
        #expect(throws: (any Error).self) { try store.startChallenge(weeks: 5, walksPerWeek: 3, startUnixSeconds: 2000, firstDay: "2026-03-03") }
        let result = StoredChallenge.Result(closedUnixSeconds: 9000, walksPerDay: [1, 0, 2, 0, 0, 0, 1], completionRate: 1)
        try store.finishChallenge(id: id, result)
        #expect(throws: GoalStoreError.noActiveChallenge(id)) { try store.finishChallenge(id: id, result) }
        let stored = try #require(try store.challenges().first)
        #expect(stored == StoredChallenge(id: id, weeks: 1, walksPerWeek: 3, startUnixSeconds: 1000, firstDay: "2026-03-02", state: .finished, result: result))
        #expect(stored.level == 1)
        let next = try store.startChallenge(weeks: 2, walksPerWeek: 4, startUnixSeconds: 10_000, firstDay: "2026-03-09")
        #expect(try store.challenges().map(\.state) == [.finished, .active])
        #expect(next > id)
    }

    @Test func theSchemaRefusesAFinishedChallengeWithoutItsFigures() throws {
        let file = TemporaryDatabase()
        _ = try CompanionStore(path: file.path)
        #expect(throws: (any Error).self) {
            try file.write { db in
                try db.execute(sql: #"INSERT INTO "challenge" ("weeks", "walks_per_week", "start_unix", "first_day", "state") VALUES (1, 3, 0, '2026-03-02', 'finished')"#)
            }
        }
        #expect(throws: (any Error).self) {
            try file.write { db in
                try db.execute(sql: #"INSERT INTO "challenge" ("weeks", "walks_per_week", "start_unix", "first_day", "state") VALUES (1, 3, 0, '2026-03-02', 'active')"#)
                try db.execute(sql: #"INSERT INTO "challenge" ("weeks", "walks_per_week", "start_unix", "first_day", "state") VALUES (1, 3, 0, '2026-03-09', 'active')"#)
            }
        }
    }

    @Test func aReadOnlyStoreReadsGoalsAndRefusesToWriteThem() throws {
        let file = TemporaryDatabase()
        do {
            let store = try CompanionStore(path: file.path)
            try store.setGoals(GoalTargets(walksPerWeek: 2), nowUnixSeconds: 100)
            try store.startChallenge(weeks: 1, walksPerWeek: 2, startUnixSeconds: 100, firstDay: "2026-03-02")
        }
        let reader = try CompanionStore(readingOnly: file.path)
        #expect(try reader.goalChanges().map(\.targets) == [GoalTargets(walksPerWeek: 2)])
        #expect(try reader.challenges().count == 1)
        #expect(throws: (any Error).self) { try reader.setGoals(GoalTargets(walksPerWeek: 3), nowUnixSeconds: 200) }
    }
}
