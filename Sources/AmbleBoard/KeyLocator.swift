/// Finds the line of a key in TOML text, so errors found after parsing can point at it.
/// It understands `[table]`, `[[array]]` headers and `key = value` lines, which is all a board
/// file uses.
struct KeyLocator {
    private struct Entry {
        var table: String
        var index: Int?
        var key: String?
        var line: Int
    }

    private var entries: [Entry] = []

    init(text: String) {
        var table = ""
        var index: Int?
        var arrayCounts: [String: Int] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[[") {
                let name = line.dropFirst(2).prefix { $0 != "]" }.trimmingCharacters
                let n = arrayCounts[name, default: 0]
                arrayCounts[name] = n + 1
                table = name
                index = n
                entries.append(Entry(table: table, index: index, key: nil, line: number + 1))
            } else if line.hasPrefix("[") {
                table = line.dropFirst().prefix { $0 != "]" }.trimmingCharacters
                index = nil
                entries.append(Entry(table: table, index: nil, key: nil, line: number + 1))
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = line[..<equals].trimmingCharacters.replacingQuotes
                entries.append(Entry(table: table, index: index, key: key, line: number + 1))
            }
        }
    }

    /// The line of `key` in `table` (element `index` of an array of tables): where the key is
    /// written, or where a table of that name starts (`[motor.extra]`), or a dotted key under it
    /// (`extra.a = 1`); else the table's own line, else the line of the key that holds the table
    /// in the table above (an inline table, `motor = { ... }`); the top-level table's line is 1.
    /// So every error has a line.
    func line(table: String, index: Int? = nil, key: String?) -> Int? {
        if let key {
            let inTable = entries.filter { $0.table == table && $0.index == index }
            if let entry = inTable.first(where: { $0.key == key }) { return entry.line }
            let subtable = table.isEmpty ? key : table + "." + key
            if let entry = entries.first(where: { $0.table == subtable && $0.key == nil }) { return entry.line }
            if let entry = inTable.first(where: { $0.key?.hasPrefix(key + ".") == true }) { return entry.line }
        }
        if table.isEmpty { return 1 }
        if let entry = entries.first(where: { $0.table == table && $0.index == index && $0.key == nil }) { return entry.line }
        let parts = table.split(separator: ".", omittingEmptySubsequences: false)
        return line(table: parts.dropLast().joined(separator: "."), key: String(parts.last ?? ""))
    }

    /// Every key as `table.key` (and every table as `table`) with its line.
    var allLines: [String: Int] {
        var lines: [String: Int] = [:]
        for entry in entries where entry.index == nil {
            let name = entry.key.map { entry.table.isEmpty ? $0 : "\(entry.table).\($0)" } ?? entry.table
            if lines[name] == nil { lines[name] = entry.line }
        }
        return lines
    }

}

extension Substring {
    var trimmingCharacters: String {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}

extension String {
    var replacingQuotes: String {
        if count >= 2, (hasPrefix("\"") && hasSuffix("\"")) || (hasPrefix("'") && hasSuffix("'")) {
            return String(dropFirst().dropLast())
        }
        return self
    }
}

/// Edit distance, for "did you mean" suggestions.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
