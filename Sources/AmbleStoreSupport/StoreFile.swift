import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Why a file cannot serve as one of Amble's stores, in words a person can act on. Both
/// stores (the band's and the laptop's) open their files through `openDatabase`, which
/// refuses what is not a store before SQLite or a migration touches it.
public struct StoreFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        /// The file has no bytes (and no write-ahead log beside it): not a store, and never
        /// silently turned into an empty one.
        case empty
        /// Its first bytes are not SQLite's ("SQLite format 3").
        case notSQLite
        /// An SQLite database of some other program: tables, but none of Amble's migrations.
        case foreign(tables: [String])
        /// A folder, or something else that is not a plain file.
        case notAFile
        /// SQLite failed on it (its primary result code and message).
        case sqlite(code: Int32, message: String)
        /// Its write-ahead log (`-wal`) holds data not yet in the file, which SQLite reads only
        /// through an index (`-shm`) that this user may not make beside it.
        case logNeedsIndex
    }

    public var path: String
    public var problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .empty:
            return "\(path) is empty (0 bytes), so it is not an Amble store; move it away (or delete it) and a new store is made there"
        case .notSQLite:
            return "\(path) is not an SQLite database, so it is not an Amble store; give another path, or move the file away"
        case .foreign(let tables):
            let listed = tables.prefix(4).joined(separator: ", ") + (tables.count > 4 ? ", …" : "")
            return "\(path) is another program's SQLite database (tables \(listed)), not an Amble store; it was not changed. Give another path"
        case .notAFile:
            return "\(path) is a folder or a device, not a store file; give the path of the store file itself"
        case .sqlite(let code, let message):
            return "\(path) " + Self.sentence(code: code, message: message)
        case .logNeedsIndex:
            return "\(path) has changes in \(path)-wal not yet written into it, and reading them needs a \(path)-shm file beside it, "
                + "which this user may not make; run any amble command that writes (amble sync) as the store's owner, "
                + "or copy the store and its -wal file together into a folder of yours and read the copy"
        }
    }

    /// What SQLite's primary result code means for the person who gave the file.
    static func sentence(code: Int32, message: String) -> String {
        switch code {
        case 26: return "is not an SQLite database, so it is not an Amble store; give another path, or move the file away"
        case 11: return "is damaged (SQLite finds it malformed). Keep a copy; `sqlite3 FILE .recover` may save its data"
        case 14: return "cannot be opened: check that its folder exists and that you may read and write there"
        case 8: return "is read-only here (its permissions, or a disk mounted read-only): nothing could be written"
        case 5, 6: return "is in use by another program (another amble or ambled?); try again when it has finished"
        case 13: return "cannot grow: the disk is full. Free some space and try again; nothing already stored is lost"
        case 10: return "could not be read or written (an input/output error: a failing disk or card?)"
        case 3, 23: return "may not be opened by this user: check its permissions"
        default: return "failed: SQLite says \"\(message)\" (code \(code))"
        }
    }

    /// The store error for one of SQLite's, with the file it concerns.
    public init(path: String, _ error: DatabaseError) {
        self.init(path: path, problem: .sqlite(code: error.code, message: error.message))
    }
}

/// Refuses, before SQLite opens it, a file at `path` that cannot be a store: a folder, an
/// empty file (unless a write-ahead log beside it holds its data), a file not starting with
/// SQLite's header. A missing file passes (the store is made there).
func checkStoreFile(path: String) throws {
    #if canImport(Glibc)
    var status = stat()
    guard stat(path, &status) == 0 else { return }
    guard (status.st_mode & S_IFMT) == S_IFREG else { throw StoreFileError(path: path, problem: .notAFile) }
    if status.st_size == 0 {
        var wal = stat()
        if stat(path + "-wal", &wal) == 0 && wal.st_size > 0 { return }
        throw StoreFileError(path: path, problem: .empty)
    }
    guard let file = fopen(path, "rb") else { return }   // SQLite says why it cannot open it
    defer { fclose(file) }
    var header = [UInt8](repeating: 0, count: 16)
    let count = fread(&header, 1, 16, file)
    if count < 16 || header != Array("SQLite format 3\u{0}".utf8) {
        throw StoreFileError(path: path, problem: .notSQLite)
    }
    #endif
}

/// A read lock on one of the bytes where SQLite's connections hold their shared locks (an open
/// file description lock, `F_OFD_SETLK`, so that no other descriptor's closing drops it and it
/// conflicts with SQLite's own locks in this process too). While it is held, no connection can
/// take the exclusive lock SQLite needs to fold a write-ahead log into the file at its close.
/// A connection to a WAL database holds a shared lock on all of the bytes for as long as it
/// is open, so a lock found on the others tells that one is open; another reader's lock, on
/// the last byte alone, does not count.
final class StoreReadLock: Sendable {
    private let fd: Int32

    /// SQLite's shared-lock bytes: `PENDING_BYTE` (0x40000000) + 2, 510 of them (os_unix.c).
    private static let sharedFirst = 0x4000_0002, sharedSize = 510

    /// Nil when the file cannot be opened or locked (a writer holds it exclusively).
    init?(path: String) {
        #if canImport(Glibc)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var request = Self.range(type: F_RDLCK, start: Self.sharedFirst + Self.sharedSize - 1, length: 1)
        guard fcntl(fd, Self.setLock, &request) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        #else
        return nil
        #endif
    }

    /// Whether an SQLite connection (in any process, this one included) has the store open.
    var otherConnectionsAreOpen: Bool {
        #if canImport(Glibc)
        var probe = Self.range(type: F_WRLCK, start: Self.sharedFirst, length: Self.sharedSize - 1)
        guard fcntl(fd, Self.getLock, &probe) == 0 else { return true }
        return probe.l_type != F_UNLCK
        #else
        return true
        #endif
    }

    deinit {
        #if canImport(Glibc)
        close(fd)
        #endif
    }

    #if canImport(Glibc)
    /// `F_OFD_GETLK` and `F_OFD_SETLK` (Linux 3.15), which the Glibc module leaves out.
    private static let getLock: Int32 = 36, setLock: Int32 = 37

    private static func range(type: Int32, start: Int, length: Int) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        lock.l_pid = 0
        return lock
    }
    #endif
}

/// Whether a file is at `path` with at least one byte.
func storeFileHasData(path: String) -> Bool {
    #if canImport(Glibc)
    var status = stat()
    return stat(path, &status) == 0 && status.st_size > 0
    #else
    return true
    #endif
}

/// Refuses a database that holds tables but none of the migration records (`grdb_migrations`,
/// the table GRDB's migrator made and `DatabaseMigrator` continues): another
/// program's, which a migration must not write into.
func refuseForeignDatabase(_ db: Database, path: String) throws {
    let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    guard !tables.isEmpty, !tables.contains("grdb_migrations") else { return }
    throw StoreFileError(path: path, problem: .foreign(tables: tables))
}

/// Whether `error` says the store could not grow: its disk is full, or it reached the size it
/// may take (SQLite's `SQLITE_FULL`). What was stored before is intact.
public func isStoreFullError(_ error: any Error) -> Bool {
    primarySQLiteCode(error) == 13
}

/// Whether `error` says the store's file is damaged where it was read (`SQLITE_CORRUPT`).
public func isStoreDamagedError(_ error: any Error) -> Bool {
    primarySQLiteCode(error) == 11
}

private func primarySQLiteCode(_ error: any Error) -> Int32? {
    if let database = error as? DatabaseError { return database.code }
    if let store = error as? StoreFileError, case .sqlite(let code, _) = store.problem { return code }
    return nil
}
