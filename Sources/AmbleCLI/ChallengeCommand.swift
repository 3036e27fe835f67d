import AmbleCompanion
import AmbleCompanionStore
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble challenge`: so many mindful walks a week for one to four weeks, in levels.
struct ChallengeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenge",
        abstract: "Start a challenge (walks a week for 1 to 4 weeks), follow it, and read its reports.",
        discussion: """
            Level N lasts N weeks. Level 1 is open from the start; level N+1 opens when a level N challenge \
            ends with half its walks or more; any level started once can be repeated. A challenge runs from \
            the local day it is started on; at its end a report gives the completion rate (each week's walks \
            counted up to its target) and a graph. The report's figures are kept at the first amble sync or \
            amble challenge start after the end.
            """,
        subcommands: [ShowChallengeCommand.self, StartChallengeCommand.self, ChallengeReportsCommand.self, ChallengeReportCommand.self],
        defaultSubcommand: ShowChallengeCommand.self
    )

    /// Every challenge as of now, oldest first.
    static func statuses(store: CompanionStore, nowUnixSeconds: Double, time: LocalTime) throws -> [ChallengeStatus] {
        let sessions = try store.sessions()
        return try store.challenges().compactMap { ChallengeStatus($0, sessions: sessions, nowUnixSeconds: nowUnixSeconds, time: time) }
    }

    static func openLevels(_ statuses: [ChallengeStatus]) -> [Int] {
        let byID = Dictionary(statuses.map { ($0.challenge.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ChallengeRules.openLevels(statuses.map(\.challenge)) { byID[$0.id].flatMap { $0.isOver ? $0.completionRate : nil } }
    }

    /// Closes challenges that are over with their figures (a command that writes calls it).
    /// Returns the ones it closed.
    @discardableResult
    static func closeFinished(store: CompanionStore, nowUnixSeconds: Double, time: LocalTime) throws -> [ChallengeStatus] {
        var closed: [ChallengeStatus] = []
        for status in try statuses(store: store, nowUnixSeconds: nowUnixSeconds, time: time) where status.challenge.state == .active && status.isOver {
            try store.finishChallenge(id: status.challenge.id, status.result(closedUnixSeconds: nowUnixSeconds))
            closed.append(status)
        }
        return closed
    }

    /// Whether `path` holds a store (or may: one this user may not read is reported when
    /// opened); read-only commands make none.
    static func storeExists(_ path: String) -> Bool { !storeIsMissing(path) }
}

struct ShowChallengeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the challenge under way: days left and progress (the default).")

    @ParentCommand var amble: AmbleCommand

    @Flag(help: "Print one JSON object (null when no challenge was ever started).")
    var json = false

    func run() throws {
        guard ChallengeCommand.storeExists(amble.storePath) else {
            print(json ? "null" : "No challenge yet, and no sessions synced yet: pair a band (amble pair), then amble challenge start --weeks 1 --walks-per-week 3")
            return
        }
        let store = try openCompanionStoreForReading(path: amble.storePath)
        print(try Self.render(store: store, nowUnixSeconds: Date().timeIntervalSince1970, time: .system, json: json))
    }

    static func render(store: CompanionStore, nowUnixSeconds: Double, time: LocalTime, json: Bool) throws -> String {
        let statuses = try ChallengeCommand.statuses(store: store, nowUnixSeconds: nowUnixSeconds, time: time)
        let open = ChallengeCommand.openLevels(statuses)
        guard let latest = statuses.last else {
            return json ? "null" : "No challenge yet. Start level 1 with: amble challenge start --weeks 1 --walks-per-week 3"
        }
        if json { return ChallengeReport.json(latest) }
        if !latest.isOver { return ChallengeReport.progressText(latest, open: open) }
        return ChallengeReport.reportText(latest) + "\n\nLevels open: " + open.map(String.init).joined(separator: ", ")
            + ". Past reports: amble challenge reports"
    }
}

struct StartChallengeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a challenge today: a level (its weeks) and walks a week.")

    @ParentCommand var amble: AmbleCommand

    @Option(help: ArgumentHelp("How many weeks, 1 to 4: the level.", valueName: "n"))
    var weeks: Int

    @Option(help: ArgumentHelp("Mindful walks each week, 1 to 21.", valueName: "n"))
    var walksPerWeek: Int

    func validate() throws {
        guard ChallengeRules.levels.contains(weeks) else {
            throw ValidationError("--weeks \(weeks) is not a level: give 1, 2, 3 or 4 (level N lasts N weeks)")
        }
        guard ChallengeRules.walksPerWeekRange.contains(walksPerWeek) else {
            throw ValidationError("--walks-per-week \(walksPerWeek) is out of range: give 1 to 21 walks")
        }
    }

    func run() throws {
        let store = try openCompanionStore(path: amble.storePath)
        print(try Self.start(store: store, weeks: weeks, walksPerWeek: walksPerWeek, nowUnixSeconds: Date().timeIntervalSince1970, time: .system))
    }

    /// Closes a finished challenge, checks the level is open and none is under way, starts it.
    static func start(store: CompanionStore, weeks: Int, walksPerWeek: Int, nowUnixSeconds: Double, time: LocalTime) throws -> String {
        var said: [String] = []
        for closed in try ChallengeCommand.closeFinished(store: store, nowUnixSeconds: nowUnixSeconds, time: time) {
            said.append("Challenge #\(closed.challenge.id) ended with \(GoalsText.percent(closed.completionRate)): amble challenge report \(closed.challenge.id)")
        }
        let statuses = try ChallengeCommand.statuses(store: store, nowUnixSeconds: nowUnixSeconds, time: time)
        if let active = statuses.first(where: { !$0.isOver }) {
            throw CommandError("challenge #\(active.challenge.id) (\(ChallengeReport.title(active.challenge))) is under way until \(active.endDay.adding(days: -1).long); "
                               + "one challenge at a time: `amble challenge` shows it")
        }
        let open = ChallengeCommand.openLevels(statuses)
        guard open.contains(weeks) else {
            throw CommandError("level \(weeks) is not open yet: it opens when a level \(weeks - 1) challenge ends with half its walks or more. "
                               + "Levels open: \(open.map(String.init).joined(separator: ", ")).")
        }
        let first = time.day(nowUnixSeconds)
        let id = try store.startChallenge(weeks: weeks, walksPerWeek: walksPerWeek, startUnixSeconds: nowUnixSeconds, firstDay: first.iso)
        let last = first.adding(days: weeks * 7 - 1)
        said.append("Challenge #\(id) started: level \(weeks), \(walksPerWeek) walk\(walksPerWeek == 1 ? "" : "s") a week from today, \(first.long), to \(last.long).")
        return said.joined(separator: "\n")
    }
}

struct ChallengeReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reports", abstract: "List the reports of the challenges that ended.")

    @ParentCommand var amble: AmbleCommand

    func run() throws {
        guard ChallengeCommand.storeExists(amble.storePath) else {
            print("No reports yet: no challenge was started here.")
            return
        }
        print(try Self.render(store: try openCompanionStoreForReading(path: amble.storePath), nowUnixSeconds: Date().timeIntervalSince1970, time: .system))
    }

    static func render(store: CompanionStore, nowUnixSeconds: Double, time: LocalTime) throws -> String {
        let over = try ChallengeCommand.statuses(store: store, nowUnixSeconds: nowUnixSeconds, time: time).filter(\.isOver)
        guard !over.isEmpty else { return "No reports yet: a challenge's report comes at its end." }
        return (over.map(ChallengeReport.listLine) + ["Show one again with: amble challenge report ID [--html FILE]"]).joined(separator: "\n")
    }
}

struct ChallengeReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Show a challenge's end report again, or write it as an HTML page with its graph.",
        discussion: "The page is self-contained (inline CSS and SVG, nothing fetched, no script), like amble report's."
    )

    @ParentCommand var amble: AmbleCommand

    @Argument(help: ArgumentHelp("A challenge id from `amble challenge reports`, or `latest`.", valueName: "id|latest"))
    var challenge: String = "latest"

    @Option(help: ArgumentHelp("Write the report to this HTML file.", valueName: "file"), completion: .file(extensions: ["html"]))
    var html: String?

    @Flag(help: "Replace the HTML file if it exists.")
    var force = false

    @OptionGroup var sharing: SharingOptions

    func validate() throws {
        guard challenge == "latest" || Int64(challenge) != nil else {
            throw ValidationError("\"\(challenge)\" is not a challenge id; give a number from `amble challenge reports` or `latest`")
        }
        if html?.isEmpty == true { throw ValidationError("--html needs a file name") }
    }

    func run() throws {
        guard ChallengeCommand.storeExists(amble.storePath) else { throw CommandError("no challenge here yet: no store at \(amble.storePath)") }
        let output = html.map { OutputFile(path: $0, force: force, sharing: sharing.sharing) }
        try output?.refuseToReplace()
        let store = try openCompanionStoreForReading(path: amble.storePath)
        let status = try Self.find(challenge, store: store, nowUnixSeconds: Date().timeIntervalSince1970, time: .system)
        guard let output else {
            print(ChallengeReport.reportText(status))
            return
        }
        try output.write(ChallengeReport.html(status, time: .system))
        print("Wrote challenge #\(status.challenge.id)'s report to \(output.path)")
    }

    /// The challenge `text` names, once over.
    static func find(_ text: String, store: CompanionStore, nowUnixSeconds: Double, time: LocalTime) throws -> ChallengeStatus {
        let over = try ChallengeCommand.statuses(store: store, nowUnixSeconds: nowUnixSeconds, time: time)
        let wanted = text == "latest" ? over.last(where: \.isOver) : over.first { $0.challenge.id == Int64(text) }
        guard let wanted else {
            throw CommandError(text == "latest" ? "no challenge has ended yet; `amble challenge` shows the one under way"
                               : "no challenge \(text); `amble challenge reports` lists them")
        }
        guard wanted.isOver else {
            throw CommandError("challenge #\(wanted.challenge.id) is under way (\(wanted.daysLeft) days left): its report comes at its end; `amble challenge` shows its progress")
        }
        return wanted
    }
}
