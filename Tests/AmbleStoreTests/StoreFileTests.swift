import AmbleBandStore
import AmbleCompanionStore
import AmbleModel
import AmbleStoreSupport
import Foundation
import AmbleSQLite
import CSQLite
import Testing

/// What is not a store is refused before anything writes to it, in words a person can act on;
/// SQLite's and Foundation's errors are sentences, never their debug dumps.
struct StoreFileTests {
    /// Opens the file as each store would; returns the two errors.
    func refusals(_ path: String) -> [StoreFileError?] {
        [
            {
                do { _ = try CompanionStore(path: path); return nil } catch { return error as? StoreFileError }
            }(),
            {
                do { _ = try BandStore(path: path); return nil } catch { return error as? StoreFileError }
            }(),
        ]
    }

    func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func anEmptyFileIsRefusedAndStaysEmpty() throws {
        let file = TemporaryDatabase()
        FileManager.default.createFile(atPath: file.path, contents: Data())
        for error in refusals(file.path) {
            #expect(error?.problem == .empty)
            #expect(error?.description.contains("is empty (0 bytes), so it is not an Amble store") == true)
        }
        #expect(contents(file.path) == Data(), "never silently turned into an empty store")
    }

    @Test(arguments: ["hello, this is text\n", String(repeating: "\u{1B}\u{07}\u{0}", count: 3000)])
    func aFileThatIsNotSQLiteIsRefusedUnchanged(text: String) throws {
        let file = TemporaryDatabase()
        FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8))
        for error in refusals(file.path) {
            #expect(error?.problem == .notSQLite)
            #expect(error?.description.contains("is not an SQLite database") == true)
            #expect(error?.description.count ?? 1000 < 300, "the file's bytes are not echoed")
        }
        #expect(contents(file.path) == Data(text.utf8))
    }

    @Test func anotherProgramsDatabaseIsRefusedUnchanged() throws {
        let file = TemporaryDatabase()
        try file.write { db in try db.execute(sql: "CREATE TABLE moz_places (id INTEGER); CREATE TABLE moz_bookmarks (id INTEGER)") }
        let before = try #require(contents(file.path))
        for error in refusals(file.path) {
            #expect(error?.problem == .foreign(tables: ["moz_bookmarks", "moz_places"]))
            #expect(error?.description.contains("another program's SQLite database (tables moz_bookmarks, moz_places)") == true)
        }
        #expect(contents(file.path) == before, "not a byte changed (not even the journal mode)")
    }

    @Test func aFolderIsRefused() throws {
        let folder = NSTemporaryDirectory() + "amble-store-folder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for error in refusals(folder) { #expect(error?.problem == .notAFile) }
    }

    @Test func aNewPathAndAnExistingStoreStillOpen() throws {
        let file = TemporaryDatabase()
        let store = try CompanionStore(path: file.path)
        _ = try store.laptopPrivateKey { Array(repeating: 1, count: 32) }
        #expect(try CompanionStore(path: file.path).laptopPrivateKey { [] } == Array(repeating: 1, count: 32))
        #expect(try CompanionStore(readingOnly: file.path).sessions().isEmpty)
        let band = TemporaryDatabase()
        _ = try BandStore(path: band.path)
        _ = try BandStore(path: band.path)
        // An empty SQLite database (no tables yet) is a store not yet made, not another program's.
        let blank = TemporaryDatabase()
        try blank.write { db in try db.execute(sql: "PRAGMA user_version = 0") }
        _ = try CompanionStore(path: blank.path)
    }

    @Test func sqliteErrorsAreSentences() {
        let cases: [(Int32, String)] = [
            (SQLITE_CORRUPT, "is damaged"), (SQLITE_NOTADB, "is not an SQLite database"), (SQLITE_FULL, "the disk is full"),
            (SQLITE_READONLY, "is read-only here"), (SQLITE_BUSY, "is in use by another program"), (SQLITE_CANTOPEN, "cannot be opened"),
            (SQLITE_IOERR, "input/output error"),
        ]
        for (code, words) in cases {
            let sentence = errorSentence(DatabaseError(extendedCode: code, message: "raw text"))
            #expect(sentence.contains(words), "\(sentence)")
            #expect(!sentence.contains("SQLite error"), "\(sentence)")
        }
        let extended = errorSentence(DatabaseError(extendedCode: SQLITE_IOERR | 3 << 8, message: "disk I/O error"))   // SQLITE_IOERR_WRITE
        #expect(extended.contains("input/output error"))
    }

    @Test func foundationFileErrorsAreTheSystemsReason() throws {
        let file = NSTemporaryDirectory() + "amble-not-a-folder-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            try Data("report".utf8).write(to: URL(fileURLWithPath: file + "/report.html"))
            Issue.record("writing inside a file worked")
        } catch {
            #expect(errorSentence(error) == "not a directory", "\(errorSentence(error))")
        }
        do {
            try FileManager.default.createDirectory(atPath: "/proc/amble-\(UUID().uuidString)", withIntermediateDirectories: false)
            Issue.record("a folder in /proc")
        } catch {
            let sentence = errorSentence(error)
            #expect(!sentence.contains("NSCocoaErrorDomain") && !sentence.contains("Error Domain"), "\(sentence)")
        }
    }

    /// What `amble` reports in words (SQLite's errors, Foundation's file errors) and what it
    /// leaves to its own errors' descriptions (a StoreFileError, a POSIXError, any other).
    @Test func storeAndFileErrorsAreTheOnesAmbleWords() {
        struct CommandFailed: Error {}
        let database = DatabaseError(extendedCode: SQLITE_FULL, message: "raw text")
        #expect(storeOrFileErrorSentence(database) == errorSentence(database))
        let missing = CocoaError(.fileReadNoSuchFile)
        #expect(storeOrFileErrorSentence(missing) == "no such file or directory")
        #expect(storeOrFileErrorSentence(CommandFailed()) == nil)
        #expect(storeOrFileErrorSentence(POSIXError(.ENOENT)) == nil)
        #expect(storeOrFileErrorSentence(StoreFileError(path: "a.sqlite", problem: .empty)) == nil)
    }

    @Test func untrustedTextIsPrintable() {
        #expect(printableText("walk\u{1B}[2J\u{07}\r\n") == "walk?[2J???")
        #expect(printableText(String(repeating: "é", count: 100), maximum: 10) == String(repeating: "é", count: 9) + "…")
        #expect(printableText("ok") == "ok")
        #expect(printableText(String(decoding: [0x41, 0xFF, 0xFE, 0x42], as: UTF8.self)) == "A??B")
    }
}
