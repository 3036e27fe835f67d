import AmbleModel
import AmbleTOML

/// Reads a study file written in JSON (one object with the same keys and nesting as the TOML
/// form: `{"name": ..., "questionnaire": [{"name": ..., "item": [{...}]}]}`) into the table the
/// TOML reader checks, noting the line of every key so errors name it as for TOML. A small
/// parser of its own, because the line of each key is what the errors need.
struct StudyJSONReader {
    private let scalars: [Unicode.Scalar]
    private let file: String
    private var index = 0
    private var line = 1
    /// Where the current line starts, for columns.
    private var lineStart = 0
    /// The line of each key, named as errors write them (`questionnaire[2].item[1].type`).
    private(set) var lines: [String: Int] = [:]

    init(text: String, file: String) {
        scalars = Array(text.unicodeScalars)
        self.file = file
    }

    /// The study's top-level table.
    mutating func document() throws(StudyFileError) -> TOMLTable {
        skipSpace()
        guard peek == "{" else {
            throw failure((peek == "[" ? "the top level is a list; " : "") + "a study file in JSON is one object: {\"name\": ..., \"questionnaire\": [...]}")
        }
        let table = try object(path: "")
        skipSpace()
        guard index == scalars.count else { throw failure("unexpected text after the study's object") }
        return table
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func advance() {
        if scalars[index] == "\n" { line += 1; lineStart = index + 1 }
        index += 1
    }

    private mutating func skipSpace() {
        while let c = peek, c == " " || c == "\t" || c == "\n" || c == "\r" { advance() }
    }

    private func failure(_ message: String, key: String? = nil, line: Int? = nil) -> StudyFileError {
        StudyFileError(file: file, line: line ?? self.line, key: key, message: key == nil ? "not valid JSON: \(message)" : message)
    }

    private mutating func expect(_ c: Unicode.Scalar, _ what: String) throws(StudyFileError) {
        guard peek == c else { throw failure("expected \(what)") }
        advance()
    }

    /// A value; nil for `null`.
    private var position: TOMLPosition { TOMLPosition(line: line, column: index - lineStart + 1) }

    private mutating func value(path: String) throws(StudyFileError) -> TOMLValue? {
        switch peek {
        case "{": return .table(try object(path: path))
        case "[": return try array(path: path)
        case "\"": return .string(try string())
        case "t": try literal("true"); return .boolean(true)
        case "f": try literal("false"); return .boolean(false)
        case "n": try literal("null"); return nil
        case let c? where c == "-" || ("0"..."9").contains(c): return try number()
        default: throw failure("expected a value (a string, number, true, false, list or object)")
        }
    }

    private mutating func object(path: String) throws(StudyFileError) -> TOMLTable {
        var table = TOMLTable(position: position)
        try expect("{", "{")
        skipSpace()
        if peek == "}" { advance(); return table }
        while true {
            skipSpace()
            guard peek == "\"" else { throw failure("expected a key in double quotes") }
            let keyLine = line, keyPosition = position
            let key = try string()
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            if lines[keyPath] == nil { lines[keyPath] = keyLine }
            skipSpace()
            try expect(":", "':' after \"\(printableText(key))\"")
            skipSpace()
            let valuePosition = position
            guard let value = try value(path: keyPath) else {
                throw failure("is null; give a value or leave the key out", key: keyPath, line: keyLine)
            }
            table.set(key, value, keyPosition: keyPosition, valuePosition: valuePosition)
            skipSpace()
            if peek == "," { advance(); continue }
            if peek == "}" { advance(); return table }
            throw failure("expected ',' or '}' after the value of \"\(printableText(key))\"")
        }
    }

    private mutating func array(path: String) throws(StudyFileError) -> TOMLValue {
        try expect("[", "[")
        var array: [TOMLValue] = []
        skipSpace()
        if peek == "]" { advance(); return .array(array) }
        var count = 0
        while true {
            skipSpace()
            count += 1
            let elementPath = "\(path)[\(count)]"
            if peek == "{", lines[elementPath] == nil { lines[elementPath] = line }
            guard let value = try value(path: elementPath) else { throw failure("null is not allowed in a list", key: path) }
            array.append(value)
            skipSpace()
            if peek == "," { advance(); continue }
            if peek == "]" { advance(); return .array(array) }
            throw failure("expected ',' or ']' in the list")
        }
    }

    private mutating func literal(_ word: String) throws(StudyFileError) {
        for expected in word.unicodeScalars {
            guard peek == expected else { throw failure("expected \(word)") }
            advance()
        }
    }

    private mutating func number() throws(StudyFileError) -> TOMLValue {
        var text = ""
        while let c = peek, c == "-" || c == "+" || c == "." || c == "e" || c == "E" || ("0"..."9").contains(c) {
            text.unicodeScalars.append(c)
            advance()
        }
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let whole = Int64(text) { return .integer(whole) }
        guard let real = Double(text), real.isFinite else { throw failure("\"\(printableText(text))\" is not a number") }
        return .float(real)
    }

    private mutating func string() throws(StudyFileError) -> String {
        try expect("\"", "a string")
        var result = String.UnicodeScalarView()
        while true {
            guard let c = peek else { throw failure("a string is not closed") }
            advance()
            switch c {
            case "\"":
                return String(result)
            case "\n":
                throw failure("a line ends inside a string (write \\n for a line break)")
            case "\\":
                guard let e = peek else { throw failure("a string is not closed") }
                advance()
                switch e {
                case "\"", "\\", "/": result.append(e)
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "b": result.append("\u{08}")
                case "f": result.append("\u{0C}")
                case "u":
                    var code: UInt32 = 0
                    for _ in 0..<4 {
                        guard let h = peek, let digit = Int(String(h), radix: 16) else { throw failure("\\u needs four hex digits") }
                        code = code * 16 + UInt32(digit)
                        advance()
                    }
                    result.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default:
                    throw failure("\\\(e) is not an escape JSON knows")
                }
            default:
                result.append(c)
            }
        }
    }
}
