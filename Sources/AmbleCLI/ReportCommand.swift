import AmbleCompanion
import AmbleStoreSupport
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble report`: one session, a week or a month as a self-contained HTML page.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a session, a week or a month as one HTML page with charts.",
        discussion: """
            The page is one self-contained file (inline CSS and SVG, nothing fetched, no script) that reads \
            on a phone and prints. Times are local (TZ is respected). A walk's page charts cadence against \
            the limit with alerts and pauses, and heart rate; a week's or month's page charts walks, mindful \
            minutes, the time within the limit, resting heart rate and steps per day.
            """
    )

    @ParentCommand var amble: AmbleCommand

    @Argument(help: ArgumentHelp("A session id from `amble sessions list`, or `latest`; with --week or --month, a day in it (YYYY-MM-DD; YYYY-MM for a month), default today.", valueName: "id|latest|date"))
    var target: String?

    @Flag(help: "Report the week (Monday to Sunday) that contains the date.")
    var week = false

    @Flag(help: "Report the calendar month that contains the date.")
    var month = false

    @Option(help: ArgumentHelp("The HTML file to write.", valueName: "file"), completion: .file(extensions: ["html"]))
    var html: String

    @Flag(help: "Replace the file if it exists.")
    var force = false

    @OptionGroup var sharing: SharingOptions

    func validate() throws {
        if week && month { throw ValidationError("give --week or --month, not both") }
        if week || month {
            if let target, CivilDay(parsing: target) == nil {
                throw ValidationError("\"\(target)\" is not a date; give YYYY-MM-DD" + (month ? " or YYYY-MM" : ""))
            }
            if week, let target, target.split(separator: "-").count == 2 {
                throw ValidationError("\"\(target)\" is a month; give a day (YYYY-MM-DD) for --week")
            }
        } else {
            guard let target else { throw ValidationError("give a session id (or `latest`), --week or --month") }
            guard target == "latest" || Int64(target) != nil else {
                throw ValidationError("\"\(target)\" is not a session id; give a number from `amble sessions list` or `latest`")
            }
        }
        if html.isEmpty { throw ValidationError("--html needs a file name") }
    }

    func run() throws {
        let output = OutputFile(path: html, force: force, sharing: sharing.sharing)
        try output.refuseToReplace()
        let store = try openCompanionStoreForReading(path: amble.storePath)
        let time = LocalTime { localUTCOffsetSeconds(atUnixSeconds: $0) }
        let page: String
        let what: String
        if week || month {
            let day = target.flatMap(CivilDay.init(parsing:)) ?? time.day(Date().timeIntervalSince1970)
            let period = week ? ReportPeriod.week(containing: day) : ReportPeriod.month(containing: day)
            let inPeriod = try store.sessions().filter { period.contains(time.day($0.summary.startUnixSeconds)) }
            guard !inPeriod.isEmpty else {
                throw CommandError("no sessions from \(period.firstDay.iso) to \(period.lastDay.iso) (local time); `amble sessions list` shows what is stored")
            }
            let withSeconds = try inPeriod.map { session in (session, try store.session(id: session.id)?.1 ?? []) }
            page = PeriodReport.html(period: period, sessions: withSeconds, time: time)
            what = "\(period.title): \(inPeriod.count) session\(inPeriod.count == 1 ? "" : "s")"
        } else {
            let id: Int64
            if target == "latest" {
                guard let latest = try store.latestSessionID() else {
                    throw CommandError("no sessions yet; pull some with: amble sync --tcp HOST:PORT")
                }
                id = latest
            } else {
                id = Int64(target!)!
            }
            guard let (session, seconds) = try store.session(id: id) else {
                throw CommandError("no session \(id); `amble sessions list` shows the ids")
            }
            page = WalkReport.html(session, seconds: seconds, time: time)
            what = "\(session.summary.kind == .mindfulWalk ? "walk" : "calibration") #\(id)"
        }
        try output.write(page)
        print("Wrote \(what) to \(html)")
    }
}
