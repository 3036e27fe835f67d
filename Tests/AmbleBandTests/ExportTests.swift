@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import ArgumentParser
import AmbleTestSupport
import Foundation
import Testing

/// `amble export`: the formats without I/O, the selection and the writer, and the files against
/// the official schemas: Open mHealth's, which the project carries (with Python's jsonschema),
/// and Garmin's TCX schema when ../shared/reference and xmllint are there.
struct ExportTests {
    /// A 90-second walk: 2 steps a second, over the limit from second 60 with an alert at 62,
    /// paused at seconds 30...34, no heart rate in the first 5 seconds; and a 10-second
    /// calibration. The band's name needs quoting in CSV.
    static func fixture() throws -> (CompanionStore, [ExportedSession]) {
        let store = try CompanionStore(path: nil)
        let walkSeconds = (0..<90).map {
            SessionSecond(offsetSeconds: $0, steps: (30..<35).contains($0) ? 0 : 2, cadenceStepsPerMinute: (30..<35).contains($0) ? 0 : ($0 < 60 ? 84 : 96),
                          heartRateBPM: $0 < 5 ? nil : 90 + Double($0 % 7), heartRateConfidence: $0 < 5 ? nil : 0.9,
                          overLimit: $0 >= 60, alerts: $0 == 62 ? 1 : 0, heartRateGap: $0 < 2, paused: (30..<35).contains($0))
        }
        let walkParameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        var walk = SessionTally(walkSeconds).summary(kind: .mindfulWalk, startUnixSeconds: 1_767_225_600, endUnixSeconds: 1_767_225_690, parameters: walkParameters)
        walk.activeKilocalories = 7.5
        let calibrationSeconds = (0..<10).map { SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: 110) }
        let calibration = SessionTally(calibrationSeconds).summary(kind: .calibration, startUnixSeconds: 1_767_222_000, endUnixSeconds: 1_767_222_010,
                                                                  parameters: SessionParameters(stepLengthMeters: 0.7), measuredCadenceStepsPerMinute: 110)
        _ = try store.insert(bandID: "b1", bandName: "Left, \"good\" wrist", bandSessionID: 1, record: SessionRecord(summary: calibration, seconds: calibrationSeconds), syncedAtUnixSeconds: 0)
        _ = try store.insert(bandID: "b1", bandName: "Left, \"good\" wrist", bandSessionID: 2, record: SessionRecord(summary: walk, seconds: walkSeconds), syncedAtUnixSeconds: 0)
        let exported = try store.sessions().map { session in
            let (stored, seconds) = try #require(try store.session(id: session.id))
            return ExportedSession(session: stored, seconds: seconds)
        }
        return (store, exported)
    }

    // MARK: CSV

    @Test func csvSessionsHaveAHeaderWithUnitsAndARowEach() throws {
        let (_, sessions) = try Self.fixture()
        let lines = CSVExport.sessionsCSV(sessions).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "session_id,band_id,band_name,band_session_id,kind,start_utc,end_utc,duration_s,steps,distance_m,active_kcal,avg_hr_bpm,max_hr_bpm,rmssd_ms,"
                + "alerts,time_over_limit_s,walking_s,within_limit_share,pauses,paused_s,gap_s,reduction_percent,calibrated_cadence_spm,limit_cadence_spm,"
                + "measured_cadence_spm,step_length_m,speed_m_per_s")
        #expect(lines.count == 4, "header, two sessions, and the final line break")
        #expect(lines[3] == "")
        #expect(lines[1] == "1,b1,\"Left, \"\"good\"\" wrist\",1,calibration,2025-12-31T23:00:00Z,2025-12-31T23:00:10Z,10,20,14,,,,,0,0,10,,0,0,0,,,,110,0.7,1.28")
        // 85 walking seconds at 2 steps; 30 over the limit; heart rate 90...96 from second 5.
        #expect(lines[2] == "2,b1,\"Left, \"\"good\"\" wrist\",2,mindful-walk,2026-01-01T00:00:00Z,2026-01-01T00:01:30Z,90,170,119,7.5,93,96,,1,30,85,0.647,1,5,2,20,110,88,,0.7,")
    }

    @Test func csvSecondsHaveEmptyCellsForMissingValues() throws {
        let (_, sessions) = try Self.fixture()
        let lines = CSVExport.secondsCSV(sessions).split(separator: "\n").map(String.init)
        #expect(lines[0] == "session_id,t_s,time_utc,steps,cadence_spm,hr_bpm,hr_confidence,over_limit,alerts,accelerometer_gap,hr_gap,paused")
        #expect(lines.count == 1 + 10 + 90)
        #expect(lines[11] == "2,0,2026-01-01T00:00:00Z,2,84,,,0,0,0,1,0")
        #expect(lines[11 + 31] == "2,31,2026-01-01T00:00:31Z,0,0,93,0.9,0,0,0,0,1")
        #expect(lines[11 + 62] == "2,62,2026-01-01T00:01:02Z,2,96,96,0.9,1,1,0,0,0")
        for line in lines {
            #expect(line.split(separator: ",", omittingEmptySubsequences: false).count == CSVExport.secondColumns.count)
        }
    }

    @Test func csvQuotesOnlyWhatNeedsIt() {
        #expect(CSVExport.field("plain") == "plain")
        #expect(CSVExport.field("a,b") == "\"a,b\"")
        #expect(CSVExport.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVExport.field("two\nlines") == "\"two\nlines\"")
        #expect(CSVExport.row(["1", nil, "x"]) == "1,,x")
    }

    // MARK: Open mHealth

    @Test func openMHealthHasStepsPerMinuteHeartRatePerSecondAndAnActivityPerWalk() throws {
        let (_, sessions) = try Self.fixture()
        let file = OpenMHealthExport.file(sessions)
        #expect(file.name == "amble-openmhealth.json")
        let points = try #require(try JSONSerialization.jsonObject(with: Data(file.contents.utf8)) as? [[String: Any]])
        func schema(_ point: [String: Any]) -> String? {
            ((point["header"] as? [String: Any])?["schema_id"] as? [String: Any])?["name"] as? String
        }
        let steps = points.filter { schema($0) == "step-count" }
        let heartRates = points.filter { schema($0) == "heart-rate" }
        let activities = points.filter { schema($0) == "physical-activity" }
        #expect(steps.count == 1 + 2, "the calibration's one minute, the walk's two (60 s and 30 s)")
        #expect(heartRates.count == 85, "the walk's seconds with a heart rate")
        #expect(activities.count == 1, "the walk only")
        #expect(points.count == steps.count + heartRates.count + activities.count)
        #expect(file.summary == "3 step-count, 85 heart-rate, 1 physical-activity data points")

        let stepTotal = steps.compactMap { ($0["body"] as? [String: Any])?["step_count"] as? Int }.reduce(0, +)
        #expect(stepTotal == 20 + 170)

        let header = try #require(steps[1]["header"] as? [String: Any])
        #expect(header["id"] as? String == "amble-b1-2-steps-0")
        #expect(header["creation_date_time"] as? String == "2026-01-01T00:01:30Z")
        #expect(header["schema_id"] as? [String: String] == ["namespace": "omh", "name": "step-count", "version": "2.0"])
        #expect((header["acquisition_provenance"] as? [String: String])?["modality"] == "sensed")
        let interval = ((steps[2]["body"] as? [String: Any])?["effective_time_frame"] as? [String: Any])?["time_interval"] as? [String: String]
        #expect(interval == ["start_date_time": "2026-01-01T00:01:00Z", "end_date_time": "2026-01-01T00:01:30Z"])

        let hr = try #require(heartRates.first?["body"] as? [String: Any])
        #expect((hr["heart_rate"] as? [String: Any])?["value"] as? Double == 95)
        #expect((hr["heart_rate"] as? [String: Any])?["unit"] as? String == "beats/min")
        #expect(hr["effective_time_frame"] as? [String: String] == ["date_time": "2026-01-01T00:00:05Z"])
        #expect(hr["temporal_relationship_to_physical_activity"] as? String == "during exercise")
        let paused = heartRates.first { (($0["body"] as? [String: Any])?["effective_time_frame"] as? [String: String])?["date_time"] == "2026-01-01T00:00:31Z" }
        #expect((paused?["body"] as? [String: Any])?["temporal_relationship_to_physical_activity"] == nil, "a paused second is not exercise")

        let activity = try #require(activities.first?["body"] as? [String: Any])
        #expect(activity["activity_name"] as? String == "walking")
        #expect((activity["distance"] as? [String: Any])?["value"] as? Double == 119)
        #expect((activity["distance"] as? [String: Any])?["unit"] as? String == "m")
        #expect((activity["kcal_burned"] as? [String: Any])?["value"] as? Double == 7.5)
        #expect((activity["kcal_burned"] as? [String: Any])?["unit"] as? String == "kcal")
        let ids = points.compactMap { ($0["header"] as? [String: Any])?["id"] as? String }
        #expect(Set(ids).count == ids.count, "data point ids are unique")
    }

    // MARK: TCX

    @Test func tcxHasAWalkWithLapsSplitAtPauses() throws {
        let (_, sessions) = try Self.fixture()
        var notes: [String] = []
        let files = TCXExport.files(sessions, notes: &notes)
        #expect(notes == ["tcx: left out 1 calibration (TCX holds the mindful walks)"])
        let file = try #require(files.first)
        #expect(files.count == 1)
        #expect(file.name == "amble-walk-2-20260101T000000Z.tcx")
        let xml = file.contents
        #expect(xml.contains("<Activity Sport=\"Other\">"))
        #expect(xml.components(separatedBy: "<Lap ").count - 1 == 2, "a lap before the pause and one after")
        #expect(xml.contains("<Lap StartTime=\"2026-01-01T00:00:35Z\">"))
        #expect(xml.components(separatedBy: "<Trackpoint>").count - 1 == 85, "paused seconds are left out")
        #expect(xml.contains("<TotalTimeSeconds>30</TotalTimeSeconds>"))
        #expect(xml.contains("<TotalTimeSeconds>55</TotalTimeSeconds>"))
        #expect(xml.contains("<DistanceMeters>42</DistanceMeters>"), "60 steps of 0.7 m in the first lap")
        #expect(xml.contains("<ax:Steps>60</ax:Steps>") && xml.contains("<ax:Steps>110</ax:Steps>"))
        #expect(xml.contains("<ax:RunCadence>42</ax:RunCadence>"), "84 steps/min is 42 strides/min")
        #expect(xml.contains("<Calories>3</Calories>") && xml.contains("<Calories>5</Calories>"), "7.5 kcal shared by steps: 2.6 and 4.9, adding up to 8")
        #expect(xml.contains("<Notes>Walking (Amble mindful walk): 170 steps; pace limit 88 steps/min (20 % under the calibrated 110); 1 alert; within the limit 65 % of the walking time; 1 pause, 5 s</Notes>"))
        // Element order inside a trackpoint: Time, DistanceMeters, HeartRateBpm, Extensions.
        #expect(xml.contains("""
            <Time>2026-01-01T00:00:05Z</Time>
                        <DistanceMeters>8.4</DistanceMeters>
                        <HeartRateBpm>
                          <Value>95</Value>
            """))
    }

    @Test func tcxCaloriesAddUpAndValuesStayInRange() {
        #expect(apportion(8, by: [60, 110]) == [3, 5])
        #expect(apportion(10, by: [1, 1, 1]) == [3, 4, 3])
        #expect(apportion(2, by: [0, 0]) == [1, 1])
        #expect(apportion(5, by: []) == [])
        #expect(TCXExport.heartRate(0.2) == 1)
        #expect(TCXExport.heartRate(300) == 255)
        #expect(TCXExport.strides(600) == 254)
        #expect(XMLWriter.escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;")
    }

    @Test func lapsKeepTheStepsTakenDuringAPause() throws {
        // Paused at the start (1 step), at 3...4 (3 steps) and at the end (2 steps): a pause's
        // steps count in the lap after it, the last pause's in the last lap.
        let paused: Set<Int> = [0, 3, 4, 7]
        let steps = [1, 2, 2, 1, 2, 2, 2, 2]
        var walk = try #require(try Self.fixture().1.last)
        walk.seconds = steps.indices.map { SessionSecond(offsetSeconds: $0, steps: steps[$0], cadenceStepsPerMinute: 100, paused: paused.contains($0)) }
        let laps = WalkActivity(walk).laps
        #expect(laps.map { $0.points.map(\.second.offsetSeconds) } == [[1, 2], [5, 6]])
        #expect(laps.map(\.steps) == [1 + 2 + 2, 1 + 2 + 2 + 2 + 2])
        #expect(laps.reduce(0) { $0 + $1.steps } == steps.reduce(0, +), "the laps add up to the walk's steps")
        // Distance so far at each second walked (0.7 m steps): after the pause, its steps too.
        #expect(laps.flatMap(\.points).map { ($0.distanceMeters / 0.7).rounded() } == [3, 5, 10, 14])
        #expect(laps.map(\.startDistanceMeters) == [0, 5 * 0.7])
    }

    @Test func tcxWalkWithNothingButPausesStillHasALap() throws {
        let (_, sessions) = try Self.fixture()
        var walk = try #require(sessions.last)
        walk.seconds = walk.seconds.map { var s = $0; s.paused = true; return s }
        let xml = TCXExport.document(walk)
        #expect(xml.components(separatedBy: "<Lap ").count - 1 == 1)
        #expect(!xml.contains("<Track>"), "a Track needs a trackpoint")
    }

    // MARK: Selection and writing

    @Test func selectionTakesIDsLatestOrSinceAndRefusesTheUnknown() throws {
        let (store, _) = try Self.fixture()
        let all = try store.sessions()
        #expect(try ExportSelection.choose(from: all, ids: [], since: nil).map(\.id) == [1, 2])
        #expect(try ExportSelection.choose(from: all, ids: ["latest"], since: nil).map(\.id) == [2])
        #expect(try ExportSelection.choose(from: all, ids: ["2", "1", "2"], since: nil).map(\.id) == [1, 2])
        #expect(try ExportSelection.choose(from: all, ids: [], since: 1_767_225_600).map(\.id) == [2])
        let unknown = #expect(throws: CommandError.self) { try ExportSelection.choose(from: all, ids: ["1", "7", "9"], since: nil) }
        #expect(unknown?.description == "no session 7, 9 in the store; `amble sessions list` shows the ids")
        let late = #expect(throws: CommandError.self) { try ExportSelection.choose(from: all, ids: [], since: 1_800_000_000, sinceText: "2027-01-15") }
        #expect(late?.description.hasPrefix("no session started at or after 2027-01-15") == true)
        let empty = #expect(throws: CommandError.self) { try ExportSelection.choose(from: [], ids: [], since: nil) }
        #expect(empty?.description.contains("no sessions in the store yet") == true)
    }

    @Test func sinceIsALocalDateOrAnISOTime() throws {
        // 2026-01-01 at local midnight one hour east of Greenwich is 2025-12-31T23:00:00Z.
        #expect(try ExportSelection.parseSince("2026-01-01", utcOffsetSeconds: { _ in 3600 }) == 1_767_222_000)
        #expect(try ExportSelection.parseSince("2026-01-01", utcOffsetSeconds: { _ in 0 }) == 1_767_225_600)
        #expect(try ExportSelection.parseSince("2024-02-29", utcOffsetSeconds: { _ in 0 }) == 1_709_164_800)
        #expect(try ExportSelection.parseSince("2026-01-01T00:00:30Z") == 1_767_225_630)
        #expect(try ExportSelection.parseSince("2026-01-01T01:00:00+01:00") == 1_767_225_600)
        for bad in ["yesterday", "2026-13-01", "2025-02-29", "2026-1-1"] {
            #expect(throws: (any Error).self, "\(bad)") { try ExportSelection.parseSince(bad) }
        }
    }

    @Test func writerRefusesToOverwriteUnlessForced() throws {
        let folder = NSTemporaryDirectory() + "amble-export-\(UUID().uuidString)/new"
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let files = [ExportFile(name: "a.csv", contents: "one\n", summary: ""), ExportFile(name: "b.csv", contents: "two\n", summary: "")]
        let written = try ExportWriter.write(files, into: folder, force: false)
        #expect(written.map(\.path) == [folder + "/a.csv", folder + "/b.csv"])
        try "kept\n".write(toFile: folder + "/b.csv", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: folder + "/a.csv")
        let refusal = #expect(throws: CommandError.self) { try ExportWriter.write(files, into: folder, force: false) }
        #expect(refusal?.description == "\(folder)/b.csv already exists; nothing was written. Pass --force to overwrite, or choose another --out")
        #expect(!FileManager.default.fileExists(atPath: folder + "/a.csv"), "all or nothing")
        _ = try ExportWriter.write(files, into: folder, force: true)
        #expect(try String(contentsOfFile: folder + "/b.csv", encoding: .utf8) == "two\n")
        let notAFolder = #expect(throws: CommandError.self) { try ExportWriter.write(files, into: folder + "/a.csv", force: false) }
        #expect(notAFolder?.description.contains("a.csv is a file, not a folder") == true)
    }

    @Test func exportIsListedAndItsInputChecked() {
        #expect(AmbleCommand.helpMessage().contains("  export "))
        #expect(AmbleCommand.helpMessage(for: ExportCommand.self).contains("--format <format>       The format to write. (values: csv, openmhealth, tcx,\n                          fit, raw)"))
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["export", "--format", "csv", "1", "latest"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["export", "--format", "tcx", "--since", "2026-01-05", "--out", "x"]) }
        for bad in [["export"], ["export", "--format", "gpx"], ["export", "--format", "csv", "x1"], ["export", "--format", "csv", "--since", "soon"],
                    ["export", "--format", "csv", "--since", "2026-01-05", "3"]] {
            #expect(throws: (any Error).self, "\(bad)") { try AmbleCommand.parseAsRoot(bad) }
        }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["export", "--format", "raw", "latest"]) }
    }

    @Test func rawExportWritesWhatAnalyzeReadsAndNotesSessionsWithout() throws {
        // Two accelerometer samples at 50 Hz and three PPG samples at 100 Hz.
        let blocks = [RawBlock(sensor: .accelerometer, startMilliseconds: 0, rateMillihertz: 50_000, channels: 3, values: [0, 0, 1000, 10, -20, 990]),
                      RawBlock(sensor: .ppg, startMilliseconds: 0, rateMillihertz: 100_000, channels: 2, values: [50_000, 40_000, 50_010, 40_020, 50_020, 40_010])]
        var notes: [String] = []
        let files = ExportFormat.rawFiles([(id: 4, blocks: blocks), (id: 5, blocks: []),
                                           (id: 6, blocks: [blocks[0]])], notes: &notes)
        #expect(files.map(\.name) == ["amble-raw-4-steps.csv", "amble-raw-4-hr.csv", "amble-raw-6-steps.csv"])
        #expect(files[0].contents.hasPrefix("time_s,x_g,y_g,z_g\n0,0,0,1\n"))
        #expect(files[0].summary == "2 accelerometer samples")
        #expect(files[1].contents.hasPrefix("time_s,ppg1,ppg2,x_g,y_g,z_g\n"))
        #expect(files[1].summary == "3 PPG samples")
        #expect(notes.count == 2)
        #expect(notes[0].contains("session 5") && notes[0].contains("consent_raw_capture"))
        #expect(notes[1].contains("session 6") && notes[1].contains("consent_heart_rate"))
    }

    @Test func exportRunsAgainstAStoreOnDisk() throws {
        let folder = NSTemporaryDirectory() + "amble-export-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let missing = #expect(throws: CommandError.self) {
            var command = try AmbleCommand.parseAsRoot(["--store", folder + "/none.sqlite", "export", "--format", "csv", "--out", folder])
            try command.run()
        }
        #expect(missing?.description.hasPrefix("no store at \(folder)/none.sqlite") == true)

        _ = try CompanionStore(path: folder + "/empty.sqlite")
        let empty = #expect(throws: CommandError.self) {
            var command = try AmbleCommand.parseAsRoot(["--store", folder + "/empty.sqlite", "export", "--format", "csv", "--out", folder])
            try command.run()
        }
        #expect(empty?.description.contains("no sessions in the store yet") == true)
        #expect(!FileManager.default.fileExists(atPath: folder + "/amble-sessions.csv"))
    }

    // MARK: Against the official schemas

    static let reference = repositoryPath("../shared/reference")

    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The first python3 on PATH that has jsonschema (scripts/check-openmhealth needs it).
    static let python = pythonImporting("jsonschema")

    @Test(.enabled(if: FileManager.default.fileExists(atPath: reference + "/tcx/tcx-with-activityextension.xsd") && tool("xmllint") != nil,
                   "needs ../shared/reference/tcx and xmllint (scripts/setup libxml2-utils)"))
    func tcxValidatesAgainstGarminsSchema() throws {
        let (_, sessions) = try Self.fixture()
        var notes: [String] = []
        let file = try #require(TCXExport.files(sessions, notes: &notes).first)
        let path = NSTemporaryDirectory() + "amble-\(UUID().uuidString).tcx"
        try file.contents.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, output) = try runProgram(Self.tool("xmllint")!, ["--noout", "--nonet", "--schema", Self.reference + "/tcx/tcx-with-activityextension.xsd", path], mergingStandardError: true)
        #expect(status == 0, "\(output)")
    }

    /// The project's own checker, over the Open mHealth schemas it carries (Tests/Reference/openmhealth).
    static let openMHealthChecker = repositoryPath("scripts/check-openmhealth")

    @Test(.enabled(if: python != nil, "needs python3 with jsonschema (scripts/setup python3-jsonschema)"))
    func openMHealthValidatesAgainstTheOfficialSchemas() throws {
        let (_, sessions) = try Self.fixture()
        let path = NSTemporaryDirectory() + "amble-\(UUID().uuidString).json"
        try OpenMHealthExport.file(sessions).contents.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, output) = try runProgram(Self.python!, [Self.openMHealthChecker, path], mergingStandardError: true)
        #expect(status == 0, "\(output.split(separator: "\n").filter { !$0.hasPrefix("ok") }.prefix(20).joined(separator: "\n"))")
        #expect(output.split(separator: "\n").filter { $0.hasPrefix("ok") }.count == 3 + 85 + 1)
    }
}
