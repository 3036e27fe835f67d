import AmbleCompanion
import AmbleCompanionStore
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble goals`: the wearer's goals, today's and this week's progress, and the strip.
struct GoalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "goals",
        abstract: "Show today's and this week's progress towards the goals, and the strip of the last 10 days with a goal.",
        discussion: """
            Progress counts the synced sessions, by the local day they started on (TZ is respected; weeks \
            run Monday to Sunday): steps of every session, mindful walks, and their minutes without pauses. \
            A day's figure is its steps against the daily goal and the weekly goals' pace by its end (by \
            Wednesday's end, 3/7 of the week). The strip is the mean of the last 10 days with a goal: a missed \
            day weakens it, it never starts over.
            """,
        subcommands: [ShowGoalsCommand.self, SetGoalsCommand.self],
        defaultSubcommand: ShowGoalsCommand.self
    )
}

struct ShowGoalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the progress (the default).")

    @ParentCommand var amble: AmbleCommand

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        // Reading only: no store is made when there is none.
        guard !storeIsMissing(amble.storePath) else {
            print("No goals set and no sessions synced yet: pair a band (amble pair), then set goals with "
                  + "amble goals set --steps-per-day N --walks-per-week N --mindful-minutes-per-week N")
            return
        }
        let store = try openCompanionStoreForReading(path: amble.storePath)
        print(try Self.render(store: store, nowUnixSeconds: Date().timeIntervalSince1970, time: .system, json: json))
    }

    /// The command's output for a store at a moment in a zone.
    static func render(store: CompanionStore, nowUnixSeconds: Double, time: LocalTime, json: Bool) throws -> String {
        guard let snapshot = GoalProgress.snapshot(history: try store.goalChanges(), sessions: try store.sessions(),
                                                   nowUnixSeconds: nowUnixSeconds, time: time) else {
            return json ? "null" : "No goals set. Set them with: amble goals set --steps-per-day N --walks-per-week N --mindful-minutes-per-week N"
        }
        return json ? GoalsText.json(snapshot) : GoalsText.text(snapshot)
    }
}

struct SetGoalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set the goals; a goal not given keeps its value, 0 drops it.",
        discussion: "New goals count from today (the whole of today) on; the days before keep the goals they had."
    )

    @ParentCommand var amble: AmbleCommand

    @Option(help: ArgumentHelp("Steps a day (every session's steps), 1 to 100000; 0 drops the goal.", valueName: "n"))
    var stepsPerDay: Int?

    @Option(help: ArgumentHelp("Mindful walks a week (Monday to Sunday), 1 to 50; 0 drops the goal.", valueName: "n"))
    var walksPerWeek: Int?

    @Option(help: ArgumentHelp("Minutes of mindful walking a week, pauses left out, 1 to 10000; 0 drops the goal.", valueName: "n"))
    var mindfulMinutesPerWeek: Int?

    func validate() throws {
        func check(_ value: Int?, _ option: String, _ range: ClosedRange<Int>, _ unit: String) throws {
            guard let value, value != 0 else { return }
            guard range.contains(value) else {
                throw ValidationError("--\(option) \(value) is out of range: give \(range.lowerBound) to \(range.upperBound) \(unit), or 0 to drop this goal")
            }
        }
        try check(stepsPerDay, "steps-per-day", GoalTargets.stepsPerDayRange, "steps")
        try check(walksPerWeek, "walks-per-week", GoalTargets.walksPerWeekRange, "walks")
        try check(mindfulMinutesPerWeek, "mindful-minutes-per-week", GoalTargets.mindfulMinutesPerWeekRange, "minutes")
    }

    func run() throws {
        // Here, not in validate(): the parser checks for unknown options only after validate(),
        // so a misspelt option (--stepz-per-day) would be reported as no option at all.
        guard stepsPerDay != nil || walksPerWeek != nil || mindfulMinutesPerWeek != nil else {
            throw CommandError("give at least one of --steps-per-day, --walks-per-week, --mindful-minutes-per-week")
        }
        let store = try openCompanionStore(path: amble.storePath)
        let targets = try Self.set(store: store, stepsPerDay: stepsPerDay, walksPerWeek: walksPerWeek,
                                   mindfulMinutesPerWeek: mindfulMinutesPerWeek, nowUnixSeconds: Date().timeIntervalSince1970)
        print(targets.isEmpty ? "No goals now: `amble goals set` sets them again."
              : "Goals: \(GoalsText.targetsLine(targets)). The band shows today's progress after each amble sync.")
    }

    /// Merges the options given into the current goals and stores them; returns the new goals.
    static func set(store: CompanionStore, stepsPerDay: Int?, walksPerWeek: Int?, mindfulMinutesPerWeek: Int?, nowUnixSeconds: Double) throws -> GoalTargets {
        var targets = try store.goalChanges().last?.targets ?? GoalTargets()
        func merge(_ value: Int?, into current: inout Int?) { if let value { current = value == 0 ? nil : value } }
        merge(stepsPerDay, into: &targets.stepsPerDay)
        merge(walksPerWeek, into: &targets.walksPerWeek)
        merge(mindfulMinutesPerWeek, into: &targets.mindfulMinutesPerWeek)
        do {
            try store.setGoals(targets, nowUnixSeconds: nowUnixSeconds)
        } catch {
            throw CommandError("cannot store the goals: \(error)")
        }
        return targets
    }
}
