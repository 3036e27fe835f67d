import AmbleCompanionStore
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Opens the companion's store, creating its directory; a failure is a clear error.
func openCompanionStore(path: String) throws -> CompanionStore {
    let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if !directory.isEmpty {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot create \(directory) for the store: \(error)")
        }
    }
    do {
        return try CompanionStore(path: path)
    } catch {
        throw ValidationError("cannot open the store \(path): \(error). Is it an Amble store? Pass another with --store.")
    }
}
