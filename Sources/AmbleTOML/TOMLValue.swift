/// Where something is in TOML text: 1-based line, and 1-based column counted in Unicode
/// scalars (what an editor shows for text without wide characters).
public struct TOMLPosition: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}

/// TOML text that cannot be read: where, and what to do, in plain words
/// (`line 7, column 12: a string does not end on its line; close it with "`).
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public var position: TOMLPosition
    public var message: String

    public init(_ position: TOMLPosition, _ message: String) {
        self.position = position
        self.message = message
    }

    public var line: Int { position.line }
    public var column: Int { position.column }
    public var description: String { "\(position): \(message)" }
}

/// A calendar day as written (`2026-03-02`): year 0-9999, month 1-12, day 1-31 (checked
/// against the month, leap years included).
public struct TOMLDate: Equatable, Hashable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

/// A time of day as written (`07:32:00.25`): hour 0-23, minute 0-59, second 0-60 (a leap
/// second), nanosecond 0-999,999,999 (digits after the ninth are dropped).
public struct TOMLTime: Equatable, Hashable, Sendable {
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var nanosecond: Int

    public init(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }
}

/// One TOML value. Integers are 64-bit; floats are IEEE doubles (inf and nan included).
public enum TOMLValue: Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// A date and time with its offset from UTC, minutes (`Z`: 0).
    case offsetDateTime(TOMLDate, TOMLTime, offsetMinutes: Int)
    case localDateTime(TOMLDate, TOMLTime)
    case localDate(TOMLDate)
    case localTime(TOMLTime)
    case array([TOMLValue])
    case table(TOMLTable)

    public var string: String? { if case let .string(s) = self { s } else { nil } }
    /// An integer that fits `Int`.
    public var int: Int? { if case let .integer(n) = self { Int(exactly: n) } else { nil } }
    /// A float; nil for an integer (convert one with `int` where both are allowed).
    public var double: Double? { if case let .float(x) = self { x } else { nil } }
    public var bool: Bool? { if case let .boolean(b) = self { b } else { nil } }
    /// A local date (`2026-03-02`), not a date with a time.
    public var date: TOMLDate? { if case let .localDate(d) = self { d } else { nil } }
    public var array: [TOMLValue]? { if case let .array(a) = self { a } else { nil } }
    public var table: TOMLTable? { if case let .table(t) = self { t } else { nil } }
}

extension TOMLValue: Equatable {
    /// Values are equal when their kinds and contents are; a nan equals a nan (so that text
    /// written back reads as equal), and tables compare their keys and values, not positions.
    public static func == (a: TOMLValue, b: TOMLValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): x == y
        case let (.integer(x), .integer(y)): x == y
        case let (.float(x), .float(y)): x == y || (x.isNaN && y.isNaN)
        case let (.boolean(x), .boolean(y)): x == y
        case let (.offsetDateTime(d1, t1, o1), .offsetDateTime(d2, t2, o2)): d1 == d2 && t1 == t2 && o1 == o2
        case let (.localDateTime(d1, t1), .localDateTime(d2, t2)): d1 == d2 && t1 == t2
        case let (.localDate(x), .localDate(y)): x == y
        case let (.localTime(x), .localTime(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.table(x), .table(y)): x == y
        default: false
        }
    }
}

/// A TOML table: its keys in the order the text writes them, each with its value and where
/// the key and the value are.
public struct TOMLTable: Sendable {
    public struct Entry: Sendable {
        public var value: TOMLValue
        /// Where the key is written (for a dotted key `a.b = 1`, the part naming this entry;
        /// for a table made by a header, the header's key).
        public var keyPosition: TOMLPosition
        /// Where the value starts (for a table: its header, its `{`, or its first dotted key).
        public var valuePosition: TOMLPosition
    }

    /// The keys in the order they were written.
    public private(set) var keys: [String] = []
    private var entries: [String: Entry] = [:]
    /// Where the table starts: its header, its `{`, the first dotted key that made it; the top
    /// of the text for the top-level table.
    public var position: TOMLPosition

    public init(position: TOMLPosition = TOMLPosition(line: 1, column: 1)) {
        self.position = position
    }

    public var isEmpty: Bool { keys.isEmpty }
    public var count: Int { keys.count }

    public subscript(key: String) -> TOMLValue? { entries[key]?.value }

    public func entry(_ key: String) -> Entry? { entries[key] }

    /// Sets `key` (kept in its place when it is there, else added last).
    public mutating func set(_ key: String, _ value: TOMLValue, keyPosition: TOMLPosition, valuePosition: TOMLPosition) {
        if entries[key] == nil { keys.append(key) }
        entries[key] = Entry(value: value, keyPosition: keyPosition, valuePosition: valuePosition)
    }

    public mutating func remove(_ key: String) {
        guard entries.removeValue(forKey: key) != nil else { return }
        keys.removeAll { $0 == key }
    }
}

extension TOMLTable: Equatable {
    /// The same keys with equal values, in any order, wherever they are written.
    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        a.keys.count == b.keys.count && a.keys.allSatisfy { key in b[key].map { a[key] == $0 } ?? false }
    }
}
