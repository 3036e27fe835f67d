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

/// Opens the companion's store. Only `pair` and `study join` create one (with its folders,
/// 0700; the file is 0600): reviewing a store that is not there is a mistyped `--store`, not
/// an empty store.
func openCompanionStore(path: String, create: Bool = false) throws -> CompanionStore {
    if !create, let problem = missingStoreError(path) { throw problem }
    let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if create && !directory.isEmpty {
        do {
            try makeFolders(directory)
        } catch {
            throw CommandError("cannot make the folder for the store: \(error.sentence(orElse: "give --store a path you can write"))")
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
    if let problem = missingStoreError(path) { throw problem }
    do {
        return try CompanionStore(readingOnly: path)
    } catch CompanionStoreError.needsUpgrade {
        return try openCompanionStore(path: path)
    } catch {
        throw storeOpeningError(error, path: path, reading: true)
    }
}

/// Whether nothing is at `path`: it, or a folder on the way, does not exist. A store behind a
/// folder this user may not enter is not missing (opening it says why it cannot be read).
func storeIsMissing(_ path: String) -> Bool {
    PathProblem.reading(path)?.kind == .missing
}

/// The error for a store that is not there: which part of the path is missing.
private func missingStoreError(_ path: String) -> CommandError? {
    guard let problem = PathProblem.reading(path), problem.kind == .missing else { return nil }
    let folder = problem.path == path ? "" : " (the folder \(problem.path) does not exist)"
    return CommandError("no store at \(path)\(folder): pair a band first with `amble pair`, or give the right --store")
}

/// Why the store cannot be opened, as the command's error: the file's problem in words (not
/// an SQLite database, another program's, empty, damaged, locked, ...) and where to point;
/// when SQLite could not open or write it, the folder or file at fault and why (a folder this
/// user may not enter, a file or folder this user may not write, a read-only disk).
func storeOpeningError(_ error: any Error, path: String, reading: Bool = false) -> CommandError {
    if let problem = error as? StoreFileError, case .sqlite(let code, _) = problem.problem, [8, 14, 3, 23].contains(code),
       let found = reading ? PathProblem.reading(path) : PathProblem.updating(path) {
        return CommandError("cannot open the store \(path): \(found.sentence(given: path, orElse: "give --store another store"))")
    }
    if let problem = error as? StoreFileError { return CommandError("the store \(problem) (--store PATH)") }
    return CommandError("cannot open the store \(path): \(errorSentence(error)). Pass another with --store PATH.")
}

/// A file a command writes (`--html`, `--output`, an export's files): an existing one is
/// replaced only with `--force`. `refuseToReplace` comes first, before the work; `write` then
/// writes it whole through `writeFile` (0600 unless `--shared`: it holds health data),
/// replacing with `force`, and otherwise refusing a file that appeared in the meantime.
struct OutputFile {
    var path: String
    var force: Bool
    var sharing: FileSharing = .ownerOnly

    func refuseToReplace() throws {
        if !force && FileManager.default.fileExists(atPath: path) {
            throw CommandError("\(path) exists; pass --force to replace it")
        }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) throws {
        try refuseToReplace()
        do {
            try writeFile(bytes, to: path, replacing: force, sharing: sharing)
        } catch .exists {
            throw CommandError("\(path) exists; pass --force to replace it")
        } catch .path(let problem) {
            throw CommandError("cannot write \(path): \(problem.sentence(given: path))")
        }
    }
}
