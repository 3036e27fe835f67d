@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import AmbleSimulation
import Foundation
import Testing

/// Every export of a session adds up to the session (issue 30, item 2): the seconds CSV to the
/// sessions CSV, Open mHealth's step counts and activity, TCX's laps and trackpoints, FIT's
/// session, laps and records (and Garmin's decoder agrees, where it is installed); and
/// distance follows the steps second by second.
enum ExportSums {
    /// Sessions as the laptop keeps them, from band records, in order.
    static func exported(_ records: [SessionRecord], bandName: String = "Left, \"good\" wrist") throws -> [ExportedSession] {
        let store = try CompanionStore(path: nil)
        for (index, record) in records.enumerated() {
            _ = try store.insert(bandID: "b1", bandName: bandName, bandSessionID: Int64(index + 1), record: record, syncedAtUnixSeconds: 0)
        }
        return try store.sessions().map { session in
            let (stored, seconds) = try #require(try store.session(id: session.id))
            return ExportedSession(session: stored, seconds: seconds)
        }
    }

    /// Checks every format against each session's summary.
    static func check(_ sessions: [ExportedSession], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let csv = CSVExport.files(sessions)
        let totals = table(csv[0].contents, key: "session_id", values: ["steps", "distance_m"])
        let seconds = table(csv[1].contents, key: "session_id", values: ["steps"])
        let points = try #require(try JSONSerialization.jsonObject(with: Data(OpenMHealthExport.file(sessions).bytes)) as? [[String: Any]])
        var notes: [String] = []
        let tcx = Dictionary(uniqueKeysWithValues: TCXExport.files(sessions, notes: &notes).map { ($0.name, $0.contents) })
        let fit = Dictionary(uniqueKeysWithValues: FITExport.files(sessions, notes: &notes).map { ($0.name, $0.bytes) })
        for walk in sessions {
            let s = walk.summary, id = String(walk.session.id), name = "session \(id)"
            #expect(totals[id]?[0] == Double(s.steps), "\(name): sessions CSV", sourceLocation: sourceLocation)
            #expect(abs((totals[id]?[1] ?? -1) - s.distanceMeters) <= 0.05, "\(name): sessions CSV distance", sourceLocation: sourceLocation)
            #expect(seconds[id]?[0] == Double(s.steps), "\(name): seconds CSV \(seconds[id]?[0] ?? -1) of \(s.steps)", sourceLocation: sourceLocation)
            let prefix = "amble-b1-\(walk.session.bandSessionID)-"
            let mine = points.filter { (($0["header"] as? [String: Any])?["id"] as? String)?.hasPrefix(prefix) == true }
            let counted = mine.compactMap { ($0["body"] as? [String: Any])?["step_count"] as? Int }.reduce(0, +)
            #expect(counted == s.steps, "\(name): Open mHealth \(counted) of \(s.steps)", sourceLocation: sourceLocation)
            guard s.kind == .mindfulWalk else { continue }
            let activity = mine.compactMap { (($0["body"] as? [String: Any])?["distance"] as? [String: Any])?["value"] as? Double }
            #expect(activity.count == 1 && abs(activity[0] - s.distanceMeters) <= 0.05, "\(name): Open mHealth distance", sourceLocation: sourceLocation)
            let document = try #require(tcx[TCXExport.fileName(walk)], sourceLocation: sourceLocation)
            checkTCX(document, walk, sourceLocation: sourceLocation)
            try checkFIT(try #require(fit[TCXExport.fileName(walk, extension: "fit")], sourceLocation: sourceLocation), walk, sourceLocation: sourceLocation)
        }
        if GarminDecoder.python != nil, !fit.isEmpty {
            let (status, output) = try GarminDecoder.check(sessions)
            #expect(status == 0, "Garmin's decoder: \(output)", sourceLocation: sourceLocation)
        }
    }

    /// FIT: the session holds the walk's steps (2 x strides) and distance, the laps add up to
    /// it, and each record's distance is the steps taken by its time.
    static func checkFIT(_ bytes: [UInt8], _ walk: ExportedSession, sourceLocation: SourceLocation) throws {
        let s = walk.summary
        let messages = try FITReading.messages(bytes)
        func steps(_ m: FITReading.Message, fraction: UInt8) -> Int { 2 * (m[10] ?? 0) + (m[fraction] ?? 0) / 64 }
        let session = try #require(messages.first { $0.global == FITExport.Message.session }, sourceLocation: sourceLocation)
        let laps = messages.filter { $0.global == FITExport.Message.lap }
        let centimetres = Int((s.distanceMeters * 100).rounded())
        #expect(steps(session, fraction: 94) == s.steps && session[9] == centimetres, "FIT session", sourceLocation: sourceLocation)
        #expect(laps.reduce(0) { $0 + steps($1, fraction: 82) } == s.steps, "FIT laps' steps", sourceLocation: sourceLocation)
        #expect(laps.reduce(0) { $0 + ($1[9] ?? 0) } == centimetres, "FIT laps' distance", sourceLocation: sourceLocation)
        let kilocalories = s.activeKilocalories.map { Int($0.rounded()) }
        #expect(session[11] == kilocalories && laps.reduce(0) { $0 + ($1[11] ?? 0) } == kilocalories ?? 0, "FIT calories", sourceLocation: sourceLocation)
        let start = FITWriter.time(s.startUnixSeconds)
        let records = messages.filter { $0.global == FITExport.Message.record }
        var offending: [String] = []
        for (index, record) in records.enumerated() {
            let offset = (record[253] ?? 0) - start - 1
            let taken = index == records.count - 1 ? s.steps : walk.seconds.filter { $0.offsetSeconds <= offset }.reduce(0) { $0 + $1.steps }
            if abs((record[5] ?? -1) - Int((Double(taken) * s.parameters.stepLengthMeters * 100).rounded())) > 1 { offending.append("\(offset) s: \(record[5] ?? -1) cm, \(taken) steps") }
        }
        #expect(offending.isEmpty, "FIT records off the steps: \(offending.prefix(5))", sourceLocation: sourceLocation)
    }

    /// TCX: the laps add up to the walk; each trackpoint's distance is the steps taken by the
    /// end of its second (paused ones included, the last trackpoint's all) times the step length.
    static func checkTCX(_ document: String, _ walk: ExportedSession, sourceLocation: SourceLocation) {
        let s = walk.summary, stepLength = s.parameters.stepLengthMeters
        let laps = document.components(separatedBy: "<Lap ").dropFirst()
        let lapSteps = laps.map { Int(between($0, "<ax:Steps>", "</ax:Steps>").first ?? "") ?? 0 }.reduce(0, +)
        let lapDistance = laps.map { Double(between($0, "<DistanceMeters>", "</DistanceMeters>").first ?? "") ?? 0 }.reduce(0, +)
        #expect(lapSteps == s.steps, "TCX laps: \(lapSteps) steps of \(s.steps)", sourceLocation: sourceLocation)
        #expect(abs(lapDistance - s.distanceMeters) <= 0.006, "TCX laps: \(lapDistance) m of \(s.distanceMeters)", sourceLocation: sourceLocation)
        let calories = laps.map { Int(between($0, "<Calories>", "</Calories>").first ?? "") ?? 0 }.reduce(0, +)
        #expect(calories == Int((s.activeKilocalories ?? 0).rounded()), "TCX laps: \(calories) kcal", sourceLocation: sourceLocation)
        // A trackpoint per second walked, in order.
        let walked = walk.seconds.filter { !$0.paused }.map(\.offsetSeconds)
        let distances = between(document, "</Time>\n", "</DistanceMeters>").map { Double($0.components(separatedBy: "<DistanceMeters>").last ?? "") ?? -1 }
        var offending: [String] = []
        for (index, (offset, distance)) in zip(walked, distances).enumerated() {
            let taken = index == walked.count - 1 ? s.steps : walk.seconds.filter { $0.offsetSeconds <= offset }.reduce(0) { $0 + $1.steps }
            if abs(distance - Double(taken) * stepLength) > 0.006 { offending.append("\(offset) s: \(distance) m, \(taken) steps") }
        }
        #expect(distances.count == walked.count, "\(distances.count) trackpoints for \(walked.count) seconds walked", sourceLocation: sourceLocation)
        #expect(offending.isEmpty, "TCX trackpoints off the steps: \(offending.prefix(5))", sourceLocation: sourceLocation)
    }

    /// The texts between each `open` and the next `close`.
    static func between(_ text: String, _ open: String, _ close: String) -> [String] {
        text.components(separatedBy: open).dropFirst().compactMap { $0.components(separatedBy: close).count > 1 ? $0.components(separatedBy: close)[0] : nil }
    }

    /// A CSV's `values` columns summed by its `key` column (RFC 4180 quoting).
    static func table(_ csv: String, key: String, values: [String]) -> [String: [Double]] {
        let rows = csv.split(separator: "\n").map { fields(String($0)) }
        guard let header = rows.first, let keyIndex = header.firstIndex(of: key) else { return [:] }
        let indexes = values.compactMap { header.firstIndex(of: $0) }
        var result: [String: [Double]] = [:]
        for row in rows.dropFirst() {
            let sums = result[row[keyIndex]] ?? Array(repeating: 0, count: indexes.count)
            result[row[keyIndex]] = zip(sums, indexes).map { $0 + (Double(row[$1]) ?? 0) }
        }
        return result
    }

    static func fields(_ line: String) -> [String] {
        var fields = [""], quoted = false, previous: Character = " "
        for c in line {
            if c == "\"" { quoted.toggle(); if quoted && previous == "\"" { fields[fields.count - 1].append(c) } }
            else if c == "," && !quoted { fields.append("") } else { fields[fields.count - 1].append(c) }
            previous = c
        }
        return fields
    }
}

struct ExportSumsTests {
    /// A walk stored by a band that did not yet file late steps (Amble 0.1.0): its seconds hold
    /// 170 steps, its summary 181 (11 released with its end, at 96 steps/min).
    @Test func aWalkWhoseSecondsLackItsLastStepsAddsUpInEveryFormat() throws {
        let (_, sessions) = try ExportTests.fixture()
        let walk = try #require(sessions.last)
        var summary = walk.summary
        summary.steps += 11
        summary.distanceMeters = Double(summary.steps) * summary.parameters.stepLengthMeters
        let exported = try ExportSums.exported([SessionRecord(summary: summary, seconds: walk.seconds)])
        try ExportSums.check(exported)
        // The 11 went to the walk's last 7 seconds, at their cadence (1.6 a second).
        let added = zip(try #require(exported.first).seconds, walk.seconds).map { $0.steps - $1.steps }
        #expect(added.suffix(7).allSatisfy { (1...2).contains($0) } && added.dropLast(7).allSatisfy { $0 == 0 }, "\(added.suffix(9))")
    }
}

/// The same on walks the simulated band recorded: the demo's (scripts/scenarios/demo.script),
/// and walks played from recordings: one the tests make from the synthetic wearer, and real
/// ones from ../shared/data/dev when it is there.
extension ExportSumsTests {
    /// The sessions the band stored, checked as the band keeps them (their seconds add up to
    /// their summaries), then in every format.
    static func checkBand(_ run: ScenarioRun, sourceLocation: SourceLocation = #_sourceLocation) throws -> [SessionRecord] {
        let records = try run.band.store.finishedSessions().map { try #require(try run.band.store.session(id: $0.id)) }
        #expect(records.map(\.summary.kind) == [.calibration, .mindfulWalk], sourceLocation: sourceLocation)
        for record in records {
            #expect(record.seconds.reduce(0) { $0 + $1.steps } == record.summary.steps, "the band's seconds add up", sourceLocation: sourceLocation)
        }
        try ExportSums.check(try ExportSums.exported(records), sourceLocation: sourceLocation)
        return records
    }

    @Test func theDemosWalksAddUpInEveryFormat() throws {
        let script = try String(contentsOfFile: repositoryPath("scripts/scenarios/demo.script"), encoding: .utf8)
        let run = try ScenarioRun(script: script, calibrationSeconds: 60)
        run.run(seconds: 292)
        let walk = try #require(try Self.checkBand(run).last)
        // The walk begins as its countdown ends (band second 76); the wearer walks until its
        // 108th second, stands and pauses, and walks again from its 130th to its 205th.
        // Every second walked moves the distance on.
        let still = walk.seconds.filter { (1...106).contains($0.offsetSeconds) || (132...203).contains($0.offsetSeconds) }.filter { $0.steps == 0 }
        #expect(still.isEmpty, "seconds walked without a step: \(still.map(\.offsetSeconds))")
        #expect(walk.summary.steps > 250 && walk.summary.pauses == 1, "\(walk.summary.steps) steps, \(walk.summary.pauses) pauses")
    }

    /// Calibrate from the recording the board plays, then a 100 s mindful walk.
    static let recordedWalk = """
    0:01   press select
    +41    press next
    +1     press select
    +1     press select
    +103   hold select 1.5
    +3     end
    """

    static func recorded(_ path: String) throws -> ScenarioRun {
        let run = try ScenarioRun(script: recordedWalk, board: { $0.replacingOccurrences(of: "signal = \"synthetic\"", with: "signal = \"\(path)\"") })
        run.run(seconds: 155)
        return run
    }

    @Test func aRecordedWalkAddsUpInEveryFormat() throws {
        // Made here from the synthetic wearer: 80 s at 100 steps/min, 20 s still, over and over
        // (the calibration walks, the walk stops once).
        let wearer = SyntheticWearer(seed: 3)
        var csv = "time_s,x_g,y_g,z_g\n"
        wearer.activity = .walking(cadenceStepsPerMinute: 100)
        for i in 0 ..< 100 * 25 {
            let t = Double(i) / 25
            if i == 80 * 25 { wearer.activity = .still }
            let a = wearer.accelerationG(atSeconds: t)
            csv += "\(t),\(a.x),\(a.y),\(a.z)\n"
        }
        let folder = NSTemporaryDirectory() + "amble-recorded-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try csv.write(toFile: folder + "/walk.csv", atomically: true, encoding: .utf8)
        let walk = try #require(try Self.checkBand(try Self.recorded(folder + "/walk.csv")).last)
        #expect(walk.summary.steps > 100, "\(walk.summary.steps) steps in 100 s, 80 of them walked at 100 steps/min")
    }

    static let development = repositoryPath("../shared/data/dev")

    @Test(.enabled(if: FileManager.default.fileExists(atPath: development + "/steps-pebble"), "needs ../shared/data/dev (real recordings; absent from a fresh clone)"),
          arguments: ["steps-pebble/pebble__pbl-25656__walk_200_pbl_25656_10.csv", "steps/bangle__100.csv"])
    func aRealRecordedWalkAddsUpInEveryFormat(file: String) throws {
        let walk = try #require(try Self.checkBand(try Self.recorded(Self.development + "/" + file)).last)
        #expect(walk.summary.steps > 50, "\(walk.summary.steps) steps")
    }
}
