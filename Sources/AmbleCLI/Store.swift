import AmbleStoreSupport
import AmbleCompanionStore
import AmbleLinux
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A failure of a command that ran: printed as `Error: ...` on standard error, exit status 1,
/// without the usage text that a mistyped option gets.
struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Opens the companion's store. Only `pair` creates one (with its folder, 0700; the file is
/// 0600): reviewing a store that is not there is a mistyped `--store`, not an empty store.
func openCompanionStore(path: String, create: Bool = false) throws -> CompanionStore {
    if !create && !FileManager.default.fileExists(atPath: path) {
        throw CommandError("no store at \(path): pair a band first with `amble pair`, or give the right --store")
    }
    let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if create && !directory.isEmpty {
        do {
            try makePrivateDirectory(directory)
        } catch {
            throw CommandError("cannot create \(directory) for the store: \(errorSentence(error))")
        }
    }
    do {
        return try CompanionStore(path: path)
    } catch {
        throw storeOpeningError(error, path: path)
    }
}

/// Opens the companion's store for a command that only reads it: read-only, so that a
/// review never changes the file (nor its time stamps, nor leaves it half-written when cut).
/// A store made by an earlier build is upgraded first, the one write such a command makes.
func openCompanionStoreForReading(path: String) throws -> CompanionStore {
    guard FileManager.default.fileExists(atPath: path) else { return try openCompanionStore(path: path) }
    do {
        return try CompanionStore(readingOnly: path)
    } catch CompanionStoreError.needsUpgrade {
        return try openCompanionStore(path: path)
    } catch {
        throw storeOpeningError(error, path: path)
    }
}

/// Why the store cannot be opened, as the command's error: the file's problem in words (not
/// an SQLite database, another program's, empty, damaged, locked, ...) and where to point.
func storeOpeningError(_ error: any Error, path: String) -> CommandError {
    if let problem = error as? StoreFileError { return CommandError("the store \(problem) (--store PATH)") }
    return CommandError("cannot open the store \(path): \(errorSentence(error)). Pass another with --store PATH.")
}

/// A file a command writes (`--html`, `--output`): an existing one is replaced only with
/// `--force`. `refuseToReplace` comes first, before the work; `write` then replaces atomically
/// with `force`, and otherwise refuses a file that appeared in the meantime.
struct OutputFile {
    var path: String
    var force: Bool

    func refuseToReplace() throws {
        if !force && FileManager.default.fileExists(atPath: path) {
            throw CommandError("\(path) exists; pass --force to replace it")
        }
    }

    func write(_ text: String) throws {
        try refuseToReplace()
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: force ? [.atomic] : [.withoutOverwriting])
        } catch {
            throw CommandError("cannot write \(path): \(errorSentence(error))")
        }
    }
}
