import AmbleLinux
import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any error as a sentence for a person: the stores' errors and SQLite's in words (see
/// `StoreFileError`), the file errors of Foundation as the system's reason ("not a
/// directory", "no space left on device") instead of `Error Domain=NSCocoaErrorDomain ...`,
/// everything else as it describes itself.
public func errorSentence(_ error: any Error) -> String {
    if let store = error as? StoreFileError { return store.description }
    if let database = error as? DatabaseError {
        return "the store " + StoreFileError.sentence(code: database.code, message: database.message)
    }
    if let cocoa = error as? CocoaError { return fileErrorSentence(cocoa) }
    if let posix = error as? POSIXError { return systemReasonText(posix.code.rawValue) }
    return "\(error)"
}

/// `errorSentence` for SQLite's errors and the file errors of Foundation, nil for any other:
/// a command reports those in words and its own errors as they are.
public func storeOrFileErrorSentence(_ error: any Error) -> String? {
    error is DatabaseError || error is CocoaError ? errorSentence(error) : nil
}

private func fileErrorSentence(_ error: CocoaError) -> String {
    if let underlying = error.userInfo["NSUnderlyingError"] as? POSIXError { return systemReasonText(underlying.code.rawValue) }
    switch error.code {
    case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or directory"
    case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
    case .fileWriteOutOfSpace: return "no space left on the disk"
    case .fileWriteVolumeReadOnly: return "the disk is read-only"
    case .fileWriteFileExists: return "it already exists"
    case .fileReadCorruptFile: return "the file is damaged"
    case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "the text is not UTF-8"
    default: return "file error \(error.code.rawValue)"
    }
}
