@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleModel
import AmbleTestSupport
import Foundation
import Testing

/// The activity formats say walking wherever they can (issue 30, item 4).
struct ActivityExportTests {
    @Test func tcxSaysWalkingWhereTheSchemaLetsIt() throws {
        let walk = try #require(try ExportTests.fixture().1.last)
        // The document without its line breaks and indentation.
        let xml = TCXExport.document(walk).split(separator: "\n").map { $0.drop { $0 == " " } }.joined()
        // Sport may only be Running, Biking or Other: Other, and the rest says walking.
        #expect(xml.contains("<Activity Sport=\"Other\">"))
        #expect(xml.contains("<Other Name=\"Other\"><Folder Name=\"Walking\"><ActivityRef><Id>2026-01-01T00:00:00Z</Id>"),
                "filed in Training Center's history under Other, in a folder named Walking")
        #expect(xml.contains("<Notes>Walking (Amble mindful walk): 170 steps;"))
        #expect(xml.contains("<Training VirtualPartner=\"false\"><Plan Type=\"Workout\" IntervalWorkout=\"false\"><Name>Walking</Name>"))
        #expect(xml.contains("<Creator xsi:type=\"Device_t\"><Name>Amble band Left, &quot;good&quot; wrist</Name>"))
        #expect(xml.contains("xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""))
    }
}

/// Reads back the FIT files Amble writes, for the tests: the messages in order, each field a
/// whole number as stored (strings skipped). Garmin's decoder checks them independently
/// (`GarminDecoder`); this one lets every run check the totals.
enum FITReading {
    struct Message {
        var global: UInt16
        var fields: [UInt8: UInt64]
        subscript(_ field: UInt8) -> Int? { fields[field].map { Int($0) } }
    }

    static func messages(_ bytes: [UInt8]) throws -> [Message] {
        func number(_ at: Int, _ size: Int) -> UInt64 { (0..<size).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        try #require(bytes.count >= 16 && bytes[0] == 14 && Array(bytes[8..<12]) == Array(".FIT".utf8))
        let end = 14 + Int(number(4, 4))
        try #require(end + 2 == bytes.count, "data size \(end - 14) in a file of \(bytes.count) bytes")
        try #require(number(12, 2) == UInt64(FITWriter.crc(Array(bytes[0..<12]))) && number(end, 2) == UInt64(FITWriter.crc(Array(bytes[0..<end]))))
        var definitions: [UInt8: (global: UInt16, fields: [(number: UInt8, size: Int, type: UInt8)])] = [:]
        var messages: [Message] = []
        var at = 14
        while at < end {
            let header = bytes[at]
            at += 1
            if header & 0x40 != 0 {
                let count = Int(bytes[at + 4])
                definitions[header & 0x0F] = (UInt16(number(at + 2, 2)), (0..<count).map { (bytes[at + 5 + 3 * $0], Int(bytes[at + 6 + 3 * $0]), bytes[at + 7 + 3 * $0]) })
                at += 5 + 3 * count
            } else {
                let definition = try #require(definitions[header & 0x0F])
                var fields: [UInt8: UInt64] = [:]
                for field in definition.fields {
                    defer { at += field.size }
                    guard field.type != 0x07 else { continue }   // strings are skipped
                    let value = number(at, field.size)
                    let invalid: UInt64 = field.type == 0x8C ? 0 : (1 << (8 * UInt64(field.size))) - 1
                    if value != invalid { fields[field.number] = value }
                }
                messages.append(Message(global: definition.global, fields: fields))
            }
        }
        return messages
    }
}

extension ActivityExportTests {
    @Test func fitsCRCIsFITsOwn() {
        // CRC-16/ARC's check value, and a file's CRC over its own CRC is 0.
        #expect(FITWriter.crc(Array("123456789".utf8)) == 0xBB3D)
        var fit = FITWriter()
        fit.write(FITExport.Message.fileID, [(FITExport.FileID.type, .number(4)), (FITExport.FileID.productName, .text("Ambleé-too-long-for-sixteen"))])
        let bytes = fit.bytes
        #expect(FITWriter.crc(bytes) == 0)
        #expect(Array(bytes[0..<12]) == [14, 0x10, 0xE2, 0x52, UInt8(bytes.count - 16), 0, 0, 0] + Array(".FIT".utf8))
        #expect(bytes.contains(Array("Ambleé-too-lon".utf8) + [0]), "cut to 15 bytes and its zero in a 16-byte field")
    }

    @Test func fitHoldsAWalkWithLapsRecordsAndItsTotals() throws {
        let walk = try #require(try ExportTests.fixture().1.last)
        let messages = try FITReading.messages(FITExport.file(walk))
        func all(_ global: UInt16) -> [FITReading.Message] { messages.filter { $0.global == global } }
        #expect(messages.first?.global == FITExport.Message.fileID && messages.last?.global == FITExport.Message.activity)
        let session = try #require(all(FITExport.Message.session).first)
        let laps = all(FITExport.Message.lap), records = all(FITExport.Message.record)
        #expect(session[5] == FITExport.walking && laps.allSatisfy { $0[25] == FITExport.walking }, "sport = walking")
        // 170 steps (85 strides), 119 m, 8 kcal, heart rate 93 average and 96 at most, two laps
        // around the pause (30 s and 55 s of timer), a record per second walked.
        #expect(session[10] == 85 && session[94] == 0 && session[9] == 11_900 && session[11] == 8)
        #expect(session[16] == 93 && session[17] == 96 && session[26] == 2 && session[8] == 85_000 && session[7] == 90_000)
        #expect(laps.map { $0[10] ?? 0 } == [30, 55] && laps.map { $0[9] ?? 0 } == [4_200, 7_700] && laps.map { $0[11] ?? 0 } == [3, 5])
        #expect(laps.map { $0[8] ?? 0 } == [30_000, 55_000] && laps.map { $0[24] ?? -1 } == [FITExport.manualTrigger, FITExport.sessionEndTrigger])
        #expect(records.count == 85 && records.last?[5] == 11_900 && records.first?[5] == 140, "1.4 m by the end of the first second")
        #expect(records.first?[4] == 42 && records.first?[53] == 0, "84 steps/min is 42 strides/min")
        // The timer stops for the pause (seconds 30-34) and starts again.
        let events = all(FITExport.Message.event).map { [$0[253]! - FITWriter.time(walk.summary.startUnixSeconds), $0[1]!] }
        #expect(events == [[0, 0], [30, 4], [35, 0], [90, 4]])
    }
}

/// Garmin's own FIT decoder (garmin-fit-sdk, PyPI), through scripts/validate-exports.d/check_fit.py:
/// where `scripts/validate-exports.d/fit-decoder` installed it (scripts/test does, when it has
/// network), or a python3 on PATH that has it.
enum GarminDecoder {
    static let python = pythonImporting("garmin_fit_sdk", preferred: [repositoryPath(".build/validate-exports-venv/bin/python3")])

    static let skipMessage: Comment = "needs Garmin's FIT decoder (garmin-fit-sdk): scripts/validate-exports.d/fit-decoder installs it"

    /// Writes `sessions`' FIT files and sessions CSV into a temporary folder and runs the check:
    /// its exit status and what it printed.
    static func check(_ sessions: [ExportedSession]) throws -> (Int32, String) {
        let folder = NSTemporaryDirectory() + "amble-fit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var notes: [String] = []
        let files = CSVExport.files(sessions) + FITExport.files(sessions, notes: &notes)
        let paths = try ExportWriter.write(files, into: folder, force: false).map(\.path)
        return try runProgram(try #require(python), [repositoryPath("scripts/validate-exports.d/check_fit.py")] + paths.filter { $0.hasSuffix("sessions.csv") || $0.hasSuffix(".fit") },
                              mergingStandardError: true)
    }
}

extension ActivityExportTests {
    @Test(.enabled(if: GarminDecoder.python != nil, GarminDecoder.skipMessage))
    func garminsDecoderReadsTheFITWithoutErrorAndItsTotalsAreTheSessions() throws {
        let (status, output) = try GarminDecoder.check(try ExportTests.fixture().1)
        #expect(status == 0, "\(output)")
        #expect(output.contains("ok ") && output.contains("walking, 170 steps, 119.00 m, 2 laps, 85 records"), "\(output)")
    }
}
