@testable import AmbleCLI
import AmbleCompanionStore
import AmbleModel
import Foundation
import Testing

/// Every export of a session adds up to the session (issue 30, item 2): the seconds CSV to the
/// sessions CSV, Open mHealth's step counts and activity, TCX's laps and trackpoints; and
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
        }
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
        let times = between(document, "<Trackpoint>\n", "</Time>").map { $0.components(separatedBy: "<Time>").last ?? "" }
        let distances = between(document, "</Time>\n", "</DistanceMeters>").map { Double($0.components(separatedBy: "<DistanceMeters>").last ?? "") ?? -1 }
        var offending: [String] = []
        for (index, (time, distance)) in zip(times, distances).enumerated() {
            let offset = Int((isoSeconds(time) ?? 0) - s.startUnixSeconds)
            let taken = index == times.count - 1 ? s.steps : walk.seconds.filter { $0.offsetSeconds <= offset }.reduce(0) { $0 + $1.steps }
            if abs(distance - Double(taken) * stepLength) > 0.006 { offending.append("\(offset) s: \(distance) m, \(taken) steps") }
        }
        #expect(times.count == walk.seconds.filter { !$0.paused }.count && distances.count == times.count, sourceLocation: sourceLocation)
        #expect(offending.isEmpty, "TCX trackpoints off the steps: \(offending.prefix(5))", sourceLocation: sourceLocation)
    }

    /// The texts between each `open` and the next `close`.
    static func between(_ text: String, _ open: String, _ close: String) -> [String] {
        text.components(separatedBy: open).dropFirst().compactMap { $0.components(separatedBy: close).count > 1 ? $0.components(separatedBy: close)[0] : nil }
    }

    static func isoSeconds(_ text: String) -> Double? {
        ISO8601DateFormatter().date(from: text).map(\.timeIntervalSince1970)
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
