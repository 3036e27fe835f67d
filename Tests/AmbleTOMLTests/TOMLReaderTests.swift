import AmbleTOML
import Foundation
import Testing

/// The reader on its own fixtures (`Fixtures/`, in the repository: every kind of value and
/// table), its errors, limits and positions, and the writer; the conformance suite is in
/// ConformanceTests.
struct TOMLReaderTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/" + name))
    }

    @Test func everyKindOfValueReadsToItsJSON() throws {
        let table = try TOMLReader().read(bytes: Array(try Self.fixture("every-kind.toml")))
        let expected = try JSONSerialization.jsonObject(with: try Self.fixture("every-kind.json"))
        #expect(TaggedJSON.difference(.table(table), expected, at: "") == nil)
        #expect(table.keys.prefix(4) == ["name", "literal", "quoted key", "literal key"], "keys keep the file's order")
        #expect(table["numbers"]?.table?["hex"]?.int == 0xDEAD_BEEF && table["numbers"]?.table?["float"]?.int == nil)
        #expect(table["button"]?.array?.count == 2 && table["times"]?.table?["date"]?.date == TOMLDate(year: 2024, month: 2, day: 29))
    }

    /// Each problem names its line and column and says what to do.
    @Test(arguments: [
        ("a = \"open\nb = 1", 1, 5, "a string does not end on its line; close it with \""),
        ("a = 1\nb = \"\"\"\nnever closed", 2, 5, "a multi-line string does not end; close it with \"\"\""),
        ("a = [1, 2\n", 1, 5, "an array is not closed; end it with ]"),
        ("a = { b = 1\nc = 2", 1, 12, "an inline table must end on the line it starts"),
        ("[motor]\nline = = 17", 2, 8, "\"=\" where a value must be: a value is missing"),
        ("line =\n", 1, 7, "a key without a value: write one after ="),
        ("chip = lis3dh", 1, 8, "\"lis3dh\" is not a value TOML knows: write a string in quotes"),
        ("a = 1\na = 2", 2, 1, "\"a\" is defined twice (first on line 1); keep one"),
        ("[m]\nx = 1\n[m]", 3, 2, "the table \"m\" is defined already (line 1)"),
        ("n = 017", 1, 5, "a decimal number does not start with 0"),
        ("n = 1__0", 1, 5, "an underscore must stand between two digits"),
        ("n = 9223372036854775808", 1, 5, "outside the 64-bit integers"),
        ("d = 2026-02-30", 1, 5, "\"2026-02-30\" is not a date or a time"),
        ("s = \"\\q\"", 1, 6, "\\q is not an escape TOML knows"),
        ("s = \"\\uD800\"", 1, 6, "is not a Unicode scalar value"),
        ("[mötor]", 1, 3, "\"ö\" outside quotes"),
        ("a = 1 # bell \u{07}", 1, 14, "a comment holds a control character (U+0007)"),
        ("a = 1 b = 2", 1, 7, "\"b\" after a value on the same line"),
        ("a = 1\r\nb = 2\r", 2, 6, "a carriage return (U+000D) without a line feed"),
        ("x = 1\né = 2", 2, 1, "\"é\" outside quotes"),
    ])
    func errorsNameTheLineAndColumn(text: String, line: Int, column: Int, message: String) {
        let error = #expect(throws: TOMLError.self) { try TOMLReader().read(text) }
        #expect(error?.position == TOMLPosition(line: line, column: column), "\(error?.description ?? "")")
        #expect(error?.message.contains(message) == true, "\(error?.description ?? "")")
    }

    @Test func bytesThatAreNotUTF8AreRefusedWhereTheyAre() {
        for (bytes, line, column): ([UInt8], Int, Int) in [([0x61, 0x3D, 0x22, 0xC3, 0x22], 1, 4), ([0x0A, 0x61, 0xED, 0xA0, 0x80], 2, 2), ([0x0A, 0x0A, 0xC0, 0xAF], 3, 1)] {
            let error = #expect(throws: TOMLError.self) { try TOMLReader().read(bytes: bytes) }
            #expect(error?.position == TOMLPosition(line: line, column: column) && error?.message.contains("not UTF-8") == true, "\(error?.description ?? "")")
            #expect(TOMLReader.invalidUTF8Position(in: bytes) == TOMLPosition(line: line, column: column))
        }
        #expect(TOMLReader.invalidUTF8Position(in: Array("é = 'ü'".utf8)) == nil)
    }

    /// Nesting and size are bounded, so no text makes the reader recurse or grow without end.
    @Test func depthAndSizeAreBounded() throws {
        let reader = TOMLReader(maximumBytes: 1000, maximumDepth: 8)
        #expect(throws: Never.self) { try reader.read("a = " + String(repeating: "[", count: 7) + String(repeating: "]", count: 7)) }
        for text in ["a = " + String(repeating: "[", count: 9) + String(repeating: "]", count: 9),
                     "a = " + String(repeating: "{b = ", count: 9) + "1" + String(repeating: "}", count: 9),
                     Array(repeating: "k", count: 9).joined(separator: ".") + " = 1", "[" + Array(repeating: "k", count: 9).joined(separator: ".") + "]"] {
            let error = #expect(throws: TOMLError.self) { try reader.read(text) }
            #expect(error?.message.contains("nest more than 8 deep") == true, "\(text): \(error?.description ?? "")")
        }
        let many = TOMLReader(maximumValues: 6)
        #expect(throws: Never.self) { try many.read("a = 1\nb = [2, 3]\n[t]\nc = 4") }
        for text in ["a = 1\nb = [2, 3, 4]\n[t]\nc = 5", "a.b.c.d = 1\n[t.u.v]", "[[t]]\n[[t]]\n[[t]]\n[[t]]\n[[t]]\n[[t]]\n[[t]]"] {
            let error = #expect(throws: TOMLError.self) { try many.read(text) }
            #expect(error?.message.hasPrefix("more than 6 values and tables") == true, "\(text): \(error?.description ?? "")")
        }
        let big = #expect(throws: TOMLError.self) { try reader.read(String(repeating: "#", count: 1001)) }
        #expect(big?.message == "the text holds 1001 bytes, more than the 1000 read here")
        // The defaults: 32 levels deep, 16 MiB.
        #expect(throws: TOMLError.self) { try TOMLReader().read("a = " + String(repeating: "[", count: 100_000)) }
    }

    @Test func keysAndValuesKeepWhereTheyAreWritten() throws {
        let table = try TOMLReader().read("# top\nname = \"x\"\n\n[motor]\n  line  =  17\n[[button]]\nrole = 'next'\n")
        #expect(table.entry("name")?.keyPosition == TOMLPosition(line: 2, column: 1))
        #expect(table.entry("name")?.valuePosition == TOMLPosition(line: 2, column: 8))
        let motor = try #require(table["motor"]?.table)
        #expect(motor.position == TOMLPosition(line: 4, column: 1))
        #expect(motor.entry("line")?.keyPosition == TOMLPosition(line: 5, column: 3) && motor.entry("line")?.valuePosition == TOMLPosition(line: 5, column: 12))
        #expect(table["button"]?.array?.first?.table?.position == TOMLPosition(line: 6, column: 1))
    }

    /// What the reader reads, the writer writes so that it reads back the same.
    @Test func writtenTextReadsBackEqual() throws {
        let table = try TOMLReader().read(bytes: Array(try Self.fixture("every-kind.toml")))
        #expect(try TOMLReader().read(table.tomlText) == table)
        var shortened = table
        shortened.remove("button")
        shortened.remove("numbers")
        let text = shortened.tomlText
        #expect(!text.contains("button") && !text.contains("numbers") && text.contains("[times]"))
        #expect(try TOMLReader().read(text) == shortened && shortened != table)
    }
}
