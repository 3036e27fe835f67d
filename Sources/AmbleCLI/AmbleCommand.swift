import AmbleLinux
import AmbleVersion
import ArgumentParser

/// `amble`: the companion. Pulls sessions from bands, reviews and analyses them.
public struct AmbleCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "amble",
        abstract: "The Amble companion: pair with a band, sync its sessions, review them, analyse recordings.",
        version: AmbleVersion.string,
        subcommands: [PairCommand.self, BandsCommand.self, UnpairCommand.self, SyncCommand.self, BandCommand.self, CalibrationsCommand.self,
                      SessionsCommand.self, ReportCommand.self, ExportCommand.self, AnalyzeCommand.self,
                      ResetCommand.self, LicensesCommand.self, GoalsCommand.self, ChallengeCommand.self,
                      StudyCommand.self, SurveyCommand.self]
    )

    @Option(help: ArgumentHelp("The companion's store. Default: $XDG_DATA_HOME/amble/amble.sqlite or ~/.local/share/amble/amble.sqlite.", valueName: "path"),
            completion: .file(extensions: ["sqlite"]))
    var store: String?

    public init() {}

    /// The store path this invocation uses.
    var storePath: String {
        store ?? userDataDirectory + "/amble/amble.sqlite"
    }
}
