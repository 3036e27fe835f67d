import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The wearer's goals, each nil when not set.
public struct GoalTargets: Equatable, Sendable {
    /// Steps a day, every session's steps (calibrations too), 1...100000.
    public var stepsPerDay: Int?
    /// Mindful walks a week (Monday to Sunday, local time), 1...50.
    public var walksPerWeek: Int?
    /// Minutes of mindful walking a week, pauses left out, 1...10000.
    public var mindfulMinutesPerWeek: Int?

    public init(stepsPerDay: Int? = nil, walksPerWeek: Int? = nil, mindfulMinutesPerWeek: Int? = nil) {
        self.stepsPerDay = stepsPerDay
        self.walksPerWeek = walksPerWeek
        self.mindfulMinutesPerWeek = mindfulMinutesPerWeek
    }

    public var isEmpty: Bool { stepsPerDay == nil && walksPerWeek == nil && mindfulMinutesPerWeek == nil }

    public static let stepsPerDayRange = 1 ... 100_000
    public static let walksPerWeekRange = 1 ... 50
    public static let mindfulMinutesPerWeekRange = 1 ... 10_000
}

/// Goals as set at a moment: they hold from that local day on, until the next change.
public struct GoalChange: Equatable, Sendable {
    /// When `amble goals set` ran, seconds since 1970-01-01T00:00:00Z.
    public var setUnixSeconds: Double
    public var targets: GoalTargets

    public init(setUnixSeconds: Double, targets: GoalTargets) {
        self.setUnixSeconds = setUnixSeconds
        self.targets = targets
    }
}

/// A challenge: so many mindful walks a week for one to four weeks (its level is its number
/// of weeks), from a local day on.
public struct StoredChallenge: Equatable, Sendable {
    public enum State: String, Sendable {
        /// Under way, or over but not yet closed (the next write closes it).
        case active
        /// Over; `result` holds its report's figures.
        case finished
    }

    /// The figures of a finished challenge's report, kept as they were when it ended.
    public struct Result: Equatable, Sendable {
        /// When it was closed, seconds since 1970-01-01T00:00:00Z.
        public var closedUnixSeconds: Double
        /// Mindful walks on each of its days (weeks x 7 values).
        public var walksPerDay: [Int]
        /// Walks done against walks asked, each week's walks counted up to its target, 0...1.
        public var completionRate: Double

        public init(closedUnixSeconds: Double, walksPerDay: [Int], completionRate: Double) {
            self.closedUnixSeconds = closedUnixSeconds
            self.walksPerDay = walksPerDay
            self.completionRate = completionRate
        }
    }

    public var id: Int64
    /// 1...4; also its level.
    public var weeks: Int
    public var walksPerWeek: Int
    /// When it was started, seconds since 1970-01-01T00:00:00Z.
    public var startUnixSeconds: Double
    /// Its first local day, `YYYY-MM-DD` (kept as a day, so that a trip to another zone does
    /// not move it).
    public var firstDay: String
    public var state: State
    public var result: Result?

    public var level: Int { weeks }

    public init(id: Int64, weeks: Int, walksPerWeek: Int, startUnixSeconds: Double, firstDay: String, state: State, result: Result?) {
        self.id = id
        self.weeks = weeks
        self.walksPerWeek = walksPerWeek
        self.startUnixSeconds = startUnixSeconds
        self.firstDay = firstDay
        self.state = state
        self.result = result
    }
}

/// What the goals' part of the store refuses.
public enum GoalStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A challenge is under way already (its id).
    case challengeUnderWay(Int64)
    /// No such challenge, or it is not under way.
    case noActiveChallenge(Int64)

    public var description: String {
        switch self {
        case .challengeUnderWay(let id): return "challenge \(id) is under way; one challenge at a time"
        case .noActiveChallenge(let id): return "no challenge \(id) under way"
        }
    }
}

extension CompanionStore {
    /// The "goals" migration: the goals as set over time, and the challenges with their
    /// reports' figures. Written out here and never edited once shipped.
    static func migrateGoals(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE "goal_change" (
              "id" INTEGER PRIMARY KEY AUTOINCREMENT,
              "set_unix" DOUBLE NOT NULL,
              "steps_per_day" INTEGER CHECK ("steps_per_day" BETWEEN 1 AND 100000),
              "walks_per_week" INTEGER CHECK ("walks_per_week" BETWEEN 1 AND 50),
              "mindful_minutes_per_week" INTEGER CHECK ("mindful_minutes_per_week" BETWEEN 1 AND 10000));
            CREATE TABLE "challenge" (
              "id" INTEGER PRIMARY KEY AUTOINCREMENT,
              "weeks" INTEGER NOT NULL CHECK ("weeks" BETWEEN 1 AND 4),
              "walks_per_week" INTEGER NOT NULL CHECK ("walks_per_week" BETWEEN 1 AND 21),
              "start_unix" DOUBLE NOT NULL,
              "first_day" TEXT NOT NULL CHECK (length("first_day") = 10),
              "state" TEXT NOT NULL CHECK ("state" IN ('active', 'finished')),
              "closed_unix" DOUBLE,
              "walks_per_day" TEXT,
              "completion_rate" DOUBLE CHECK ("completion_rate" BETWEEN 0 AND 1),
              CHECK (("state" = 'finished') = ("closed_unix" IS NOT NULL AND "walks_per_day" IS NOT NULL AND "completion_rate" IS NOT NULL)));
            CREATE UNIQUE INDEX "challenge_one_active" ON "challenge"("state") WHERE "state" = 'active';
            """)
    }

    // MARK: Goals

    /// Every change of the goals, oldest first.
    public func goalChanges() throws -> [GoalChange] {
        try writer.read { db in
            try Row.fetchAll(db, sql: #"SELECT "set_unix", "steps_per_day", "walks_per_week", "mindful_minutes_per_week" FROM "goal_change" ORDER BY "set_unix", "id""#)
                .map { row in
                    GoalChange(setUnixSeconds: row[0], targets: GoalTargets(stepsPerDay: row[1], walksPerWeek: row[2], mindfulMinutesPerWeek: row[3]))
                }
        }
    }

    /// Records new goals (all three: nil drops one), from `nowUnixSeconds` on.
    public func setGoals(_ targets: GoalTargets, nowUnixSeconds: Double) throws {
        try writer.write { db in
            try db.execute(sql: #"INSERT INTO "goal_change" ("set_unix", "steps_per_day", "walks_per_week", "mindful_minutes_per_week") VALUES (?, ?, ?, ?)"#,
                           arguments: [nowUnixSeconds, targets.stepsPerDay, targets.walksPerWeek, targets.mindfulMinutesPerWeek])
        }
    }

    // MARK: Challenges

    /// Every challenge, oldest first.
    public func challenges() throws -> [StoredChallenge] {
        try writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT "id", "weeks", "walks_per_week", "start_unix", "first_day", "state", "closed_unix", "walks_per_day", "completion_rate"
                FROM "challenge" ORDER BY "id"
                """).map { row in
                let closed: Double? = row[6], perDay: String? = row[7], rate: Double? = row[8]
                var result: StoredChallenge.Result?
                if let closed, let perDay, let rate {
                    result = .init(closedUnixSeconds: closed, walksPerDay: perDay.split(separator: ",").compactMap { Int($0) }, completionRate: rate)
                }
                return StoredChallenge(id: row[0], weeks: row[1], walksPerWeek: row[2], startUnixSeconds: row[3], firstDay: row[4],
                                       state: StoredChallenge.State(rawValue: row[5]) ?? .finished, result: result)
            }
        }
    }

    /// Starts a challenge; throws `GoalStoreError.challengeUnderWay` when one is.
    @discardableResult
    public func startChallenge(weeks: Int, walksPerWeek: Int, startUnixSeconds: Double, firstDay: String) throws -> Int64 {
        try writer.write { db in
            if let active = try Int64.fetchOne(db, sql: #"SELECT "id" FROM "challenge" WHERE "state" = 'active'"#) {
                throw GoalStoreError.challengeUnderWay(active)
            }
            try db.execute(sql: #"INSERT INTO "challenge" ("weeks", "walks_per_week", "start_unix", "first_day", "state") VALUES (?, ?, ?, ?, 'active')"#,
                           arguments: [weeks, walksPerWeek, startUnixSeconds, firstDay])
            return db.lastInsertedRowID
        }
    }

    /// Closes the challenge under way with its report's figures.
    public func finishChallenge(id: Int64, _ result: StoredChallenge.Result) throws {
        try writer.write { db in
            try db.execute(sql: """
                UPDATE "challenge" SET "state" = 'finished', "closed_unix" = ?, "walks_per_day" = ?, "completion_rate" = ?
                WHERE "id" = ? AND "state" = 'active'
                """, arguments: [result.closedUnixSeconds, result.walksPerDay.map(String.init).joined(separator: ","),
                                 min(1, max(0, result.completionRate)), id])
            guard db.changesCount == 1 else { throw GoalStoreError.noActiveChallenge(id) }
        }
    }
}
