/// A check of TOML text made before a TOML parser sees it. TOMLKit's parser (toml++) stops
/// the whole process with an assertion on some inputs that are not TOML, such as a key with a
/// non-ASCII character (`[wéarer]`), found by fuzzing the board files. So the files people
/// and other programs write (board files, study files) are refused here first, with the line.
public enum TOMLText {
    /// The first line with something no TOML key or value may hold outside quotes and
    /// comments (a character beyond ASCII, or a control character), and what it is; nil when
    /// the text may go to the parser.
    public static func problem(in text: String) -> (line: Int, message: String)? {
        enum State { case normal, comment, basic, literal, multilineBasic, multilineLiteral }
        var state = State.normal
        var line = 1
        // Arrays and inline tables open in values: inside them `[` is not a table header.
        var valueDepth = 0
        var lineStart = true
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func next(_ offset: Int) -> Unicode.Scalar? { i + offset < scalars.count ? scalars[i + offset] : nil }
        while i < scalars.count {
            let c = scalars[i]
            if c == "\n" {
                line += 1
                lineStart = true
                if state == .comment { state = .normal }
                if state == .basic || state == .literal {
                    return (line - 1, "a quoted string does not end on its line: close it with the same quote")
                }
                i += 1
                continue
            }
            if c == "\u{FFFD}" {
                return (line, "holds bytes that are not UTF-8 text; save the file as UTF-8")
            }
            switch state {
            case .normal:
                let startsLine = lineStart
                if c != " " && c != "\t" && c != "\r" { lineStart = false }
                if c == "[" && startsLine && valueDepth == 0 {
                    // A table header: `[` or `[[`, blanks, then a key (toml++ asserts on anything else).
                    var j = i + 1
                    if j < scalars.count && scalars[j] == "[" { j += 1 }
                    while j < scalars.count && (scalars[j] == " " || scalars[j] == "\t") { j += 1 }
                    let first = j < scalars.count ? scalars[j] : "\n"
                    let isKeyStart = first.isASCII && (first.properties.isAlphabetic || ("0"..."9").contains(first) || first == "-" || first == "_")
                        || first == "\"" || first == "'" || first == "]"
                    guard isKeyStart else {
                        return (line, "has a table header without a name: write [name] or [[name]] with a key such as [motor]")
                    }
                    i = j
                    continue
                }
                if c == "[" || c == "{" { valueDepth += 1 }
                if (c == "]" || c == "}") && valueDepth > 0 { valueDepth -= 1 }
                if c == "#" {
                    state = .comment
                } else if c == "\"" {
                    if next(1) == "\"" && next(2) == "\"" { state = .multilineBasic; i += 2 } else { state = .basic }
                } else if c == "'" {
                    if next(1) == "'" && next(2) == "'" { state = .multilineLiteral; i += 2 } else { state = .literal }
                } else if !c.isASCII {
                    return (line, "has \"\(c)\" outside quotes: keys are ASCII letters, digits, - and _ (quote a key such as \"wéarer\", or a value)")
                } else if c.value < 0x20 && c != "\t" && c != "\r" || c.value == 0x7F {
                    return (line, "has a control character (U+\(String(c.value, radix: 16, uppercase: true))) outside quotes")
                }
            case .comment:
                break
            case .basic:
                if c == "\\" { i += 1 } else if c == "\"" { state = .normal }
            case .literal:
                if c == "'" { state = .normal }
            case .multilineBasic:
                if c == "\\" { i += 1 } else if c == "\"" && next(1) == "\"" && next(2) == "\"" { state = .normal; i += 2 }
            case .multilineLiteral:
                if c == "'" && next(1) == "'" && next(2) == "'" { state = .normal; i += 2 }
            }
            i += 1
        }
        return nil
    }
}
