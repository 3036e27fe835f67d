/// A check of TOML text made before a TOML parser sees it. TOMLKit's parser (toml++) stops
/// the whole process with an assertion on some text that is not TOML, found by fuzzing the
/// board and study files: a table header that does not start with a key (`[# …`, `[wéarer]`),
/// a value missing where one must be (`choices = ["a",} "b"]`, `[1,,2]`, `{ a = }`). So the
/// files people and other programs write are refused here first, with the line; what passes
/// may still be refused by the parser, with its own message.
public enum TOMLText {
    /// The first line with something the parser must not see, and what it is; nil when the
    /// text may go to the parser. Checked outside strings and comments: characters beyond
    /// ASCII and control characters, strings not closed, table headers without a key, and
    /// missing values after `=`, in arrays and in inline tables.
    public static func problem(in text: String) -> (line: Int, message: String)? {
        var scanner = Scanner(Array(text.unicodeScalars))
        return scanner.run()
    }

    private enum Nesting { case array, inlineTable }

    /// What may come next.
    private enum Expect {
        /// Anything (a key, `=`, the rest of a value, a separator).
        case anything
        /// A value, after `=` (top level: on the same line).
        case value
        /// A value or the array's end, after `[` or `,` in an array.
        case valueOrEnd
        /// A key or the table's end, after `{` or `,` in an inline table.
        case keyOrEnd
    }

    private struct Scanner {
        let s: [Unicode.Scalar]
        var i = 0
        var line = 1
        var nesting: [Nesting] = []
        var expect = Expect.anything
        var lineStart = true

        init(_ s: [Unicode.Scalar]) { self.s = s }

        func at(_ k: Int) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

        static func isKeyCharacter(_ c: Unicode.Scalar) -> Bool {
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" || c == "_")
        }

        mutating func run() -> (line: Int, message: String)? {
            while i < s.count {
                let c = s[i]
                if c == "\u{FFFD}" { return (line, "holds bytes that are not UTF-8 text; save the file as UTF-8") }
                if c == "\n" {
                    if expect == .value && nesting.isEmpty { return (line, "has a key without a value: write one after =") }
                    line += 1
                    lineStart = true
                    i += 1
                    continue
                }
                if c == " " || c == "\t" || c == "\r" { i += 1; continue }
                if c == "#" {
                    if expect == .value && nesting.isEmpty { return (line, "has a key without a value: write one after =") }
                    while i < s.count && s[i] != "\n" { i += 1 }
                    continue
                }
                if c.value < 0x20 || c.value == 0x7F {
                    return (line, "has a control character (U+\(String(c.value, radix: 16, uppercase: true))) outside quotes")
                }
                let startsLine = lineStart
                lineStart = false
                if c == "\"" || c == "'" {
                    if let problem = skipString() { return problem }
                    if expect != .anything { expect = .anything }
                    continue
                }
                if !c.isASCII {
                    return (line, "has \"\(c)\" outside quotes: keys are ASCII letters, digits, - and _ (quote a key such as \"wéarer\", or a value)")
                }
                if c == "[" && startsLine && nesting.isEmpty && expect == .anything {
                    if let problem = skipTableHeaderStart() { return problem }
                    continue
                }
                switch expect {
                case .value, .valueOrEnd:
                    if c == "]" && expect == .valueOrEnd && nesting.last == .array {
                        nesting.removeLast()
                        expect = .anything
                    } else if c == "]" || c == "}" || c == "," || c == "=" {
                        return (line, "has \"\(c)\" where a value must be: a value is missing")
                    } else if c == "[" {
                        nesting.append(.array)
                        expect = .valueOrEnd
                    } else if c == "{" {
                        nesting.append(.inlineTable)
                        expect = .keyOrEnd
                    } else {
                        if let problem = checkDateAndTime() { return problem }
                        expect = .anything
                    }
                case .keyOrEnd:
                    if c == "}" {
                        nesting.removeLast()
                        expect = .anything
                    } else if Self.isKeyCharacter(c) {
                        expect = .anything
                    } else {
                        return (line, "has \"\(c)\" where an inline table needs a key")
                    }
                case .anything:
                    switch c {
                    case "=": expect = .value
                    case ",":
                        if nesting.last == .array { expect = .valueOrEnd } else if nesting.last == .inlineTable { expect = .keyOrEnd }
                    case "]": if nesting.last == .array { nesting.removeLast() }
                    case "}": if nesting.last == .inlineTable { nesting.removeLast() }
                    case "[": nesting.append(.array); expect = .valueOrEnd
                    case "{": nesting.append(.inlineTable); expect = .keyOrEnd
                    default: break
                    }
                }
                i += 1
            }
            return nil
        }

        /// Past a quoted string (basic or literal, one line or several); a problem when it
        /// does not end.
        mutating func skipString() -> (line: Int, message: String)? {
            let quote = s[i]
            let startLine = line
            if at(1) == quote && at(2) == quote {
                i += 3
                while i < s.count {
                    if s[i] == "\\" && quote == "\"" { i += 2; continue }
                    if s[i] == "\n" { line += 1 }
                    if s[i] == quote && at(1) == quote && at(2) == quote {
                        i += 3
                        while i < s.count && s[i] == quote { i += 1 }   // up to two quotes may end the content
                        return nil
                    }
                    i += 1
                }
                return (startLine, "a multi-line string does not end: close it with \(quote)\(quote)\(quote)")
            }
            i += 1
            while i < s.count && s[i] != "\n" {
                if s[i] == "\\" && quote == "\"" { i += 2; continue }
                if s[i] == quote { i += 1; return nil }
                i += 1
            }
            return (line, "a quoted string does not end on its line: close it with the same quote")
        }

        /// A bare value that looks like a date (it holds `-` or `:`) followed on its line by
        /// more than a comment must be a date and a time, `YYYY-MM-DD HH:MM…`: toml++ asserts on
        /// `2026-03-02 0` and `1/13-02-02 0` (found by fuzzing the study files).
        func checkDateAndTime() -> (line: Int, message: String)? {
            func digit(_ k: Int) -> Bool { at(k).map { ("0"..."9").contains($0) } ?? false }
            var end = 0
            while let c = at(end), c != " ", c != "\t", c != "\n", c != "\r", c != ",", c != "]", c != "}", c != "#" { end += 1 }
            let token = s[i ..< i + end]
            guard token.dropFirst().contains("-") || token.contains(":") else { return nil }
            var k = end
            while at(k) == " " || at(k) == "\t" { k += 1 }
            guard k > end, let next = at(k), next != "\n", next != "#", next != "\r", next != ",", next != "]", next != "}" else { return nil }
            let isDate = end == 10 && (0..<4).allSatisfy(digit) && at(4) == "-" && digit(5) && digit(6) && at(7) == "-" && digit(8) && digit(9)
            if isDate && k == 11 && digit(11) && digit(12) && at(13) == ":" && digit(14) && digit(15) { return nil }
            return (line, "has a date followed by something that is not a time: write 2026-03-02 or 2026-03-02 08:00:00")
        }

        /// Past `[` or `[[` and blanks of a table header, to its key; a problem when no key
        /// starts there.
        mutating func skipTableHeaderStart() -> (line: Int, message: String)? {
            var j = i + 1
            if j < s.count && s[j] == "[" { j += 1 }
            while j < s.count && (s[j] == " " || s[j] == "\t") { j += 1 }
            let first = j < s.count ? s[j] : "\n"
            guard Self.isKeyCharacter(first) || first == "\"" || first == "'" || first == "]" else {
                return (line, "has a table header without a name: write [name] or [[name]] with a key such as [motor]")
            }
            i = j
            return nil
        }
    }
}
