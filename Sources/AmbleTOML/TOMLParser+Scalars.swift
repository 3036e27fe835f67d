extension TOMLParser {
    // MARK: Strings

    /// A basic "..." or literal '...' string on one line.
    mutating func singleLineString() throws(TOMLError) -> String {
        let open = index
        let quote = bytes[index]
        index += 1
        var out: [UInt8] = []
        while true {
            guard let b = peek(), b != .newline, b != .carriageReturn else {
                let closing = quote == .quote ? "\"" : "'"
                throw fail("a string does not end on its line; close it with \(closing) (or use \(closing)\(closing)\(closing) for several lines)", at: open)
            }
            if b == quote { index += 1; return String(decoding: out, as: UTF8.self) }
            if b == .backslash && quote == .quote {
                try escape(into: &out)
            } else if b.isControl {
                throw fail("a string holds \(shown(index)); write it as an escape such as \\u\(hex(UInt32(b), digits: 4))")
            } else {
                out.append(b)
                index += 1
            }
        }
    }

    /// A multi-line basic """...""" or literal '''...''' string.
    mutating func multiLineString() throws(TOMLError) -> String {
        let open = position()
        let quote = bytes[index]
        index += 3
        if peek() == .newline || (peek() == .carriageReturn && peek(1) == .newline) { try newline() }
        var out: [UInt8] = []
        while true {
            guard let b = peek() else {
                let closing = quote == .quote ? "\"\"\"" : "'''"
                throw TOMLError(open, "a multi-line string does not end; close it with \(closing)")
            }
            if b == quote && peek(1) == quote && peek(2) == quote {
                var run = 3
                while peek(run) == quote { run += 1 }
                guard run <= 5 else { throw fail("\(run) quotes in a row end a multi-line string; at most two may stand before its closing three") }
                out.append(contentsOf: repeatElement(quote, count: run - 3))
                index += run
                return String(decoding: out, as: UTF8.self)
            }
            if b == .newline || b == .carriageReturn {
                try newline()
                out.append(.newline)
            } else if b == .backslash && quote == .quote {
                // A backslash last on its line joins the next non-blank text.
                var k = index + 1
                while k < bytes.count && bytes[k].isBlank { k += 1 }
                if k < bytes.count && (bytes[k] == .newline || bytes[k] == .carriageReturn) {
                    index = k
                    while let c = peek(), c.isBlank || c == .newline || c == .carriageReturn {
                        if c.isBlank { index += 1 } else { try newline() }
                    }
                } else {
                    try escape(into: &out)
                }
            } else if b.isControl {
                throw fail("a string holds \(shown(index)); write it as an escape such as \\u\(hex(UInt32(b), digits: 4))")
            } else {
                out.append(b)
                index += 1
            }
        }
    }

    /// An escape in a basic string, at its backslash.
    mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let at = index
        index += 1
        guard let e = peek() else { throw fail("a string ends after a backslash; write \\\\ for a backslash", at: at) }
        index += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08); return
        case UInt8(ascii: "t"): out.append(0x09); return
        case UInt8(ascii: "n"): out.append(0x0A); return
        case UInt8(ascii: "f"): out.append(0x0C); return
        case UInt8(ascii: "r"): out.append(0x0D); return
        case .quote, .backslash: out.append(e); return
        default: break
        }
        guard e == UInt8(ascii: "u") || e == UInt8(ascii: "U") else {
            throw fail("\\\(e < 0x80 && !e.isControl ? String(UnicodeScalar(e)) : "") is not an escape TOML knows (\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX); write \\\\ for a backslash", at: at)
        }
        let digits = e == UInt8(ascii: "u") ? 4 : 8
        var code: UInt32 = 0
        for _ in 0..<digits {
            guard let h = peek(), let v = hexValue(h) else {
                throw fail("\\\(e == UInt8(ascii: "u") ? "u" : "U") needs \(digits) hexadecimal digits", at: at)
            }
            code = code &* 16 &+ UInt32(v)
            index += 1
        }
        guard let scalar = Unicode.Scalar(code) else {
            throw fail("\\\(e == UInt8(ascii: "u") ? "u" : "U")\(hex(code, digits: digits)) is not a Unicode scalar value (a surrogate or beyond U+10FFFF)", at: at)
        }
        out.append(contentsOf: String(scalar).utf8)
    }

    // MARK: Numbers, booleans, dates and times

    mutating func bareValue() throws(TOMLError) -> TOMLValue {
        let start = index
        while let b = peek(), !b.endsBareValue, !b.isControl { index += 1 }
        let token = Array(bytes[start..<index])
        if token == Array("true".utf8) { return .boolean(true) }
        if token == Array("false".utf8) { return .boolean(false) }
        if let b = token.first, b >= 0x80 || b.isControl {
            index = start
            throw unexpected("a value")
        }
        let looksLikeDate = token.dropFirst().contains(.minus) && !token.contains(UInt8(ascii: "e")) && !token.contains(UInt8(ascii: "E")) || token.contains(.colon)
        if looksLikeDate {
            let value = dateOrTime(token)
            var k = index
            while k < bytes.count && bytes[k].isBlank { k += 1 }
            let followed = k > index && k < bytes.count && !bytes[k].endsBareValue
            if let value, !(followed && value.date != nil) { return value }
            if followed {
                throw fail("a date followed by something that is not a time: write 2026-03-02 or 2026-03-02 08:00:00", at: start)
            }
            throw fail("\(shownToken(Array(bytes[start..<index]))) is not a date or a time: write a date 2026-03-02, a time 08:00:00, or both 2026-03-02T08:00:00 (Z or +01:00 after it for an offset)", at: start)
        }
        return try number(token, start: start)
    }

    func shownToken(_ token: [UInt8]) -> String { quoted(String(decoding: token, as: UTF8.self)) }

    /// A date, a time, or both; nil when the token is none. `index` is past the token.
    mutating func dateOrTime(_ token: [UInt8]) -> TOMLValue? {
        func digits(_ from: Int, _ count: Int, in t: [UInt8]) -> Int? {
            guard from + count <= t.count else { return nil }
            var n = 0
            for k in from..<(from + count) {
                guard t[k].isDigit else { return nil }
                n = n * 10 + Int(t[k] - 0x30)
            }
            return n
        }
        func time(_ t: [UInt8], from: Int) -> (TOMLTime, Int)? {
            guard let h = digits(from, 2, in: t), t.count > from + 2, t[from + 2] == .colon, let m = digits(from + 3, 2, in: t),
                  t.count > from + 5, t[from + 5] == .colon, let s = digits(from + 6, 2, in: t),
                  h <= 23, m <= 59, s <= 60 else { return nil }
            var end = from + 8
            var nanosecond = 0
            if end < t.count && t[end] == .dot {
                end += 1
                var scale = 100_000_000, count = 0
                while end < t.count && t[end].isDigit {
                    nanosecond += Int(t[end] - 0x30) * scale
                    scale /= 10
                    end += 1
                    count += 1
                }
                guard count > 0 else { return nil }
            }
            return (TOMLTime(hour: h, minute: m, second: s, nanosecond: nanosecond), end)
        }
        // A local time: HH:MM:SS[.fraction].
        if token.count >= 3 && token[2] == .colon {
            guard let parsed = time(token, from: 0), parsed.1 == token.count else { return nil }
            return .localTime(parsed.0)
        }
        guard let y = digits(0, 4, in: token), token.count >= 10, token[4] == .minus, let mo = digits(5, 2, in: token),
              token[7] == .minus, let d = digits(8, 2, in: token), (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y) else { return nil }
        let date = TOMLDate(year: y, month: mo, day: d)
        var rest: [UInt8]
        if token.count == 10 {
            // A space may part the date and the time: `2026-03-02 08:00:00`.
            guard peek() == .space, let a = peek(1), a.isDigit, let b = peek(2), b.isDigit, peek(3) == .colon else { return .localDate(date) }
            index += 1
            let timeStart = index
            while let c = peek(), !c.endsBareValue, !c.isControl { index += 1 }
            rest = Array(bytes[timeStart..<index])
        } else {
            guard token[10] == UInt8(ascii: "T") || token[10] == UInt8(ascii: "t") else { return nil }
            rest = Array(token[11...])
        }
        guard let parsed = time(rest, from: 0) else { return nil }
        let t = parsed.0
        rest = Array(rest[parsed.1...])
        if rest.isEmpty { return .localDateTime(date, t) }
        if rest == [UInt8(ascii: "Z")] || rest == [UInt8(ascii: "z")] { return .offsetDateTime(date, t, offsetMinutes: 0) }
        guard rest.count == 6, rest[0] == .plus || rest[0] == .minus, let oh = digits(1, 2, in: rest), rest[3] == .colon,
              let om = digits(4, 2, in: rest), oh <= 23, om <= 59 else { return nil }
        return .offsetDateTime(date, t, offsetMinutes: (rest[0] == .minus ? -1 : 1) * (oh * 60 + om))
    }

    func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// An integer (decimal, 0x, 0o, 0b) or a float (fraction, exponent, inf, nan), with
    /// underscores only between digits.
    mutating func number(_ token: [UInt8], start: Int) throws(TOMLError) -> TOMLValue {
        let notAValue = "\(shownToken(token)) is not a value TOML knows: write a string in quotes (\"text\"), a number, true or false, a date, [a list] or { a table }"
        var body = token[...]
        var negative = false
        if let sign = body.first, sign == .plus || sign == .minus {
            negative = sign == .minus
            body = body.dropFirst()
        }
        if body.elementsEqual("inf".utf8) { return .float(negative ? -.infinity : .infinity) }
        if body.elementsEqual("nan".utf8) { return .float(.nan) }
        guard let first = body.first, first.isDigit else { throw fail(notAValue, at: start) }
        // Digits with underscores only between them.
        func plain(_ part: ArraySlice<UInt8>, isDigit: (UInt8) -> Bool) throws(TOMLError) -> [UInt8] {
            guard let f = part.first, isDigit(f), let l = part.last, isDigit(l) else { throw fail(notAValue, at: start) }
            var out: [UInt8] = []
            var previousUnderscore = false
            for c in part {
                if c == .underscore {
                    guard !previousUnderscore else { throw fail("\(shownToken(token)): an underscore must stand between two digits", at: start) }
                    previousUnderscore = true
                } else {
                    guard isDigit(c) else { throw fail(notAValue, at: start) }
                    previousUnderscore = false
                    out.append(c)
                }
            }
            return out
        }
        let radixLetter = body.count > 2 && first == UInt8(ascii: "0") ? body[body.startIndex + 1] : 0
        if let radix = radixLetter == UInt8(ascii: "x") ? 16 : radixLetter == UInt8(ascii: "o") ? 8 : radixLetter == UInt8(ascii: "b") ? 2 : nil {
            guard token.first != .plus && token.first != .minus else {
                throw fail("\(shownToken(token)): a hexadecimal, octal or binary number takes no sign", at: start)
            }
            let digits = try plain(body.dropFirst(2)) { c in hexValue(c).map { $0 < radix } ?? false }
            var n: Int64 = 0
            for c in digits {
                let (times, o1) = n.multipliedReportingOverflow(by: Int64(radix))
                let (sum, o2) = times.addingReportingOverflow(Int64(hexValue(c)!))
                guard !o1 && !o2 else { throw outOfRange(token, start) }
                n = sum
            }
            return .integer(n)
        }
        // Decimal: an integer part, then a fraction, an exponent, or both.
        let exponentAt = body.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = body[..<(exponentAt ?? body.endIndex)]
        let dotAt = mantissa.firstIndex(of: .dot)
        let integerPart = try plain(mantissa[..<(dotAt ?? mantissa.endIndex)], isDigit: \.isDigit)
        guard integerPart.count == 1 || integerPart[0] != UInt8(ascii: "0") else {
            throw fail("\(shownToken(token)): a decimal number does not start with 0; write it without (0o for octal)", at: start)
        }
        var text = (negative ? "-" : "") + String(decoding: integerPart, as: UTF8.self)
        if let dotAt {
            text += "." + String(decoding: try plain(mantissa[(dotAt + 1)...], isDigit: \.isDigit), as: UTF8.self)
        }
        if let exponentAt {
            var exponent = body[(exponentAt + 1)...]
            var sign = ""
            if let s = exponent.first, s == .plus || s == .minus { sign = s == .minus ? "-" : "+"; exponent = exponent.dropFirst() }
            text += "e" + sign + String(decoding: try plain(exponent, isDigit: \.isDigit), as: UTF8.self)
        }
        if dotAt == nil && exponentAt == nil {
            guard let n = Int64(text) else { throw outOfRange(token, start) }
            return .integer(n)
        }
        guard let x = Double(text) else { throw fail(notAValue, at: start) }
        return .float(x)
    }

    mutating func outOfRange(_ token: [UInt8], _ start: Int) -> TOMLError {
        fail("\(shownToken(token)) is outside the 64-bit integers (-9223372036854775808...9223372036854775807)", at: start)
    }
}

func hexValue(_ c: UInt8) -> Int? {
    switch c {
    case 0x30...0x39: Int(c - 0x30)
    case 0x41...0x46: Int(c - 0x41 + 10)
    case 0x61...0x66: Int(c - 0x61 + 10)
    default: nil
    }
}

/// `n` in uppercase hexadecimal, at least `digits` long.
func hex(_ n: UInt32, digits: Int) -> String {
    let text = String(n, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}

