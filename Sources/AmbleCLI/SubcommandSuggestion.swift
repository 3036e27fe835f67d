import AmbleCompanion
import AmbleLinux
import AmbleStoreSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser

extension AmbleCommand {
    /// `amble`'s entry point: swift-argument-parser's own, plus "did you mean" when a
    /// subcommand is misspelt (the parser suggests misspelt options, not subcommands).
    public static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let message = fullMessage(for: error)
            if exitCode(for: error) != .success,
               let suggestion = SubcommandSuggestion.suggestion(arguments: arguments, message: message, root: AmbleCommand.self) {
                _ = writeStandardError(message + "\nDid you mean '\(suggestion)'?\n")
                exit(withError: exitCode(for: error))
            }
            exit(withError: error)
        }
        do {
            try command.run()
        } catch let error as StoreFileError {
            exit(withError: CommandError("the store \(error)"))
        } catch {
            // SQLite's and the file system's errors in words; the commands' own as they are.
            if let sentence = storeOrFileErrorSentence(error) { exit(withError: CommandError(sentence)) }
            exit(withError: error)
        }
    }
}

/// The subcommand a mistyped word was probably meant to be.
enum SubcommandSuggestion {
    /// The full command (`amble sessions list`) that `message`'s unexpected argument most
    /// likely meant, or nil when it is not a near miss of a subcommand at its place.
    static func suggestion(arguments: [String], message: String, root: any ParsableCommand.Type) -> String? {
        guard let word = unexpectedArgument(in: message) else { return nil }
        var command = root
        var path = [root._commandName]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            if argument == word {
                guard let match = closest(to: word, among: subcommands) else { return nil }
                return (path + [match]).joined(separator: " ")
            }
            if let next = subcommands.first(where: { names(of: $0).contains(argument) }) {
                command = next
                path.append(next._commandName)
            }
        }
        return nil
    }

    /// The first word in the parser's "Unexpected argument 'WORD'" or "2 unexpected
    /// arguments: 'WORD', 'MORE'" error.
    static func unexpectedArgument(in message: String) -> String? {
        guard let marker = message.range(of: "nexpected argument"),
              let open = message[marker.upperBound...].firstIndex(of: "'") else { return nil }
        let start = message.index(after: open)
        guard let end = message[start...].firstIndex(of: "'") else { return nil }
        return String(message[start..<end])
    }

    /// The subcommand name nearest to `word`: within 2 edits (1 for words of 4 letters or
    /// fewer), or one that `word` starts, whichever is nearer; nil when none is near or two tie.
    static func closest(to word: String, among subcommands: [any ParsableCommand.Type]) -> String? {
        let limit = word.count <= 4 ? 1 : 2
        let scored = subcommands.flatMap(names(of:)).map { ($0, editDistance(word.lowercased(), $0)) }
            .filter { $0.1 <= limit || ($0.0.hasPrefix(word.lowercased()) && word.count >= 2) }
            .sorted { $0.1 < $1.1 }
        guard let best = scored.first else { return nil }
        if scored.count > 1 && scored[1].1 == best.1 && scored[1].0 != best.0 { return nil }
        return best.0
    }

    private static func names(of command: any ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }

    /// Levenshtein distance, counting a swap of two neighbouring letters as one edit (`editDistance`).
    static func editDistance(_ a: String, _ b: String) -> Int { AmbleCompanion.editDistance(a, b) }
}
