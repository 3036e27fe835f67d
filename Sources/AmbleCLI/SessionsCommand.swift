import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble sessions`: review what was synced.
struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List, show, export and delete synced sessions.",
        subcommands: [ListCommand.self, ShowCommand.self, ExportCommand.self, DeleteSessionsCommand.self]
    )

    struct ListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the sessions, oldest first, in local time.",
            discussion: """
                Times on screen are in the local zone (set TZ for another); --json gives them in UTC, ISO 8601. \
                Dates are YYYY-MM-DD (a whole local day) or YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM]. A session a band was \
                still recording at its last sync is listed after the others (not with --json): it comes with the first \
                sync after it ends.
                """
        )

        @ParentCommand var amble: AmbleCommand

        @Option(help: ArgumentHelp("Only sessions that started on or after this day or moment.", valueName: "date"))
        var since: String?

        @Option(help: ArgumentHelp("Only sessions that started on or before this day (the whole day) or moment.", valueName: "date"))
        var until: String?

        @Option(help: ArgumentHelp("Only sessions of this kind.", valueName: "kind"))
        var kind: SessionKind?

        @Option(help: ArgumentHelp("Only sessions from this band: its name, or the start of its id.", valueName: "band"))
        var band: String?

        @Flag(help: "Print a JSON array of session objects.")
        var json = false

        func validate() throws {
            do {
                _ = try since.map { try TimeBound($0) }
                _ = try until.map { try TimeBound($0) }
            } catch let error as CommandError {
                throw ValidationError(error.description)
            }
        }

        func filter(time: LocalTime = .system) throws -> SessionFilter {
            SessionFilter(since: try since.map { try TimeBound($0, time: time) }, until: try until.map { try TimeBound($0, time: time) },
                          kind: kind, band: band)
        }

        func run() throws {
            let store = try openCompanionStoreForReading(path: amble.storePath)
            let all = try store.sessions()
            let filter = try filter()
            let sessions = try filter.apply(all)
            if json {
                print(SessionJSON.array(sessions.map { SessionJSON.object($0, seconds: nil) }))
                return
            }
            print(Self.text(all: all, matching: sessions, recording: try filter.apply(store.bandRecordings())))
        }

        /// The table, or why there is none, then the sessions still being recorded.
        static func text(all: [CompanionSession], matching sessions: [CompanionSession], recording: [BandRecording], time: LocalTime = .system) -> String {
            // Labels from every session, so that a band reads the same whatever the filter.
            var labels = SessionText.bandLabels(all)
            for r in recording where labels[r.bandID] == nil { labels[r.bandID] = r.bandName }
            var lines: [String] = []
            if all.isEmpty {
                lines.append("No sessions yet. Pull some with: amble sync --tcp HOST:PORT")
            } else if sessions.isEmpty {
                lines.append("No session matches (\(all.count) in the store).")
            } else {
                lines.append(SessionText.table(sessions, bandLabels: labels, time: time))
            }
            lines += SessionText.recordingLines(recording, bandLabels: labels, time: time)
            return lines.joined(separator: "\n")
        }
    }

    struct ShowCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one session: its summary and charts of its pace and heart rate.")

        @ParentCommand var amble: AmbleCommand

        @Argument(help: "A session id from `amble sessions list`, or `latest`.")
        var session: String

        @Flag(help: "Print one JSON object, with the per-second rows under \"seconds\".")
        var json = false

        func validate() throws { try validateSessionArgument(session) }

        func run() throws {
            let store = try openCompanionStoreForReading(path: amble.storePath)
            let id = try resolveSessionID(session, in: store)
            guard let (stored, seconds) = try store.session(id: id) else {
                throw CommandError("no session \(id); `amble sessions list` shows the ids")
            }
            if json {
                print(SessionJSON.object(stored, seconds: seconds, raw: try store.rawSampleCounts(sessionID: id)).text)
            } else {
                print(SessionText.detail(stored, seconds: seconds))
            }
        }
    }

    struct ExportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a session's raw sensor samples as the CSV `amble analyze` reads.",
            discussion: """
                The band keeps them only while its setting consent_raw_capture is on (off by default; \
                amble band settings set consent_raw_capture on). Times are seconds from the session's start.
                """
        )

        @ParentCommand var amble: AmbleCommand

        @Argument(help: "A session id from `amble sessions list`, or `latest`.")
        var session: String

        @Option(help: ArgumentHelp("steps: time_s,x_g,y_g,z_g (amble analyze steps); hr: time_s,ppg1,ppg2,x_g,y_g,z_g (amble analyze hr).",
                                   valueName: "steps|hr"))
        var raw: RawExportFormat

        @Option(name: [.short, .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        @Flag(help: "Replace the --output file if it exists.")
        var force = false

        @OptionGroup var sharing: SharingOptions

        func validate() throws {
            try validateSessionArgument(session)
            if force && output == nil { throw ValidationError("--force is for --output FILE") }
        }

        func run() throws {
            let file = output.map { OutputFile(path: $0, force: force, sharing: sharing.sharing) }
            try file?.refuseToReplace()
            let store = try openCompanionStoreForReading(path: amble.storePath)
            let id = try resolveSessionID(session, in: store)
            guard try store.session(id: id) != nil else {
                throw CommandError("no session \(id); `amble sessions list` shows the ids")
            }
            let blocks = try store.rawBlocks(sessionID: id)
            var text = ""
            do {
                try RawExport.write(blocks, as: raw) { piece in
                    if output == nil { print(piece, terminator: "") } else { text += piece }
                }
            } catch RawExport.Failure.noSamples(let sensor) {
                if blocks.isEmpty {
                    throw CommandError("session \(id) has no raw samples: consent_raw_capture was off on the band while it was recorded. "
                                       + "Turn it on with `amble band settings set consent_raw_capture on`; it applies to the sessions recorded after.")
                }
                throw CommandError("session \(id) has no raw \(sensor == .ppg ? "PPG" : "accelerometer") samples"
                                   + (sensor == .ppg ? ": consent_heart_rate was off while it was recorded; `--raw steps` exports its accelerometer" : ""))
            }
            try file?.write(text)
        }
    }
}

/// A session argument is a number or `latest`.
func validateSessionArgument(_ session: String) throws {
    guard session == "latest" || Int64(session) != nil else {
        throw ValidationError("\"\(session)\" is not a session id; give a number from `amble sessions list` or `latest`")
    }
}

/// The session a (validated) argument names.
func resolveSessionID(_ session: String, in store: CompanionStore) throws -> Int64 {
    guard session == "latest" else { return Int64(session)! }
    guard let latest = try store.latestSessionID() else {
        throw CommandError("no sessions yet; pull some with: amble sync --tcp HOST:PORT")
    }
    return latest
}

/// `amble calibrations`: every calibration the bands made, and which one each band uses.
struct CalibrationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrations",
        abstract: "List the calibrations synced from the bands; each band walks with its latest successful one."
    )

    @ParentCommand var amble: AmbleCommand

    @Flag(help: "Print a JSON array.")
    var json = false

    func run() throws {
        let calibrations = try openCompanionStoreForReading(path: amble.storePath).sessions().filter { $0.summary.kind == .calibration }
        // The band uses its latest successful calibration.
        var inUse: [String: Int64] = [:]
        for session in calibrations where session.summary.measuredCadenceStepsPerMinute != nil { inUse[session.bandID] = session.id }
        if json {
            print(SessionJSON.array(calibrations.map { session in
                let s = session.summary
                return SessionJSON(text: "{" + [
                    ("id", String(session.id)), ("band_name", SessionJSON.string(session.bandName)),
                    ("date", SessionJSON.string(isoDate(s.startUnixSeconds))),
                    ("cadence_spm", s.measuredCadenceStepsPerMinute.map { SessionJSON.number($0, digits: 1) } ?? "null"),
                    ("step_length_m", SessionJSON.number(s.parameters.stepLengthMeters, digits: 3)),
                    ("speed_m_per_s", s.speedMetersPerSecond.map { SessionJSON.number($0, digits: 2) } ?? "null"),
                    ("in_use", inUse[session.bandID] == session.id ? "true" : "false"),
                ].map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
            }))
            return
        }
        let labels = SessionText.bandLabels(calibrations)
        guard !calibrations.isEmpty else {
            print("No calibrations yet: calibrate on the band (menu: Calibrate), then amble sync.")
            return
        }
        let bandWidth = max(18, (labels.values.map(\.count).max() ?? 0) + 2)
        print(SessionText.pad("ID", 5) + SessionText.pad("BAND", bandWidth) + SessionText.pad("DATE", 18) + SessionText.pad("CADENCE", 14) + SessionText.pad("STEP", 8) + "SPEED")
        for session in calibrations {
            let s = session.summary
            let cadence = s.measuredCadenceStepsPerMinute.map { "\(Int($0.rounded())) steps/min" } ?? "failed"
            let speed = s.speedMetersPerSecond.map { "\(formatOne($0 * 3.6)) km/h" } ?? "-"
            print(SessionText.pad(String(session.id), 5) + SessionText.pad(labels[session.bandID] ?? session.bandName, bandWidth) + SessionText.pad(localDateTime(s.startUnixSeconds), 18)
                  + SessionText.pad(cadence, 14) + SessionText.pad("\(Int((s.parameters.stepLengthMeters * 100).rounded())) cm", 8) + speed
                  + (inUse[session.bandID] == session.id ? "   in use" : ""))
        }
    }
}

extension SessionKind: ExpressibleByArgument {}
extension RawExportFormat: ExpressibleByArgument {}
