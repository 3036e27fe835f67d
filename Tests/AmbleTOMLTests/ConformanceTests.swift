import AmbleTOML
import Foundation
import Testing

/// The TOML project's conformance suite (`../shared/reference/toml-test/tests`, not in the
/// repository), its TOML 1.0.0 cases as `files-toml-1.0.0` lists them: every valid case must
/// read to the values its JSON gives (toml-test's tagged JSON), every invalid one must be
/// refused with a message. Skipped, and said so, where the suite is absent.
@Suite(.enabled(if: TOMLTestSuite.isAvailable, "../shared/reference/toml-test is absent: the TOML conformance suite is not in the repository"))
struct ConformanceTests {
    /// Cases knowingly left, with the reason; none today.
    static let knownMisses: Set<String> = []

    @Test func everyValidCaseReadsToItsJSON() throws {
        var failed: [String] = []
        let cases = try TOMLTestSuite.cases(valid: true)
        for name in cases where !Self.knownMisses.contains(name) {
            let bytes = try TOMLTestSuite.bytes(name)
            let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: TOMLTestSuite.root + "/" + name.dropLast(5) + ".json")))
            do {
                let table = try TOMLReader().read(bytes: bytes)
                if let difference = TaggedJSON.difference(.table(table), expected, at: "") { failed.append("\(name): \(difference)") }
            } catch {
                failed.append("\(name): refused: \(error)")
            }
        }
        print("toml-test valid: \(cases.count - failed.count - Self.knownMisses.count)/\(cases.count) read to their JSON")
        #expect(failed.isEmpty, "\(failed.count) valid cases:\n\(failed.joined(separator: "\n"))")
        #expect(cases.count > 200, "the 1.0.0 list names \(cases.count) valid cases")
    }

    @Test func everyInvalidCaseIsRefusedWithAMessage() throws {
        var accepted: [String] = []
        let cases = try TOMLTestSuite.cases(valid: false)
        for name in cases where !Self.knownMisses.contains(name) {
            let bytes = try TOMLTestSuite.bytes(name)
            do {
                _ = try TOMLReader().read(bytes: bytes)
                accepted.append(name)
            } catch {
                #expect(error.line >= 1 && error.column >= 1 && !error.message.isEmpty, "\(name): \(error)")
            }
        }
        print("toml-test invalid: \(cases.count - accepted.count - Self.knownMisses.count)/\(cases.count) refused")
        #expect(accepted.isEmpty, "\(accepted.count) invalid cases read without an error:\n\(accepted.joined(separator: "\n"))")
        #expect(cases.count > 400, "the 1.0.0 list names \(cases.count) invalid cases")
    }
}

enum TOMLTestSuite {
    /// Tests/AmbleTOMLTests/<this file> -> package root -> ../shared/reference/toml-test/tests
    static let root: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/../shared/reference/toml-test/tests"
    }()

    static var isAvailable: Bool { FileManager.default.fileExists(atPath: root + "/files-toml-1.0.0") }

    /// The `.toml` cases of TOML 1.0.0 under `valid/` or `invalid/`.
    static func cases(valid: Bool) throws -> [String] {
        try String(contentsOfFile: root + "/files-toml-1.0.0", encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix(valid ? "valid/" : "invalid/") && $0.hasSuffix(".toml") }
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + name)))
    }
}

/// toml-test's JSON encoding: a table is an object, an array a list, and every scalar
/// `{"type": "integer", "value": "42"}`; dates are compared as values (RFC 3339 text).
enum TaggedJSON {
    /// Where the value differs from the JSON, or nil.
    static func difference(_ value: TOMLValue, _ json: Any, at path: String) -> String? {
        if let object = json as? [String: Any], let type = object["type"] as? String, let text = object["value"] as? String, object.count == 2 {
            return scalar(value, type: type, text: text) ? nil : "\(path): \(value) is not \(type) \(text)"
        }
        switch (value, json) {
        case let (.table(table), object as [String: Any]):
            guard Set(table.keys) == Set(object.keys) else { return "\(path): keys \(table.keys.sorted()) are not \(object.keys.sorted())" }
            for key in table.keys {
                if let d = difference(table[key]!, object[key]!, at: path + "." + key) { return d }
            }
            return nil
        case let (.array(values), list as [Any]):
            guard values.count == list.count else { return "\(path): \(values.count) values, not \(list.count)" }
            for (i, element) in values.enumerated() {
                if let d = difference(element, list[i], at: "\(path)[\(i)]") { return d }
            }
            return nil
        default:
            return "\(path): \(value) is not \(json)"
        }
    }

    static func scalar(_ value: TOMLValue, type: String, text: String) -> Bool {
        switch (type, value) {
        case let ("string", .string(s)): return s == text
        case let ("integer", .integer(n)): return Int64(text) == n
        case let ("float", .float(x)):
            if text.hasSuffix("nan") { return x.isNaN }
            if text.hasSuffix("inf") { return x == (text.hasPrefix("-") ? -.infinity : .infinity) }
            return Double(text) == x
        case let ("bool", .boolean(b)): return text == String(b)
        case let ("datetime", .offsetDateTime(d, t, offset)): return dateTime(text) == .init(date: d, time: t, offset: offset)
        case let ("datetime-local", .localDateTime(d, t)): return dateTime(text) == .init(date: d, time: t, offset: nil)
        case let ("date-local", .localDate(d)): return dateTime(text) == .init(date: d, time: nil, offset: nil)
        case let ("time-local", .localTime(t)): return dateTime(text) == .init(date: nil, time: t, offset: nil)
        default: return false
        }
    }

    struct Parts: Equatable {
        var date: TOMLDate?
        var time: TOMLTime?
        var offset: Int?
    }

    /// RFC 3339 text as toml-test writes it, read apart from the reader under test.
    static func dateTime(_ text: String) -> Parts? {
        let c = Array(text.utf8)
        func n(_ from: Int, _ count: Int) -> Int { Int(String(decoding: c[from..<(from + count)], as: UTF8.self))! }
        var parts = Parts()
        var k = 0
        if c.count >= 10 && c[4] == UInt8(ascii: "-") {
            parts.date = TOMLDate(year: n(0, 4), month: n(5, 2), day: n(8, 2))
            k = 11
        }
        guard k < c.count else { return parts }
        var nano = 0, scale = 100_000_000, end = k + 8
        if end < c.count && c[end] == UInt8(ascii: ".") {
            end += 1
            while end < c.count, c[end] >= 0x30, c[end] <= 0x39 { nano += Int(c[end] - 0x30) * scale; scale /= 10; end += 1 }
        }
        parts.time = TOMLTime(hour: n(k, 2), minute: n(k + 3, 2), second: n(k + 6, 2), nanosecond: nano)
        if end < c.count {
            parts.offset = c[end] == UInt8(ascii: "Z") || c[end] == UInt8(ascii: "z") ? 0 : (c[end] == UInt8(ascii: "-") ? -1 : 1) * (n(end + 1, 2) * 60 + n(end + 4, 2))
        }
        return parts
    }
}
