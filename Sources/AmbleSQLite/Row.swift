/// One row of a query's result: its columns by position or by name.
public struct Row: Equatable, Sendable {
    public let columns: [String]
    public let values: [DatabaseValue]

    public init(columns: [String], values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
    }

    public func hasColumn(_ name: String) -> Bool { index(of: name) != nil }

    /// The first column with this name, in any case (as SQLite matches names).
    private func index(of name: String) -> Int? {
        columns.firstIndex(of: name) ?? columns.firstIndex { $0.lowercased() == name.lowercased() }
    }

    /// The value at `index`, or nil when it is NULL or not of type `V`.
    public subscript<V: DatabaseValueConvertible>(_ index: Int) -> V? {
        V.fromDatabaseValue(values[index])
    }

    /// The value at `index`; a NULL or a value of another type is a programming error, as an
    /// index out of range is (the schema guarantees the type: NOT NULL and CHECK).
    public subscript<V: DatabaseValueConvertible>(_ index: Int) -> V {
        guard let value = V.fromDatabaseValue(values[index]) else {
            preconditionFailure("column \(index) (\(columns[index])) holds \(values[index]), not a \(V.self)")
        }
        return value
    }

    /// The value of column `name`, or nil when it is NULL, missing, or not of type `V`.
    public subscript<V: DatabaseValueConvertible>(_ name: String) -> V? {
        index(of: name).flatMap { V.fromDatabaseValue(values[$0]) }
    }

    /// The value of column `name` (see the subscript by index).
    public subscript<V: DatabaseValueConvertible>(_ name: String) -> V {
        guard let index = index(of: name) else { preconditionFailure("no column \(name) in \(columns)") }
        return self[index]
    }

    /// The value of column `name`, or a `DatabaseError` naming it when it is missing, NULL or
    /// of another type.
    public func decode<V: DatabaseValueConvertible>(_: V.Type = V.self, forColumn name: String) throws -> V {
        guard let index = index(of: name), let value = V.fromDatabaseValue(values[index]) else {
            throw DatabaseError(extendedCode: 20, message: "column \(name) is missing or not a \(V.self)")   // SQLITE_MISMATCH
        }
        return value
    }
}

/// The rows of a statement, stepped one at a time (one row in memory at a time).
public final class RowCursor {
    let statement: Statement
    private let columns: [String]

    init(statement: Statement) {
        self.statement = statement
        columns = statement.columnNames
    }

    public func next() throws -> Row? {
        guard try statement.step() else { return nil }
        return Row(columns: columns, values: (0..<Int32(columns.count)).map(statement.value(at:)))
    }
}

extension Row {
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> RowCursor {
        try db.cachedStatement(sql: sql).rows(arguments: arguments)
    }

    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Row] {
        let cursor = try fetchCursor(db, sql: sql, arguments: arguments)
        var rows: [Row] = []
        while let row = try cursor.next() { rows.append(row) }
        return rows
    }

    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Row? {
        let cursor = try fetchCursor(db, sql: sql, arguments: arguments)
        defer { sqlite3ResetQuietly(cursor.statement) }
        return try cursor.next()
    }
}

func sqlite3ResetQuietly(_ statement: Statement) {
    try? statement.bind([])
}

extension DatabaseValueConvertible {
    /// The first column of every row (rows where it is NULL or of another type are skipped).
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { Self.fromDatabaseValue($0.values[0]) }
    }

    public static func fetchSet(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Set<Self> where Self: Hashable {
        Set(try fetchAll(db, sql: sql, arguments: arguments))
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Self? {
        try Row.fetchOne(db, sql: sql, arguments: arguments).flatMap { Self.fromDatabaseValue($0.values[0]) }
    }
}
