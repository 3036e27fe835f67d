import AmbleCompanion
import AmbleCompanionStore
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble study export`: per participant, a folder with the answers (CSV) and the sessions of
/// the study's days in the formats of `amble export` (CSV and Open mHealth).
struct StudyExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the study's answers and sessions, one folder per participant.",
        discussion: """
            Each participant's folder (named by their id) holds amble-answers.csv (a row per answer), \
            amble-sessions.csv and amble-seconds.csv (the sessions that started during the study, as `amble \
            export --format csv` writes them), amble-openmhealth.json (the same sessions as Open mHealth data \
            points) and study.toml (the study file joined). Give the stores of several participants to \
            gather them; by default the --store one. Existing files are never overwritten without --force.
            """
    )

    @ParentCommand var amble: AmbleCommand

    @Option(help: ArgumentHelp("The folder to write into (made if missing). Default: the current folder.", valueName: "dir"))
    var out: String?

    @Flag(help: "Overwrite files that are already there.")
    var force = false

    @OptionGroup var sharing: SharingOptions

    @Argument(help: ArgumentHelp("Participants' stores to export (amble.sqlite files). Default: the --store one.", valueName: "store"),
              completion: .file(extensions: ["sqlite"]))
    var stores: [String] = []

    func run() throws {
        let paths = stores.isEmpty ? [amble.storePath] : stores
        var seen: [String: String] = [:]
        var exports: [(participant: String, files: [ExportFile])] = []
        for path in paths {
            let context: StudyContext
            do {
                context = try StudyContext.read(storePath: path)
            } catch let error as CommandError {
                throw CommandError("\(path): \(error.description)")
            }
            let participant = context.enrollment.participantID
            if let other = seen[participant] {
                throw CommandError("participant \(participant) is in both \(other) and \(path); give each store once")
            }
            seen[participant] = path
            let store = try openCompanionStoreForReading(path: path)
            exports.append((participant, try StudyExport.files(context, store: store, time: .system)))
        }
        let folder = out ?? "."
        for export in exports {
            let target = (folder.hasSuffix("/") ? folder : folder + "/") + export.participant
            for written in try ExportWriter.write(export.files, into: target, force: force, sharing: sharing.sharing) {
                print("wrote \(written.path) (\(written.summary))")
            }
        }
    }
}
