import AmbleLinux
import AmbleModel
import AmbleTOML
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads and checks a board file (`boards/*.toml`). Every problem is reported with the file,
/// the line and the key, and what would be right.
public enum BoardFile {
    /// The most a board file may hold, bytes: 64 KiB. A real one is 1-1.3 kB (boards/*.toml),
    /// a heavily commented one a few kB. Reading one costs a bounded multiple of the text in
    /// memory (docs/packaging.md gives the measured figures), and a larger one is refused unread
    /// (with TOMLKit, a 50 MB file cost 891 MB).
    public static let maximumBytes = 64 * 1024
    /// The most values a board file may hold: 2,000 (boards/*.toml hold 30-60), so that reading
    /// one costs at most about 0.6 MB whatever it holds (docs/packaging.md).
    public static let maximumValues = 2000

    /// Reads the board file at `path`.
    public static func load(path: String) throws(BoardError) -> BoardConfiguration {
        let data: [UInt8]
        do {
            data = try readWholeFile(atPath: path, limitBytes: maximumBytes)
        } catch {
            let message = error.sentence(given: path, whereTheyAre: "boards/ holds one file per board", usualSize: "a board file is 1-2 kB")
            throw BoardError(file: path, line: nil, key: nil, message: message)
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            let line = TOMLReader.invalidUTF8Position(in: data)?.line ?? 1
            throw BoardError(file: path, line: line, key: nil, message: "holds bytes that are not UTF-8 text; save the file as UTF-8")
        }
        return try parse(text: text, file: path)
    }

    /// Parses board file text; `file` names it in errors.
    public static func parse(text: String, file: String) throws(BoardError) -> BoardConfiguration {
        let table: TOMLTable
        do {
            table = try TOMLReader(maximumValues: maximumValues).read(text)
        } catch {
            throw BoardError(file: file, line: error.line, key: nil, message: "not valid TOML: \(printableText(error.description, maximum: 200))")
        }
        let locator = KeyLocator(text: text)
        let reader = TableReader(file: file, locator: locator, path: "", index: nil, table: table)
        var board = try BoardSchema.read(reader)
        board.keyLines = locator.allLines
        return board
    }
}

/// One table of a board file, with typed, located reads.
struct TableReader {
    let file: String
    let locator: KeyLocator
    /// The table's name as written in the file ("" for the top level).
    let path: String
    let index: Int?
    let table: TOMLTable

    func keyName(_ key: String) -> String {
        if path.isEmpty { return key }
        if let index { return "\(path)[\(index + 1)].\(key)" }
        return "\(path).\(key)"
    }

    /// An error at `key` of this table (the table itself when nil): its line, and its name cut
    /// to 60 characters (a file may hold a key of a megabyte).
    func error(_ key: String?, _ message: String) -> BoardError {
        BoardError(file: file, line: locator.line(table: path, index: index, key: key),
                   key: (key.map(keyName) ?? (path.isEmpty ? nil : "[\(path)]")).map { printableText($0) }, message: message)
    }

    func has(_ key: String) -> Bool { table[key] != nil }

    func string(_ key: String, default value: String? = nil, allowed: [String]? = nil) throws(BoardError) -> String {
        guard let raw = table[key] else {
            if let value { return value }
            throw error(key, "missing; add \(key) = \"...\"" + (allowed.map { " (one of \($0.joined(separator: ", ")))" } ?? ""))
        }
        guard let text = raw.string else { throw error(key, "must be a string in quotes") }
        if let allowed, !allowed.contains(text.lowercased()) {
            throw error(key, "\"\(printableText(text))\" is not one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return allowed == nil ? text : text.lowercased()
    }

    /// One of an enumeration's raw values, read like `string(_:default:allowed:)` (case does
    /// not matter); the error lists the allowed values.
    func choice<Value: RawRepresentable & CaseIterable>(_ key: String, default value: Value? = nil) throws(BoardError) -> Value where Value.RawValue == String {
        let allowed = Value.allCases.map(\.rawValue)
        let text = try string(key, default: value?.rawValue, allowed: allowed)
        guard let chosen = Value(rawValue: text) else {
            throw error(key, "\"\(text)\" is not one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return chosen
    }

    func int(_ key: String, default value: Int? = nil, range: ClosedRange<Int>) throws(BoardError) -> Int {
        guard let raw = table[key] else {
            if let value { return value }
            throw error(key, "missing; add \(key) = N (\(range.lowerBound)...\(range.upperBound))")
        }
        guard let number = raw.int else { throw error(key, "must be a whole number (\(range.lowerBound)...\(range.upperBound))") }
        guard range.contains(number) else { throw error(key, "\(number) is outside \(range.lowerBound)...\(range.upperBound)") }
        return number
    }

    func double(_ key: String, default value: Double? = nil, range: ClosedRange<Double>) throws(BoardError) -> Double {
        guard let raw = table[key] else {
            if let value { return value }
            throw error(key, "missing; add \(key) = N (\(range.lowerBound)...\(range.upperBound))")
        }
        guard let number = raw.double ?? raw.int.map(Double.init) else { throw error(key, "must be a number") }
        guard range.contains(number) else { throw error(key, "\(number) is outside \(range.lowerBound)...\(range.upperBound)") }
        return number
    }

    func bool(_ key: String, default value: Bool) throws(BoardError) -> Bool {
        guard let raw = table[key] else { return value }
        guard let flag = raw.bool else { throw error(key, "must be true or false") }
        return flag
    }

    func subtable(_ key: String) throws(BoardError) -> TableReader? {
        guard let raw = table[key] else { return nil }
        guard let sub = raw.table else { throw error(key, "must be a table: write [\(key)] on its own line") }
        return TableReader(file: file, locator: locator, path: key, index: nil, table: sub)
    }

    func arrayOfTables(_ key: String) throws(BoardError) -> [TableReader] {
        guard let raw = table[key] else { return [] }
        guard let array = raw.array else { throw error(key, "must be an array of tables: write [[\(key)]] before each") }
        var readers: [TableReader] = []
        for (i, element) in array.enumerated() {
            guard let sub = element.table else { throw error(key, "element \(i + 1) must be a table") }
            readers.append(TableReader(file: file, locator: locator, path: key, index: i, table: sub))
        }
        return readers
    }

    /// Refuses keys the schema does not know, suggesting the nearest known one (for a key of
    /// at most 40 characters: no known key is longer, and the distance costs their product).
    func rejectUnknownKeys(known: [String]) throws(BoardError) {
        for key in table.keys where !known.contains(key) {
            let nearest = key.utf8.count > 40 ? nil : known.min { editDistance($0, key) < editDistance($1, key) }
            let hint = nearest.flatMap { editDistance($0, key) <= 3 ? "; did you mean \($0)?" : nil } ?? "; known keys here: \(known.joined(separator: ", "))"
            throw error(key, "unknown key\(hint)")
        }
    }
}
