/// Reads TOML 1.0 text (toml.io/en/v1.0.0) into a `TOMLTable`, or says where and why it
/// cannot: every problem is a `TOMLError` with the line and column, never a trap. Bounded for
/// text from anyone: at most `maximumBytes` of text, `maximumDepth` levels of tables and arrays
/// and `maximumValues` values, so the work grows with the text's length only (each byte is
/// looked at a bounded number of times) and the memory with the values kept (about 300 bytes
/// each at most; docs/packaging.md gives the measured figures).
public struct TOMLReader: Sendable {
    /// The most text read, bytes: 16 MiB by default. The files Amble reads are refused unread
    /// well below it (a board file over 64 KiB, a study file over 512 KiB); this bounds text
    /// handed over by other means.
    public var maximumBytes: Int
    /// The deepest nesting of tables and arrays, counting every dotted key's part: 32 by
    /// default (a board file nests 2 deep, a study file 3). Reading recurses once per level.
    public var maximumDepth: Int
    /// The most values read (each key's value, each array element, each table and each part of
    /// a dotted key counted): 100,000 by default. A board file holds about 40, a large study a
    /// few thousand; the band reads its board with a lower bound (`BoardFile`).
    public var maximumValues: Int

    public init(maximumBytes: Int = 16 << 20, maximumDepth: Int = 32, maximumValues: Int = 100_000) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumValues = maximumValues
    }

    public func read(_ text: String) throws(TOMLError) -> TOMLTable {
        try read(bytes: Array(text.utf8))
    }

    /// Where the first byte that is not UTF-8 is (RFC 3629); nil for UTF-8 text.
    public static func invalidUTF8Position(in bytes: [UInt8]) -> TOMLPosition? {
        var parser = TOMLParser(bytes, maximumDepth: 0, maximumValues: 0)
        do {
            try parser.checkEncoding()
            return nil
        } catch {
            return error.position
        }
    }

    /// Reads UTF-8 bytes (a leading byte-order mark is skipped).
    public func read(bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        guard bytes.count <= maximumBytes else {
            throw TOMLError(TOMLPosition(line: 1, column: 1), "the text holds \(bytes.count) bytes, more than the \(maximumBytes) read here")
        }
        var parser = TOMLParser(bytes, maximumDepth: maximumDepth, maximumValues: maximumValues)
        return try parser.document()
    }
}

/// A table being built: tables stay open to later headers and dotted keys until the whole
/// text is read, so they are shared references here and become `TOMLTable` values at the end.
final class Node {
    enum Kind {
        /// Made as a step of a header's path (`a` of `[a.b]`): a later `[a]` defines it.
        case implicit
        /// Defined by its own header `[a]`: closed to dotted keys from elsewhere and to `[a]` again.
        case header
        /// Made by dotted keys (`a.b = 1`): closed to headers of its own name.
        case dotted
        /// An element of an array of tables, as `[[a]]` made it.
        case element
    }

    enum Slot {
        case value(TOMLValue, key: TOMLPosition, at: TOMLPosition)
        case table(Node, key: TOMLPosition)
        case tables(TableArray, key: TOMLPosition)
    }

    var kind: Kind
    var position: TOMLPosition
    let depth: Int
    var keys: [String] = []
    var slots: [String: Slot] = [:]

    init(_ kind: Kind, at position: TOMLPosition, depth: Int) {
        self.kind = kind
        self.position = position
        self.depth = depth
    }

    func add(_ key: String, _ slot: Slot) {
        keys.append(key)
        slots[key] = slot
    }

    /// A new table of `kind` under `key`, one level deeper.
    func addTable(_ key: String, _ kind: Kind, at position: TOMLPosition) -> Node {
        let node = Node(kind, at: position, depth: depth + 1)
        add(key, .table(node, key: position))
        return node
    }

    func frozen() -> TOMLTable {
        var table = TOMLTable(position: position)
        for key in keys {
            switch slots[key]! {
            case let .value(value, keyPosition, at): table.set(key, value, keyPosition: keyPosition, valuePosition: at)
            case let .table(node, keyPosition): table.set(key, .table(node.frozen()), keyPosition: keyPosition, valuePosition: node.position)
            case let .tables(array, keyPosition):
                table.set(key, .array(array.elements.map { .table($0.frozen()) }), keyPosition: keyPosition,
                          valuePosition: array.elements.first?.position ?? keyPosition)
            }
        }
        return table
    }
}

/// An array of tables made by `[[name]]` headers, open to more.
final class TableArray {
    var elements: [Node] = []
}

extension UInt8 {
    static let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
    static let hash = UInt8(ascii: "#"), quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")
    static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]"), openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    static let equals = UInt8(ascii: "="), comma = UInt8(ascii: ","), dot = UInt8(ascii: "."), underscore = UInt8(ascii: "_")
    static let minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+"), colon = UInt8(ascii: ":")

    var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    var isBlank: Bool { self == .space || self == .tab }
    var isBareKey: Bool {
        isDigit || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) || self == .minus || self == .underscore
    }
    /// A control character TOML allows nowhere outside strings' escapes (tab and newlines aside).
    var isControl: Bool { (self < 0x20 && self != .tab) || self == 0x7F }
    /// Ends a bare value (a number, a date, true): blank, end of line, separator, comment.
    var endsBareValue: Bool {
        isBlank || self == .newline || self == .carriageReturn || self == .comma || self == .closeBracket || self == .closeBrace || self == .hash
    }
}

/// The reader's state over the bytes; the scalars (strings, numbers, dates and times) are read
/// in TOMLParser+Scalars.swift.
struct TOMLParser {
    let bytes: [UInt8]
    let maximumDepth: Int
    let maximumValues: Int
    /// Values, tables and key parts read so far.
    var values = 0
    var index = 0
    var line = 1
    var lineStart = 0
    /// The column of `columnOffset` on the current line: positions are asked for in the order
    /// of the text, so counting goes on from the last one (a long line is counted once).
    var columnOffset = 0
    var column = 1

    init(_ bytes: [UInt8], maximumDepth: Int, maximumValues: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.maximumValues = maximumValues
    }

    /// Counts `n` more values, refusing the text past `maximumValues`.
    mutating func count(_ n: Int) throws(TOMLError) {
        values += n
        guard values <= maximumValues else {
            throw fail("more than \(maximumValues) values and tables; a board file holds about 40, a large study a few thousand")
        }
    }

    // MARK: Positions and errors

    func peek(_ ahead: Int = 0) -> UInt8? { index + ahead < bytes.count ? bytes[index + ahead] : nil }

    mutating func position(_ offset: Int? = nil) -> TOMLPosition {
        let offset = offset ?? index
        if offset < columnOffset || columnOffset < lineStart {
            columnOffset = lineStart
            column = 1
        }
        var k = columnOffset
        while k < offset && k < bytes.count {
            if bytes[k] & 0xC0 != 0x80 { column += 1 }
            k += 1
        }
        columnOffset = offset
        return TOMLPosition(line: line, column: column)
    }

    mutating func fail(_ message: String, at offset: Int? = nil) -> TOMLError {
        TOMLError(position(offset), message)
    }

    /// The character at `index`, for an error: quoted, or named when it cannot be shown.
    func shown(_ offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the text" }
        let b = bytes[offset]
        if b == .newline || b == .carriageReturn { return "the end of the line" }
        if b.isControl { return "a control character (U+\(hex(UInt32(b), digits: 4)))" }
        var end = offset + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "\"" + String(decoding: bytes[offset..<end], as: UTF8.self) + "\""
    }

    /// The problem of an unexpected character where `expected` should be.
    mutating func unexpected(_ expected: String) -> TOMLError {
        guard let b = peek() else { return fail("the text ends where \(expected) should be") }
        if b >= 0x80 {
            return fail("\(shown(index)) outside quotes: keys are ASCII letters, digits, - and _ (quote a key such as \"wéarer\", or a value)")
        }
        if b.isControl && b != .carriageReturn { return fail("\(shown(index)) outside quotes; remove it") }
        return fail("\(shown(index)) where \(expected) should be")
    }

    // MARK: The document

    mutating func document() throws(TOMLError) -> TOMLTable {
        try checkEncoding()
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3; columnOffset = 3 }
        let root = Node(.header, at: TOMLPosition(line: 1, column: 1), depth: 0)
        var current = root
        while true {
            skipBlanks()
            guard let b = peek() else { break }
            if b == .newline || b == .carriageReturn || b == .hash {
                try endOfLine(after: "")
            } else if b == .openBracket {
                current = try header(root)
                try endOfLine(after: "a table header")
            } else {
                try keyValue(into: current)
                try endOfLine(after: "a value")
            }
        }
        return root.frozen()
    }

    /// UTF-8 as RFC 3629 has it (no overlong forms, no surrogates, at most U+10FFFF); the first
    /// byte that is not is refused with its line.
    mutating func checkEncoding() throws(TOMLError) {
        var k = 0
        while k < bytes.count {
            let b = bytes[k]
            if b == .newline { line += 1; lineStart = k + 1 }
            if b < 0x80 { k += 1; continue }
            var length = 0, low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: break
            }
            var valid = length > 0 && k + length <= bytes.count && (low...high).contains(bytes[k + 1])
            if valid { for j in 2..<length where !(0x80...0xBF).contains(bytes[k + j]) { valid = false } }
            guard valid else { throw fail("holds bytes that are not UTF-8 text; save the file as UTF-8", at: k) }
            k += length
        }
        line = 1
        lineStart = 0
    }

    mutating func skipBlanks() {
        while let b = peek(), b.isBlank { index += 1 }
    }

    /// Past a newline (LF or CRLF) at `index`.
    mutating func newline() throws(TOMLError) {
        if peek() == .carriageReturn {
            guard peek(1) == .newline else { throw fail("a carriage return (U+000D) without a line feed; save the file with LF or CRLF line ends") }
            index += 1
        }
        index += 1
        line += 1
        lineStart = index
    }

    /// Past a comment: any text but control characters, to the end of its line.
    mutating func skipComment() throws(TOMLError) {
        while let b = peek(), b != .newline {
            if b == .carriageReturn && peek(1) == .newline { return }
            if b.isControl { throw fail("a comment holds \(shown(index)); remove it") }
            index += 1
        }
    }

    /// The rest of a line after `what` (a value, a header): blanks and a comment, then the end.
    mutating func endOfLine(after what: String) throws(TOMLError) {
        skipBlanks()
        if peek() == .hash { try skipComment() }
        guard let b = peek() else { return }
        guard b == .newline || b == .carriageReturn else {
            if b >= 0x80 || b.isControl { throw unexpected("the end of the line") }
            throw fail("\(shown(index)) after \(what) on the same line; put each key = value and each [table] on its own line")
        }
        try newline()
    }

    /// Blanks, comments and newlines (between an array's values).
    mutating func skipSpaceAndComments() throws(TOMLError) {
        while let b = peek() {
            if b.isBlank { index += 1 } else if b == .hash { try skipComment() } else if b == .newline || b == .carriageReturn { try newline() } else { return }
        }
    }

    // MARK: Keys

    /// A key, dotted or not: each part with where it is written.
    mutating func key() throws(TOMLError) -> [(String, TOMLPosition)] {
        var parts: [(String, TOMLPosition)] = []
        while true {
            let at = position()
            guard let b = peek() else { throw unexpected("a key") }
            if b == .quote || b == .apostrophe {
                if peek(1) == b && peek(2) == b { throw fail("a key cannot be a multi-line string; write it in \"quotes\" on one line") }
                parts.append((try singleLineString(), at))
            } else if b.isBareKey {
                let start = index
                while let c = peek(), c.isBareKey { index += 1 }
                parts.append((String(decoding: bytes[start..<index], as: UTF8.self), at))
            } else {
                throw unexpected(parts.isEmpty ? "a key" : "a key after \".\"")
            }
            skipBlanks()
            guard peek() == .dot else { return parts }
            index += 1
            skipBlanks()
        }
    }

    // MARK: Tables

    mutating func header(_ root: Node) throws(TOMLError) -> Node {
        let at = position()
        let isArray = peek(1) == .openBracket
        index += isArray ? 2 : 1
        skipBlanks()
        guard let first = peek(), first.isBareKey || first == .quote || first == .apostrophe else {
            if let b = peek(), b >= 0x80 { throw unexpected("a table's name") }
            throw fail("a table header without a name: write [name] or [[name]] with a key such as [motor]")
        }
        let parts = try key()
        guard peek() == .closeBracket, !isArray || peek(1) == .closeBracket else {
            if peek() == .closeBracket || peek() == nil || peek() == .newline || peek() == .carriageReturn || peek() == .hash {
                throw fail("a table header is not closed; end it with \(isArray ? "]]" : "]")")
            }
            throw unexpected(isArray ? "\"]]\"" : "\"]\"")
        }
        index += isArray ? 2 : 1
        guard parts.count + 1 <= maximumDepth else { throw tooDeep(at) }
        try count(parts.count)
        var table = root
        for (name, keyAt) in parts.dropLast() {
            switch table.slots[name] {
            case nil:
                table = table.addTable(name, .implicit, at: keyAt)
            case let .table(node, _)?:
                table = node
            case let .tables(array, _)?:
                table = array.elements[array.elements.count - 1]
            case let .value(_, _, valueAt)?:
                throw TOMLError(keyAt, "\(quoted(name)) already holds a value (line \(valueAt.line)); it cannot also be a table")
            }
        }
        let (name, keyAt) = parts[parts.count - 1]
        let existing = table.slots[name]
        if isArray {
            let element = Node(.element, at: at, depth: table.depth + 1)
            switch existing {
            case nil:
                let array = TableArray()
                array.elements.append(element)
                table.add(name, .tables(array, key: keyAt))
            case let .tables(array, _)?:
                array.elements.append(element)
            case let .table(node, _)?:
                throw TOMLError(keyAt, "\(quoted(name)) is a table (line \(node.position.line)), not an array of tables; write [[\(name)]] for each element or [\(name)] once")
            case let .value(_, _, valueAt)?:
                throw TOMLError(keyAt, "\(quoted(name)) already holds a value (line \(valueAt.line)); [[\(name)]] cannot add to it")
            }
            return element
        }
        switch existing {
        case nil:
            let node = Node(.header, at: at, depth: table.depth + 1)
            table.add(name, .table(node, key: keyAt))
            return node
        case let .table(node, _)? where node.kind == .implicit:
            node.kind = .header
            node.position = at
            return node
        case let .table(node, _)?:
            let how = node.kind == .dotted ? "made by dotted keys" : "defined"
            throw TOMLError(keyAt, "the table \(quoted(name)) is \(how) already (line \(node.position.line)); a table is defined once")
        case .tables?:
            throw TOMLError(keyAt, "\(quoted(name)) is an array of tables; write [[\(name)]] for another element")
        case let .value(_, _, valueAt)?:
            throw TOMLError(keyAt, "\(quoted(name)) already holds a value (line \(valueAt.line)); it cannot also be a table")
        }
    }

    mutating func keyValue(into table: Node) throws(TOMLError) {
        let parts = try key()
        skipBlanks()
        guard peek() == .equals else { throw unexpected("\"=\" after the key \(quoted(parts[parts.count - 1].0))") }
        index += 1
        skipBlanks()
        if peek() == nil || peek() == .newline || peek() == .carriageReturn || peek() == .hash {
            throw fail("a key without a value: write one after =")
        }
        guard table.depth + parts.count <= maximumDepth else { throw tooDeep(parts[0].1) }
        let at = position()
        let value = try value(depth: table.depth + parts.count)
        try assign(parts, value, at: at, into: table)
    }

    /// Sets a dotted key's value, making the tables on its way.
    mutating func assign(_ parts: [(String, TOMLPosition)], _ value: TOMLValue, at: TOMLPosition, into table: Node) throws(TOMLError) {
        try count(parts.count - 1)
        var table = table
        for (name, keyAt) in parts.dropLast() {
            switch table.slots[name] {
            case nil:
                table = table.addTable(name, .dotted, at: keyAt)
            case let .table(node, _)? where node.kind == .dotted || node.kind == .implicit:
                node.kind = .dotted
                table = node
            case let .table(node, _)?:
                throw TOMLError(keyAt, "\(quoted(name)) is a table with its own [header] (line \(node.position.line)); write its keys there")
            case .tables?:
                throw TOMLError(keyAt, "\(quoted(name)) is an array of tables; dotted keys cannot add to it")
            case let .value(_, _, valueAt)?:
                throw TOMLError(keyAt, "\(quoted(name)) already holds a value (line \(valueAt.line)); it cannot also be a table")
            }
        }
        let (name, keyAt) = parts[parts.count - 1]
        if let existing = table.slots[name] {
            let line: Int
            switch existing {
            case let .value(_, key, _): line = key.line
            case let .table(_, key), let .tables(_, key): line = key.line
            }
            throw TOMLError(keyAt, "\(quoted(name)) is defined twice (first on line \(line)); keep one")
        }
        table.add(name, .value(value, key: keyAt, at: at))
    }

    func quoted(_ name: String) -> String {
        let scalars = name.unicodeScalars
        let cut = scalars.count > 40 ? String(String.UnicodeScalarView(scalars.prefix(40))) + "…" : name
        return "\"" + String(cut.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }) + "\""
    }

    func tooDeep(_ at: TOMLPosition) -> TOMLError {
        TOMLError(at, "tables and arrays nest more than \(maximumDepth) deep here; a board or study file needs 3")
    }

    // MARK: Values

    mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        guard let b = peek() else { throw fail("a key without a value: write one after =") }
        try count(1)
        switch b {
        case .quote, .apostrophe:
            if peek(1) == b && peek(2) == b { return .string(try multiLineString()) }
            return .string(try singleLineString())
        case .openBracket: return try array(depth: depth)
        case .openBrace: return try inlineTable(depth: depth)
        case .closeBracket, .closeBrace, .comma, .equals: throw fail("\(shown(index)) where a value must be: a value is missing")
        case .newline, .carriageReturn, .hash: throw fail("a value is missing before \(shown(index)); write one")
        default: return try bareValue()
        }
    }

    mutating func array(depth: Int) throws(TOMLError) -> TOMLValue {
        let open = position()
        guard depth + 1 <= maximumDepth else { throw tooDeep(open) }
        index += 1
        var values: [TOMLValue] = []
        while true {
            try skipSpaceAndComments()
            if peek() == .closeBracket { index += 1; return .array(values) }
            guard peek() != nil else { throw TOMLError(open, "an array is not closed; end it with ]") }
            values.append(try value(depth: depth + 1))
            try skipSpaceAndComments()
            switch peek() {
            case .comma?: index += 1
            case .closeBracket?: index += 1; return .array(values)
            case nil: throw TOMLError(open, "an array is not closed; end it with ]")
            default: throw unexpected("\",\" or \"]\" in an array")
            }
        }
    }

    mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth + 1 <= maximumDepth else { throw tooDeep(position()) }
        let node = Node(.dotted, at: position(), depth: depth)
        index += 1
        skipBlanks()
        if peek() == .closeBrace { index += 1; return .table(node.frozen()) }
        while true {
            skipBlanks()
            guard let b = peek(), b.isBareKey || b == .quote || b == .apostrophe else {
                if peek() == .newline || peek() == .carriageReturn || peek() == nil {
                    throw fail("an inline table must end on the line it starts; close it with }")
                }
                if let b = peek(), b >= 0x80 || b.isControl { throw unexpected("a key") }
                throw fail("\(shown(index)) where an inline table needs a key")
            }
            let parts = try key()
            skipBlanks()
            guard peek() == .equals else { throw unexpected("\"=\" after the key \(quoted(parts[parts.count - 1].0))") }
            index += 1
            skipBlanks()
            guard node.depth + parts.count <= maximumDepth else { throw tooDeep(parts[0].1) }
            let at = position()
            let value = try value(depth: node.depth + parts.count)
            try assign(parts, value, at: at, into: node)
            skipBlanks()
            switch peek() {
            case .comma?:
                index += 1
                skipBlanks()
                if peek() == .closeBrace { throw fail("a comma before }: remove it (TOML 1.0 allows none after an inline table's last value)") }
            case .closeBrace?:
                index += 1
                return .table(node.frozen())
            case nil, .newline?, .carriageReturn?:
                throw fail("an inline table must end on the line it starts; close it with }")
            default:
                throw unexpected("\",\" or \"}\" in an inline table")
            }
        }
    }
}
