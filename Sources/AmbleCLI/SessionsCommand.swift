import AmbleCompanionStore
import AmbleModel
import ArgumentParser

/// `amble sessions`: review what was synced.
struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List and show synced sessions.",
        subcommands: [ListCommand.self, ShowCommand.self]
    )

    struct ListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List every session, oldest first.")

        @ParentCommand var amble: AmbleCommand

        @Flag(help: "Print a JSON array of session objects.")
        var json = false

        func run() throws {
            let sessions = try openCompanionStore(path: amble.storePath).sessions()
            if json {
                print(SessionJSON.array(sessions.map { SessionJSON.object($0, seconds: nil) }))
                return
            }
            guard !sessions.isEmpty else {
                print("No sessions yet. Pull some with: amble sync --tcp HOST:PORT")
                return
            }
            print(SessionText.table(sessions))
        }
    }

    struct ShowCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one session: its summary and a chart of its pace.")

        @ParentCommand var amble: AmbleCommand

        @Argument(help: "A session id from `amble sessions list`, or `latest`.")
        var session: String

        @Flag(help: "Print one JSON object, with the per-second rows under \"seconds\".")
        var json = false

        func validate() throws {
            guard session == "latest" || Int64(session) != nil else {
                throw ValidationError("\"\(session)\" is not a session id; give a number from `amble sessions list` or `latest`")
            }
        }

        func run() throws {
            let store = try openCompanionStore(path: amble.storePath)
            let id: Int64
            if session == "latest" {
                guard let latest = try store.latestSessionID() else {
                    throw CommandError("no sessions yet; pull some with: amble sync --tcp HOST:PORT")
                }
                id = latest
            } else {
                id = Int64(session)!
            }
            guard let (stored, seconds) = try store.session(id: id) else {
                throw CommandError("no session \(id); `amble sessions list` shows the ids")
            }
            if json {
                print(SessionJSON.object(stored, seconds: seconds).text)
            } else {
                print(SessionText.detail(stored, seconds: seconds))
            }
        }
    }
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
        let calibrations = try openCompanionStore(path: amble.storePath).sessions().filter { $0.summary.kind == .calibration }
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
        guard !calibrations.isEmpty else {
            print("No calibrations yet: calibrate on the band (menu: Calibrate), then amble sync.")
            return
        }
        print(SessionText.pad("ID", 5) + SessionText.pad("BAND", 18) + SessionText.pad("DATE (UTC)", 21) + SessionText.pad("CADENCE", 14) + SessionText.pad("STEP", 8) + "SPEED")
        for session in calibrations {
            let s = session.summary
            let cadence = s.measuredCadenceStepsPerMinute.map { "\(Int($0.rounded())) steps/min" } ?? "failed"
            let speed = s.speedMetersPerSecond.map { "\(formatOne($0 * 3.6)) km/h" } ?? "-"
            print(SessionText.pad(String(session.id), 5) + SessionText.pad(session.bandName, 18) + SessionText.pad(isoDate(s.startUnixSeconds).replacingT, 21)
                  + SessionText.pad(cadence, 14) + SessionText.pad("\(Int((s.parameters.stepLengthMeters * 100).rounded())) cm", 8) + speed
                  + (inUse[session.bandID] == session.id ? "   in use" : ""))
        }
    }
}
