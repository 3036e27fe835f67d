import AmbleModel
import AmbleBoard
import AmbleTOML
import Foundation
import Testing

func boardsPath(_ name: String) -> String {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/boards/" + name
}

let minimalBoard = """
name = "Test band"
platform = "linux"

[accelerometer]
chip = "lis3dh"
bus = 1
address = 0x18

[motor]
chip = "gpiochip0"
line = 17

[[button]]
role = "next"
chip = "gpiochip0"
line = "GPIO27"

[[button]]
role = "select"
chip = "gpiochip0"
line = 22
"""

struct BoardFileTests {
    @Test func readsEveryBoardFileInTheRepository() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: boardsPath("")).filter { $0.hasSuffix(".toml") }
        #expect(names.contains("sim.toml"))
        #expect(names.contains("rpi-zero2w.toml"))
        for name in names {
            let board = try BoardFile.load(path: boardsPath(name))
            #expect(board.buttons.contains { $0.role == .select })
        }
    }

    @Test func simulatedBoardIsTheSimPlatform() throws {
        let board = try BoardFile.load(path: boardsPath("sim.toml"))
        #expect(board.platform == .sim)
        #expect(board.simulation?.signal == "synthetic")
        #expect(board.accelerometer.address == 0x18)
        #expect(board.heartRate?.address == 0x57)
    }

    @Test func appliesDefaults() throws {
        let board = try BoardFile.parse(text: minimalBoard, file: "test.toml")
        #expect(board.accelerometer.rangeG == 4)
        #expect(board.accelerometer.rateHz == 50)
        #expect(board.heartRate == nil)
        #expect(board.buttons[0].line.chip == "gpiochip0")
        #expect(board.buttons[0].line.line == .name("GPIO27"))
        #expect(board.buttons[0].line.activeLow, "buttons default to active-low (to ground, pulled up)")
        #expect(board.buttons[1].pull == .up)
        #expect(board.buttons[1].debounceMilliseconds == 20)
        #expect(board.motor.line == .offset(17))
        #expect(!board.motor.activeLow)
        #expect(board.wearer.heightCentimeters == 170)
    }

    /// Each bad file gives an error naming the line and key.
    @Test(arguments: [
        ("address = 0x18", "address = 0x80", 7, "accelerometer.address", "0x80 is not a 7-bit I2C address"),
        ("address = 0x18", "address = -5", 7, "accelerometer.address", "-5 is not a 7-bit I2C address"),
        ("address = 0x18", "adress = 0x18", 7, "accelerometer.adress", "did you mean address?"),
        ("chip = \"lis3dh\"", "chip = \"bma400\"", 5, "accelerometer.chip", "\"bma400\" is not one of"),
        ("line = 17", "line = true", 11, "motor.line", "line offset"),
        ("line = 22", "line = -3", 21, "button[2].line", "outside 0...1023"),
        ("bus = 1\n", "bus = \"i2c-1\"\n", 6, "accelerometer.bus", "bus number"),
        ("platform = \"linux\"", "platform = \"arduino\"", 2, "platform", "is not one of"),
    ])
    func namesLineAndKey(find: String, replace: String, line: Int, key: String, message: String) throws {
        let text = minimalBoard.replacingOccurrences(of: find, with: replace)
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: text, file: "boards/bad.toml") }
        #expect(error?.line == line)
        #expect(error?.key == key)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(error?.description.hasPrefix("boards/bad.toml:\(line): \(key): ") == true)
    }

    @Test func theStoresLimitAndReserve() throws {
        let linux = try BoardFile.parse(text: minimalBoard, file: "test.toml")
        #expect(linux.storage.maximumStoreMegabytes == nil && linux.storage.reserveMegabytes == 8, "a real card keeps 8 MiB in reserve")
        #expect(try BoardFile.load(path: boardsPath("sim.toml")).storage.reserveMegabytes == 0)
        let set = try BoardFile.parse(text: minimalBoard + "\n[storage]\nmax_store_mb = 64\nreserve_mb = 0\n", file: "test.toml")
        #expect(set.storage.maximumStoreMegabytes == 64 && set.storage.reserveMegabytes == 0)
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: minimalBoard + "\n[storage]\nreserve_mb = 2048\n", file: "b.toml") }
        #expect(error?.key == "storage.reserve_mb" && error?.line == 23 && error?.message.contains("outside 0...1024") == true, "\(String(describing: error))")
    }

    @Test func aHeartRateSensorTooSlowForTheEstimatorIsRefused() {
        let text = minimalBoard + "\n[heart_rate]\nchip = \"max30102\"\nbus = 1\nrate_hz = 50\naveraging = 32\n"
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: text, file: "b.toml") }
        #expect(error?.key == "heart_rate.averaging")
        #expect(error?.line == 26)
        #expect(error?.message.contains("25...125") == true)
    }

    @Test func laterErrorsCanPointAtTheirKey() throws {
        let board = try BoardFile.parse(text: minimalBoard, file: "b.toml")
        let error = board.error(key: "accelerometer.address", "example")
        #expect(error.line == 7)
        #expect(error.description == "b.toml:7: accelerometer.address: example")
    }

    @Test func aMissingSelectButtonIsNamed() {
        let text = minimalBoard.replacingOccurrences(of: "role = \"select\"", with: "role = \"back\"")
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: text, file: "b.toml") }
        #expect(error?.message.contains("no \"select\" button") == true)
    }

    @Test func tomlSyntaxErrorsGiveTheLine() {
        let text = minimalBoard.replacingOccurrences(of: "line = 17", with: "line = = 17")
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: text, file: "b.toml") }
        #expect(error?.line == 11)
        #expect(error?.message.hasPrefix("not valid TOML") == true)
    }

    /// Found by fuzzing (fuzz/crashes/board): toml++ stopped the process on a non-ASCII bare
    /// key. Such text is refused by the reader (AmbleTOML), with the line.
    @Test(arguments: [
        ("[motor]", "[mötor]", 9, "\"ö\" outside quotes"),
        ("line = 17", "line = 17 \u{1B}", 11, "control character"),
        ("chip = \"lis3dh\"", "chip = \"lis3dh", 5, "does not end on its line"),
        ("[[button]]\nrole = \"next\"", "[# a comment\n[[button]]\nrole = \"next\"", 13, "table header without a name"),
        ("[motor]", "[[ \t=]", 9, "table header without a name"),
        // Found by fuzzing the study files: a value missing in an array, an inline table, after =.
        ("line = 17", "line = [17,} 18]", 11, "where a value must be"),
        ("line = 17", "line = [17,,18]", 11, "where a value must be"),
        ("line = 17", "line = { a = }", 11, "where a value must be"),
        ("line = 17", "line =", 11, "key without a value"),
        ("line = 17", "line = # none", 11, "key without a value"),
        ("line = 17", "line = 2026-03-02 0", 11, "date followed by something that is not a time"),
        ("line = 17", "line = 1/13-02-02 0", 11, "date followed by something that is not a time"),
    ])
    func textTheTOMLParserMustNotSeeIsRefusedWithTheLine(find: String, replace: String, line: Int, message: String) {
        let text = minimalBoard.replacingOccurrences(of: find, with: replace)
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: text, file: "b.toml") }
        #expect(error?.line == line)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test func quotedTextMayHoldAnyCharacter() throws {
        let text = minimalBoard.replacingOccurrences(of: "name = \"Test band\"", with: "name = \"Bänd # ünö\" # cömment\n\"wéarer\" = 'x'\nnote = \"\"\"\né\n\"\"\"")
        #expect(throws: Never.self) { try TOMLReader().read(text) }
        #expect(throws: Never.self) { try TOMLReader().read("start = 2026-03-02   # first day\nt = 1979-05-27 07:32:00\nd = [2026-03-02, 2026-03-03]\n") }
        // Arrays in values may hold comments and lines that start with `[`.
        #expect(throws: Never.self) { try TOMLReader().read("a = [\n  [1, 2], # pairs\n  [3, 4],\n]\n[table]\nb = { c = [1], d = {} }\ne = []\nf = '''\n[x]\n'''\n") }
    }

    @Test func aFileThatIsNotUTF8IsRefusedWithTheLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID().uuidString).toml").path
        var bytes = Array(minimalBoard.utf8)
        bytes.insert(0xB0, at: Array(minimalBoard.utf8).firstIndex(of: UInt8(ascii: "["))! + 1)
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: BoardError.self) { try BoardFile.load(path: path) }
        #expect(error?.line == 4)
        #expect(error?.message.contains("not UTF-8") == true)
    }

    @Test func aMissingFileSaysWhereBoardsAre() {
        let error = #expect(throws: BoardError.self) { try BoardFile.load(path: "/nonexistent/board.toml") }
        #expect(error?.description.contains("boards/") == true)
    }

    @Test func simulationTableOnlyOnTheSimulatedBoard() {
        let text = minimalBoard + "\n[simulation]\nsignal = \"synthetic\"\n"
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: text, file: "b.toml") }
        #expect(error?.message.contains("platform = \"sim\"") == true)
        #expect(error?.line == 22)
    }

    /// Found by an outside trial (issue 31): an unknown table had no line, a key of a megabyte
    /// was quoted whole in the error, and a 50 MB file cost up to 891 MB to parse.
    @Test(arguments: [
        ("\n[wearr]\nheight_cm = 180\n", 23, "wearr"),
        ("\n[[buton]]\nrole = \"back\"\n", 23, "buton"),
        ("\n[motor.extra]\na = 1\n", 23, "motor.extra"),
        ("\n[wearer]\nsize.cm = 180\n", 24, "wearer.size"),
    ])
    func unknownTablesHaveALine(appended: String, line: Int, key: String) {
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: minimalBoard + "\n" + appended, file: "b.toml") }
        #expect(error?.line == line, "\(error?.description ?? "")")
        #expect(error?.key == key)
        let missing = #expect(throws: BoardError.self) { try BoardFile.parse(text: minimalBoard.replacing("name = \"Test band\"\n", with: ""), file: "b.toml") }
        #expect(missing?.description == "b.toml:1: name: missing; add name = \"...\"", "a key missing from the top level: the top of the file")
    }

    @Test func untrustedTextInAnErrorIsCut() {
        let key = String(repeating: "k", count: 1_000_000)
        let error = #expect(throws: BoardError.self) { try BoardFile.parse(text: minimalBoard + "\n\(key) = 1\n", file: "b.toml") }
        #expect(error?.line == 22)
        #expect((error?.description.count ?? .max) < 300, "\(error?.description.prefix(300) ?? "")")
        let value = #expect(throws: BoardError.self) {
            try BoardFile.parse(text: minimalBoard.replacing("chip = \"lis3dh\"", with: "chip = \"\(key)\""), file: "b.toml")
        }
        #expect((value?.description.count ?? .max) < 300)
    }

    @Test func aFileOverTheLimitIsRefusedUnread() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID().uuidString).toml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let padded = minimalBoard + "\n#" + String(repeating: " ", count: BoardFile.maximumBytes - minimalBoard.utf8.count - 3) + "\n"
        #expect(padded.utf8.count == BoardFile.maximumBytes)
        FileManager.default.createFile(atPath: path, contents: Data(padded.utf8))
        #expect(try BoardFile.load(path: path).name == "Test band")
        FileManager.default.createFile(atPath: path, contents: Data((padded + " ").utf8))
        let error = #expect(throws: BoardError.self) { try BoardFile.load(path: path) }
        #expect(error?.description == "\(path): holds 65537 bytes (64 KiB), more than the 65536 (64 KiB) such a file may hold; nothing of it was read; a board file is 1-2 kB")
    }
}
