import CSQLite
import Synchronization

/// How a connection is opened.
public struct Configuration {
    /// The connection cannot write: SQLite refuses every write through it.
    public var readonly = false
    /// `PRAGMA foreign_keys = ON` (SQLite's default is off).
    public var foreignKeysEnabled = true
    /// How long a statement waits for another connection's lock before it fails with
    /// `SQLITE_BUSY`, in milliseconds.
    public var busyTimeoutMilliseconds: Int32 = 5000
    /// Sets the file's journal to a write-ahead log (`PRAGMA journal_mode = WAL`, and
    /// `synchronous = NORMAL`: a crash loses at most the transactions not yet checkpointed
    /// past the last sync of the log, never the file's consistency). Ignored in memory and
    /// read-only.
    public var writeAheadLog = false
    /// Run once the connection is open, before anything else uses it; kept (with what they
    /// capture) as long as the connection.
    public var prepare: [(Database) throws -> Void] = []

    public init() {}

    public mutating func prepareDatabase(_ body: @escaping (Database) throws -> Void) {
        prepare.append(body)
    }
}

/// One connection that runs one closure at a time (a lock serializes them): the stores' way to
/// SQLite. `write` runs its closure in a transaction (rolled back when it throws), `read` in
/// a read transaction (one consistent view of the file). The closures must not call the queue
/// again (that would wait for itself).
public final class DatabaseQueue: Sendable {
    private let lock = Mutex(())
    /// Only touched with `lock` held.
    nonisolated(unsafe) private let connection: Database
    /// The preparations, kept as long as the connection: what they hold (a lock on the file)
    /// lives as long.
    nonisolated(unsafe) private let preparations: [(Database) throws -> Void]
    /// The path given, or ":memory:".
    public let path: String

    /// Opens (creating unless read-only) the database at `path`; nil opens one in memory.
    /// `path` may be a `file:` URI (`?immutable=1`).
    public init(path: String? = nil, configuration: Configuration = Configuration()) throws {
        let path = path ?? ":memory:"
        var handle: OpaquePointer?
        let flags = (configuration.readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard let handle else { throw DatabaseError(extendedCode: code, message: "out of memory", sql: nil) }
        let db = Database(handle: handle)   // closes the handle when this throws
        guard code == SQLITE_OK else { throw db.error(code) }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds)
        try db.execute(sql: "PRAGMA foreign_keys = \(configuration.foreignKeysEnabled ? "ON" : "OFF")")
        for prepare in configuration.prepare { try prepare(db) }
        // Reading the schema makes SQLite read the header now: a file that is not a database
        // fails here, not at the first query.
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        if configuration.writeAheadLog && !configuration.readonly && path != ":memory:" {
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw DatabaseError(extendedCode: SQLITE_ERROR, message: "could not turn on the write-ahead log (journal mode \(mode ?? "?"))")
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        self.path = path
        preparations = configuration.prepare
        connection = db
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`: the write lock is taken at once, so
    /// two writers wait for each other instead of failing midway); commits when it returns,
    /// rolls back when it throws.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { db in try db.inTransaction(immediate: true) { try body(db) } }
    }

    /// Runs `body` in a read transaction.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { db in try db.inTransaction(immediate: false) { try body(db) } }
    }

    /// Runs `body` outside any transaction (pragmas that refuse to run in one, checkpoints).
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// Rebuilds the file without free pages (`VACUUM`).
    public func vacuum() throws {
        try writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    }

    private func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, any Error>?
        lock.withLock { _ in result = Result { try body(connection) } }
        return try result!.get()
    }
}
