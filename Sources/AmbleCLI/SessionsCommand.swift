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
