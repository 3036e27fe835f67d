import ArgumentParser

/// `amble`: the companion. Pairs with a band, pulls its sessions, reviews and analyses them.
public struct AmbleCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "amble",
        abstract: "The Amble companion: sync sessions from a band, review them, analyse recordings.",
        subcommands: [AnalyzeCommand.self]
    )

    public init() {}
}
