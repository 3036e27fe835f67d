extension TOMLTable {
    /// The table as TOML text that `TOMLReader` reads back equal: each table's values first,
    /// then its tables as `[a.b]` and its arrays of tables as `[[a.b]]`. Comments and the
    /// original layout are not kept.
    public var tomlText: String {
        var out = ""
        write(into: &out, path: [])
        return out
    }

    private func write(into out: inout String, path: [String]) {
        var tables: [(String, TOMLTable)] = []
        var arrays: [(String, [TOMLTable])] = []
        for key in keys {
            guard let value = self[key] else { continue }
            let elements = value.array?.compactMap(\.table) ?? []
            if let table = value.table {
                tables.append((key, table))
            } else if let array = value.array, !array.isEmpty, elements.count == array.count {
                arrays.append((key, elements))
            } else {
                out += TOMLValue.keyText(key) + " = " + value.tomlText + "\n"
            }
        }
        for (key, table) in tables {
            let inner = path + [key]
            out += (out.isEmpty ? "" : "\n") + "[" + inner.map(TOMLValue.keyText).joined(separator: ".") + "]\n"
            table.write(into: &out, path: inner)
        }
        for (key, elements) in arrays {
            let inner = path + [key]
            for table in elements {
                out += (out.isEmpty ? "" : "\n") + "[[" + inner.map(TOMLValue.keyText).joined(separator: ".") + "]]\n"
                table.write(into: &out, path: inner)
            }
        }
    }
}

extension TOMLValue {
    /// The value as TOML writes it on one line (tables inline).
    public var tomlText: String {
        switch self {
        case let .string(s): Self.quotedText(s)
        case let .integer(n): String(n)
        case let .float(x): x.isNaN ? "nan" : x.isInfinite ? (x < 0 ? "-inf" : "inf") : "\(x)"
        case let .boolean(b): b ? "true" : "false"
        case let .offsetDateTime(d, t, offset):
            Self.text(d) + "T" + Self.text(t) + (offset == 0 ? "Z" : (offset < 0 ? "-" : "+") + Self.digits(abs(offset) / 60, 2) + ":" + Self.digits(abs(offset) % 60, 2))
        case let .localDateTime(d, t): Self.text(d) + "T" + Self.text(t)
        case let .localDate(d): Self.text(d)
        case let .localTime(t): Self.text(t)
        case let .array(values): "[" + values.map(\.tomlText).joined(separator: ", ") + "]"
        case let .table(table):
            table.isEmpty ? "{}" : "{ " + table.keys.map { Self.keyText($0) + " = " + (table[$0]?.tomlText ?? "") }.joined(separator: ", ") + " }"
        }
    }

    /// A key bare when it may be, else quoted.
    static func keyText(_ key: String) -> String {
        !key.isEmpty && key.utf8.allSatisfy { $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || $0 == 0x2D || $0 == 0x5F) }
            ? key : quotedText(key)
    }

    /// A basic string, its quotes, backslashes and control characters escaped.
    static func quotedText(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\u" + hex(scalar.value, digits: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func digits(_ n: Int, _ count: Int) -> String {
        let text = String(n)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }

    static func text(_ d: TOMLDate) -> String { digits(d.year, 4) + "-" + digits(d.month, 2) + "-" + digits(d.day, 2) }

    static func text(_ t: TOMLTime) -> String {
        var fraction = t.nanosecond == 0 ? "" : "." + digits(t.nanosecond, 9)
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return digits(t.hour, 2) + ":" + digits(t.minute, 2) + ":" + digits(t.second, 2) + fraction
    }
}
