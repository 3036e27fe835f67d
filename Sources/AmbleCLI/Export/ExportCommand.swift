import AmbleCompanion
import AmbleStoreSupport
import AmbleCompanionStore
import AmbleLinux
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ExportFormat: ExpressibleByArgument {
    public static var allValueStrings: [String] { available.map(\.rawValue) }
}

/// `amble export`: sessions as files other tools read (CSV, Open mHealth JSON, TCX, FIT).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write sessions as files other tools read: CSV, Open mHealth JSON, TCX, FIT or raw samples.",
        discussion: """
            csv: amble-sessions.csv (a row per session) and amble-seconds.csv (a row per second), units \
            in the column names, UTC ISO 8601 times. openmhealth: amble-openmhealth.json, step-count \
            (per minute), heart-rate (per second) and physical-activity (per walk, activity_name walking) data points. \
            tcx: amble-walk-ID-START.tcx for each mindful walk, its laps split at pauses (Sport Other, the schema's \
            only choice for a walk; filed under Walking). fit: amble-walk-ID-START.fit for each mindful walk, sport \
            walking, the same laps. Every format adds up to the session's steps and distance. raw: amble-raw-ID-steps.csv \
            and amble-raw-ID-hr.csv, the samples the band kept with consent_raw_capture on, as `amble analyze \
            steps|hr` reads them. An existing file is never overwritten without --force.
            """
    )

    @ParentCommand var amble: AmbleCommand

    @Option(help: "The format to write.")
    var format: ExportFormat

    @Option(help: ArgumentHelp("The folder to write into (made if missing). Default: the current folder.", valueName: "dir"))
    var out: String?

    @Flag(help: "Overwrite files that are already there.")
    var force = false

    @OptionGroup var sharing: SharingOptions

    @Option(help: ArgumentHelp("Only sessions that started at or after DATE: YYYY-MM-DD (local midnight) or an ISO 8601 time with its offset (2026-01-05T09:00:00Z).", valueName: "date"))
    var since: String?

    @Argument(help: ArgumentHelp("Session ids from `amble sessions list`, or `latest`. Default: every session.", valueName: "id"))
    var sessions: [String] = []

    func validate() throws {
        if since != nil && !sessions.isEmpty {
            throw ValidationError("give session ids or --since, not both")
        }
        for id in sessions where id != "latest" && Int64(id) == nil {
            throw ValidationError("\"\(id)\" is not a session id; give numbers from `amble sessions list` or `latest`")
        }
        if let since { _ = try ExportSelection.parseSince(since) }
    }

    func run() throws {
        let store = try openCompanionStoreForReading(path: amble.storePath)
        let all = try store.sessions()
        let chosen = try ExportSelection.choose(from: all, ids: sessions, since: since.map { try ExportSelection.parseSince($0) }, sinceText: since)
        var exported: [ExportedSession] = []
        for session in chosen {
            guard let (stored, seconds) = try store.session(id: session.id) else {
                throw CommandError("session \(session.id) went away while exporting; try again")
            }
            exported.append(ExportedSession(session: stored, seconds: seconds))
        }
        var notes: [String] = []
        let files = format == .raw
            ? ExportFormat.rawFiles(try chosen.map { (id: $0.id, blocks: try store.rawBlocks(sessionID: $0.id)) }, notes: &notes)
            : format.files(exported, notes: &notes)
        if format == .raw && files.isEmpty {
            throw CommandError("nothing to write: none of the \(plural(exported.count, "session")) selected has raw samples; the band keeps them only with consent_raw_capture on (amble band settings set consent_raw_capture on)")
        }
        guard !files.isEmpty else {
            throw CommandError("nothing to write: no mindful walks among the \(plural(exported.count, "session")) selected (\(format.rawValue.uppercased()) holds walks; --format csv or openmhealth take calibrations too)")
        }
        for note in notes { print(note) }
        for path in try ExportWriter.write(files, into: out ?? ".", force: force, sharing: sharing.sharing) {
            print("wrote \(path.path) (\(path.summary))")
        }
    }
}

/// Which sessions an export takes.
enum ExportSelection {
    /// `--since`: a local day (its midnight) or a moment, as `sessions list --since` reads
    /// it (`TimeBound`). Seconds since 1970 (UTC).
    static func parseSince(_ text: String, utcOffsetSeconds: @escaping @Sendable (Double) -> Int = { localUTCOffsetSeconds(atUnixSeconds: $0) }) throws -> Double {
        do {
            return try TimeBound(text, time: LocalTime(offsetSeconds: utcOffsetSeconds)).firstUnixSeconds
        } catch {
            throw ValidationError("--since \"\(text)\" is not a date; expected YYYY-MM-DD (local time) or an ISO 8601 time such as 2026-01-05T09:00:00Z")
        }
    }

    /// The sessions to export, oldest first: those named (`latest` is the newest), those
    /// started at or after `since`, or all. Unknown ids and an empty result are errors.
    static func choose(from all: [CompanionSession], ids: [String], since: Double?, sinceText: String? = nil) throws -> [CompanionSession] {
        guard !all.isEmpty else {
            throw CommandError("no sessions in the store yet; pull some with: amble sync")
        }
        if !ids.isEmpty {
            let newest = all.max { $0.id < $1.id }!.id
            let wanted = ids.map { $0 == "latest" ? newest : Int64($0)! }
            let known = Set(all.map(\.id))
            let unknown = wanted.filter { !known.contains($0) }
            if !unknown.isEmpty {
                let list = unknown.map(String.init).joined(separator: ", ")
                throw CommandError("no session \(list) in the store; `amble sessions list` shows the ids")
            }
            let set = Set(wanted)
            return all.filter { set.contains($0.id) }
        }
        if let since {
            let chosen = all.filter { $0.summary.startUnixSeconds >= since }
            if chosen.isEmpty {
                let latest = all.map(\.summary.startUnixSeconds).max()!
                throw CommandError("no session started at or after \(sinceText ?? isoDate(since)) (\(isoDate(since))); the latest started \(isoDate(latest))")
            }
            return chosen
        }
        return all
    }
}

/// Writes an export's files into a folder: all or nothing when one is already there. The
/// files are 0600 and the folders it makes 0700 unless `sharing` says `.umask` (`--shared`).
enum ExportWriter {
    struct Written {
        var path: String
        var summary: String
    }

    static func write(_ files: [ExportFile], into folder: String, force: Bool, sharing: FileSharing = .ownerOnly) throws -> [Written] {
        do {
            try makeFolders(folder, sharing: sharing)
        } catch {
            throw CommandError("cannot make the folder \(folder): \(error.sentence(orElse: "choose another --out"))")
        }
        let paths = files.map { (folder.hasSuffix("/") ? folder : folder + "/") + $0.name }
        if !force {
            let existing = paths.filter { FileManager.default.fileExists(atPath: $0) }
            if !existing.isEmpty {
                let names = existing.count == 1 ? "\(existing[0]) already exists" : existing.joined(separator: ", ") + " already exist"
                throw CommandError("\(names); nothing was written. Pass --force to overwrite, or choose another --out")
            }
        }
        var written: [Written] = []
        for (file, path) in zip(files, paths) {
            try OutputFile(path: path, force: force, sharing: sharing).write(file.bytes)
            written.append(Written(path: path, summary: file.summary))
        }
        return written
    }
}
