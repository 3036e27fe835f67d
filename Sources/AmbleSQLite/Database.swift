import CSQLite

/// An error SQLite returned: its result code (extended), its message, and the statement that
/// failed, if any.
public struct DatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_READONLY_DIRECTORY` is 1544).
    public var extendedCode: Int32
    public var message: String
    public var sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_FULL` is 13, `SQLITE_CORRUPT` 11, `SQLITE_READONLY` 8).
    public var code: Int32 { extendedCode & 0xFF }

    public var description: String {
        "SQLite error \(extendedCode): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "")
    }

    public static let full: Int32 = 13, ioError: Int32 = 10, readOnly: Int32 = 8, cantOpen: Int32 = 14
    public static let constraint: Int32 = 19, corrupt: Int32 = 11
}

/// One SQLite connection. Not thread-safe by itself: reach it through `DatabaseQueue`, which
/// hands it to one closure at a time.
public final class Database {
    let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        statements.removeAll()   // finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    func error(_ code: Int32, sql: String? = nil) -> DatabaseError {
        DatabaseError(extendedCode: sqlite3_extended_errcode(handle) == code & 0xFF ? code : sqlite3_extended_errcode(handle),
                      message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    func check(_ code: Int32, sql: String? = nil) throws {
        guard code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code, sql: sql) }
    }

    /// Runs one or more statements separated by `;`. `arguments` fill their `?` parameters in
    /// order, across the statements.
    public func execute(sql: String, arguments: StatementArguments = []) throws {
        var remaining = arguments.values[...]
        var utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeMutableBufferPointer { buffer in
            var start = UnsafePointer(buffer.baseAddress!)
            let end = start + buffer.count - 1
            while start < end {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                try check(sqlite3_prepare_v2(handle, start, Int32(end - start), &statement, &tail), sql: sql)
                guard let statement else { break }   // only whitespace or comments were left
                let prepared = Statement(database: self, handle: statement, sql: sql)
                let count = Int(sqlite3_bind_parameter_count(statement))
                try prepared.bind(Array(remaining.prefix(count)))
                remaining = remaining.dropFirst(count)
                try prepared.execute()
                start = tail ?? end
            }
        }
    }

    /// A statement prepared once per connection and kept for the next call with the same SQL.
    public func cachedStatement(sql: String) throws -> Statement {
        if let cached = statements[sql] { return cached }
        let statement = try makeStatement(sql: sql)
        statements[sql] = statement
        return statement
    }

    /// A statement prepared for this call (one statement: SQL after the first `;` is refused).
    public func makeStatement(sql: String) throws -> Statement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql: sql)
        guard let statement else { throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "no statement in the SQL", sql: sql) }
        return Statement(database: self, handle: statement, sql: sql)
    }

    /// The row id of the last row inserted through this connection.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changesCount: Int { Int(sqlite3_changes(handle)) }

    public var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Copies the write-ahead log into the file and, with `truncate`, empties it.
    public func checkpoint(truncate: Bool) throws {
        try check(sqlite3_wal_checkpoint_v2(handle, nil, truncate ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE, nil, nil))
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws.
    func inTransaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        try execute(sql: immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute(sql: "COMMIT")
            return result
        } catch {
            if isInsideTransaction { try? execute(sql: "ROLLBACK") }
            throw error
        }
    }
}

/// A prepared statement: bind, step, read columns.
public final class Statement {
    unowned let database: Database
    let handle: OpaquePointer
    public let sql: String

    init(database: Database, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to its parameters in order.
    func bind(_ values: [DatabaseValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)   // SQLITE_TRANSIENT: SQLite copies
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real): code = sqlite3_bind_double(handle, index, real)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, transient)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), transient) }
            }
            try database.check(code, sql: sql)
        }
    }

    /// Binds `arguments` (their count is not checked against the parameters').
    public func setUncheckedArguments(_ arguments: StatementArguments) {
        try? bind(arguments.values)
    }

    /// Steps the statement to its end with the arguments bound last (or `arguments`).
    public func execute(arguments: StatementArguments? = nil) throws {
        if let arguments { try bind(arguments.values) }
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// One step: true when a row is ready.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw database.error(code, sql: sql)
        }
    }

    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// The rows the statement gives with `arguments`, read one at a time.
    public func rows(arguments: StatementArguments = []) throws -> RowCursor {
        try bind(arguments.values)
        return RowCursor(statement: self)
    }
}
