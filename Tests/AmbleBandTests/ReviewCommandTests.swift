@testable import AmbleCLI
@testable import AmbleCompanion
@testable import AmbleCompanionStore
import AmbleModel
import AmbleSync
import ArgumentParser
import Foundation
import Testing

/// `sessions list` filters and local time, `sessions show`'s charts, `sessions delete`,
/// `reset`, and how the store is opened.
struct ReviewCommandTests {
    static let newYear = 1_767_225_600.0   // 2026-01-01T00:00:00Z
    let paris = Self.zone("Europe/Paris")
    let newYork = Self.zone("America/New_York")

    /// A zone with its daylight saving, as the machine's would be with TZ set.
    static func zone(_ identifier: String) -> LocalTime {
        let zone = TimeZone(identifier: identifier)!
        return LocalTime { zone.secondsFromGMT(for: Date(timeIntervalSince1970: $0)) }
    }

    /// Inserts a session of `seconds` seconds (paused from `pausedFrom` on, if given).
    @discardableResult
    func insert(_ store: CompanionStore, band: (id: String, name: String), bandSessionID: Int64, start: Double,
                kind: SessionKind = .mindfulWalk, seconds count: Int = 90, pausedFrom: Int? = nil) throws -> Int64 {
        let seconds = (0..<count).map { t in
            SessionSecond(offsetSeconds: t, steps: 2, cadenceStepsPerMinute: t < 60 ? 84 : 96, heartRateBPM: 80 + Double(t) / 3,
                          heartRateConfidence: 0.9, overLimit: t >= 60, alerts: t == 62 ? 1 : 0, paused: pausedFrom.map { t >= $0 } ?? false)
        }
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        let summary = SessionTally(seconds).summary(kind: kind, startUnixSeconds: start, endUnixSeconds: start + Double(count), parameters: parameters)
        return try #require(try store.insert(bandID: band.id, bandName: band.name, bandSessionID: bandSessionID,
                                             record: SessionRecord(summary: summary, seconds: seconds), syncedAtUnixSeconds: start + 1000))
    }

    let twinA = (id: "aaaa1111-0000-4000-8000-000000000001", name: "Simulated band")
    let twinB = (id: "aaaa2222-0000-4000-8000-000000000002", name: "Simulated band")
    let other = (id: "bbbb3333-0000-4000-8000-000000000003", name: "Kitchen")

    /// Four sessions over three local (Paris) days, from three bands, two of which share a name.
    func storeWithSessions() throws -> CompanionStore {
        let store = try CompanionStore(path: nil)
        try insert(store, band: twinA, bandSessionID: 1, start: Self.newYear - 3600 - 60, kind: .calibration)   // 2025-12-31 23:59 Paris
        try insert(store, band: twinA, bandSessionID: 2, start: Self.newYear)                                  // 2026-01-01 01:00 Paris
        try insert(store, band: twinB, bandSessionID: 1, start: Self.newYear + 22 * 3600 + 59 * 60)           // 2026-01-01 23:59 Paris
        try insert(store, band: other, bandSessionID: 7, start: Self.newYear + 23 * 3600)                      // 2026-01-02 00:00 Paris
        return store
    }

    // MARK: Local time

    @Test func timesAreLocalToTheZoneGiven() {
        #expect(localDateTime(Self.newYear, in: paris) == "2026-01-01 01:00")
        #expect(localDateTime(Self.newYear, in: newYork) == "2025-12-31 19:00")
        #expect(localDateTime(Self.newYear + 180 * 86400, in: paris) == "2026-06-30 02:00", "summer time")
        #expect(localClock(Self.newYear + 75, in: paris, seconds: true) == "01:01:15")
    }

    @Test func listShowsLocalTimeAndTellsTwinBandsApart() throws {
        let sessions = try storeWithSessions().sessions()
        let table = SessionText.table(sessions, time: paris)
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("ID   START            KIND         TIME    STEPS  WITHIN  ALERTS BAND"))
        #expect(lines[1].contains("2025-12-31 23:59 calibration"))
        #expect(lines[2].contains("2026-01-01 01:00 mindful-walk"))
        #expect(lines[2].hasSuffix("Simulated band (aaaa1111)"))
        #expect(lines[3].hasSuffix("Simulated band (aaaa2222)"))
        #expect(lines[4].hasSuffix("Kitchen"))
        #expect(lines[2].contains(" 180    67 %    1      "), "steps, share within the limit, alerts: \(lines[2])")
        #expect(table.contains("Times in"))
        #expect(SessionText.table(sessions, time: newYork).contains("2025-12-31 19:00 mindful-walk"))
    }

    @Test func jsonStaysUTC() throws {
        let session = try #require(try storeWithSessions().sessions().dropFirst().first)
        #expect(SessionJSON.object(session, seconds: nil).text.contains("\"start\": \"2026-01-01T00:00:00Z\""))
    }

    @Test func showChartsPaceAndHeartRateWithAlertsAndPausesInLocalTime() throws {
        let store = try CompanionStore(path: nil)
        let id = try insert(store, band: other, bandSessionID: 1, start: Self.newYear, seconds: 120, pausedFrom: 90)
        let (session, seconds) = try #require(try store.session(id: id))
        let text = SessionText.detail(session, seconds: seconds, time: paris)
        #expect(text.hasPrefix("Mindful walk #\(id) from Kitchen (bbbb3333), 2026-01-01 01:00 "))
        #expect(text.contains("heart rate (bpm) over"))
        #expect(text.contains("cadence (steps/min) over"))
        let markerRows = text.split(separator: "\n").filter { $0.hasPrefix("      ") && ($0.contains("^") || $0.contains("p")) && !$0.contains("(") }
        #expect(markerRows.count == 2, "one marker row under each chart")
        for row in markerRows {
            #expect(row.contains("^"))
            #expect(row.hasSuffix("p"), "the paused end is marked")
        }
        #expect(text.contains("      01:00:00") && text.contains("01:02:00\n"), "local start and end under the axis, with seconds for a short walk")
        // Heart rate rises over the walk: its first point is on a lower row than its last.
        let heartRows = Array(text.split(separator: "\n").filter { $0.contains("|") }.suffix(6))
        let firstStar = heartRows.firstIndex { $0.dropFirst(6).first == "*" }
        let lastStar = heartRows.firstIndex { $0.last == "*" }
        #expect(firstStar != nil && lastStar != nil && lastStar! < firstStar!)
    }

    @Test func noHeartRateNoHeartRateChart() {
        let seconds = (0..<30).map { SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: 90) }
        #expect(HeartRateChart.render(seconds: seconds).isEmpty)
    }

    // MARK: Filters

    @Test func datesAreLocalDaysOrMoments() throws {
        let day = try TimeBound("2026-01-01", time: paris)
        #expect(day.firstUnixSeconds == Self.newYear - 3600)
        #expect(day.afterUnixSeconds == Self.newYear - 3600 + 86400)
        #expect(try TimeBound("2026-01-01T00:00:00Z", time: paris).firstUnixSeconds == Self.newYear)
        #expect(try TimeBound("2026-01-01T01:00", time: paris).firstUnixSeconds == Self.newYear)
        #expect(try TimeBound("2026-01-01T03:30:00+02:30", time: newYork).firstUnixSeconds == Self.newYear + 3600)
        #expect(try TimeBound("2025-12-31T19:00:00-05:00", time: paris).firstUnixSeconds == Self.newYear)
        for bad in ["2026-02-30", "2026-1-1", "yesterday", "2026-01-01T25:00", "2026-01-01T10", ""] {
            #expect(throws: CommandError.self, "\(bad)") { try TimeBound(bad, time: paris) }
        }
    }

    @Test func filtersBySinceUntilKindAndBand() throws {
        let sessions = try storeWithSessions().sessions()
        func ids(_ filter: SessionFilter) throws -> [Int64] { try filter.apply(sessions).map(\.id) }
        let all = sessions.map(\.id)
        #expect(try ids(SessionFilter()) == all)
        // Paris days: 31 Dec holds the first, 1 Jan the next two, 2 Jan the last.
        #expect(try ids(SessionFilter(since: TimeBound("2026-01-01", time: paris))) == Array(all[1...]))
        #expect(try ids(SessionFilter(until: TimeBound("2026-01-01", time: paris))) == Array(all[..<3]))
        #expect(try ids(SessionFilter(since: TimeBound("2026-01-01", time: paris), until: TimeBound("2026-01-01", time: paris))) == [all[1], all[2]])
        // The same dates in New York hold other sessions.
        #expect(try ids(SessionFilter(since: TimeBound("2026-01-01", time: newYork))) == [all[2], all[3]])
        #expect(try ids(SessionFilter(until: TimeBound("2026-01-01T00:00:00Z"))) == [all[0], all[1]], "a moment: up to and including it")
        #expect(try ids(SessionFilter(kind: .calibration)) == [all[0]])
        #expect(try ids(SessionFilter(kind: .mindfulWalk)) == Array(all[1...]))
        #expect(try ids(SessionFilter(band: "simulated BAND")) == Array(all[..<3]), "a name any case: every band of that name")
        #expect(try ids(SessionFilter(band: "aaaa2")) == [all[2]], "an id prefix tells twins apart")
        #expect(try ids(SessionFilter(band: twinA.id)) == [all[0], all[1]])
        #expect(try ids(SessionFilter(kind: .mindfulWalk, band: "kitchen")) == [all[3]])
        #expect(try ids(SessionFilter(since: TimeBound("2027-01-01"))) == [])
        let error = #expect(throws: CommandError.self) { try SessionFilter(band: "Garden").apply(sessions) }
        #expect(error?.description.contains("Kitchen (id bbbb3333)") == true)
        #expect(try ids(SessionFilter(band: "b")) == [all[3]], "any start of an id that only one band has")
        let shared = #expect(throws: CommandError.self, "a start two ids share") { try SessionFilter(band: "aaa").apply(sessions) }
        #expect(shared?.description.hasSuffix("give more of the id") == true)
    }

    @Test func listOptionsAreChecked() {
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["sessions", "list", "--since", "2026-01-01", "--until", "2026-01-31T12:00Z", "--kind", "mindful-walk", "--band", "aaaa"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["sessions", "list", "--kind", "calibration", "--json"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sessions", "list", "--kind", "walk"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sessions", "list", "--since", "2026-13-01"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sessions", "delete"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["sessions", "delete", "latest"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["sessions", "delete", "3", "4", "--yes"]) }
        #expect(throws: Never.self) { try AmbleCommand.parseAsRoot(["reset", "--yes-really"]) }
    }

    // MARK: Delete and reset

    @Test func deleteHelpIsExactly() {
        #expect(AmbleCommand.helpMessage(for: DeleteSessionsCommand.self, columns: 100) == """
            OVERVIEW: Delete sessions from this laptop's store (the band's copy is not touched).

            Asks first; --yes does not (needed without a terminal). When an id is not in the store, nothing is
            deleted. A deleted session is not pulled again by a later sync. To wipe the band, use amble band
            delete-all.

            USAGE: amble sessions delete <ids> ... [--yes]

            ARGUMENTS:
              <ids>                   Session ids from `amble sessions list`.

            OPTIONS:
              --yes                   Delete without asking.
              --version               Show the version.
              -h, --help              Show help information.

            """)
    }

    /// A console that answers from a script and records what was said.
    final class ScriptedConsole {
        var answers: [String]
        var said: [String] = []
        var asked: [String] = []
        let interactive: Bool
        init(interactive: Bool, answers: [String] = []) { self.interactive = interactive; self.answers = answers }
        var console: Console {
            Console(isInteractive: interactive,
                    ask: { prompt in self.asked.append(prompt); return self.answers.isEmpty ? nil : self.answers.removeFirst() },
                    say: { self.said.append($0) })
        }
    }

    @Test func deleteWithYesDeletesAndSaysWhat() throws {
        let store = try storeWithSessions()
        let ids = try store.sessions().map(\.id)
        let script = ScriptedConsole(interactive: false)
        let deleted = try DeleteSessionsCommand.delete(ids: [ids[1], ids[3]], yes: true, store: store, console: script.console, time: paris)
        #expect(deleted.map(\.id) == [ids[1], ids[3]])
        #expect(try store.sessions().map(\.id) == [ids[0], ids[2]])
        #expect(try store.session(id: ids[1]) == nil)
        #expect(script.said.first == "Deleted #\(ids[1]) mindful-walk 2026-01-01 01:00, 1:30, 180 steps, from Simulated band (aaaa1111)")
        #expect(script.said.last?.contains("amble band delete-all") == true)
        #expect(script.asked.isEmpty)
    }

    @Test func deleteRefusesWithoutATerminalAndAsksOnOne() throws {
        let store = try storeWithSessions()
        let ids = try store.sessions().map(\.id)
        let error = #expect(throws: CommandError.self) {
            try DeleteSessionsCommand.delete(ids: [ids[0]], yes: false, store: store, console: ScriptedConsole(interactive: false).console)
        }
        #expect(error?.description.contains("--yes") == true)
        #expect(try store.sessions().count == 4)

        for answer in ["", "n", "no", "yes please"] {
            let declined = ScriptedConsole(interactive: true, answers: [answer])
            #expect(try DeleteSessionsCommand.delete(ids: [ids[0]], yes: false, store: store, console: declined.console).isEmpty)
            #expect(declined.asked == ["Delete this session from this laptop? [y/N] "])
            #expect(declined.said.last == "Nothing deleted.")
        }
        #expect(try store.sessions().count == 4)
        let endOfInput = ScriptedConsole(interactive: true)
        #expect(try DeleteSessionsCommand.delete(ids: [ids[0]], yes: false, store: store, console: endOfInput.console).isEmpty)

        let accepted = ScriptedConsole(interactive: true, answers: [" Y "])
        #expect(try DeleteSessionsCommand.delete(ids: [ids[0], ids[2]], yes: false, store: store, console: accepted.console).count == 2)
        #expect(accepted.asked == ["Delete these 2 sessions from this laptop? [y/N] "])
        #expect(try store.sessions().map(\.id) == [ids[1], ids[3]])
    }

    @Test func deleteOfAnUnknownIDDeletesNothing() throws {
        let store = try storeWithSessions()
        let ids = try store.sessions().map(\.id)
        let error = #expect(throws: CommandError.self) {
            try DeleteSessionsCommand.delete(ids: [ids[0], 999, 998], yes: true, store: store, console: ScriptedConsole(interactive: false).console)
        }
        #expect(error?.description == "no session 998, 999 in the store; nothing deleted. `amble sessions list` shows the ids")
        #expect(try store.sessions().count == 4)
        #expect(throws: CompanionStoreError.unknownSessions([999])) { try store.deleteSessions(ids: [ids[0], 999]) }
        #expect(try store.sessions().count == 4)
    }

    @Test func resetAsksTwiceAndKeepsThePairings() throws {
        let store = try storeWithSessions()
        try store.pairBand(id: twinA.id, name: twinA.name, publicKey: Array(repeating: 7, count: 32), address: "127.0.0.1:7070", nowUnixSeconds: 0)
        try store.setSyncCursor(bandID: twinA.id, 2)

        #expect(throws: CommandError.self) { try ResetCommand.reset(yesReally: false, store: store, storePath: "s", console: ScriptedConsole(interactive: false).console) }
        for answers in [["n"], ["y", "n"], ["y"], ["y", ""]] {
            let script = ScriptedConsole(interactive: true, answers: answers)
            #expect(try ResetCommand.reset(yesReally: false, store: store, storePath: "s", console: script.console) == nil)
            #expect(script.asked.count == (answers[0] == "y" ? 2 : 1), "\(answers)")
        }
        #expect(try store.sessions().count == 4)

        let twice = ScriptedConsole(interactive: true, answers: ["y", "yes"])
        #expect(try ResetCommand.reset(yesReally: false, store: store, storePath: "s", console: twice.console) == 4)
        #expect(twice.asked.count == 2)
        #expect(twice.asked[0] == "Delete all 4 sessions from 3 bands from s, and wipe the paired band (\(twinA.name)) at its next sync? [y/N] ")
        #expect(twice.said.contains { $0.contains("next amble sync asks the wearer to delete everything") })
        #expect(try store.bandWipeRequests().keys.sorted() == [twinA.id], "the paired band is wiped at its next sync")
        #expect(try store.sessions().isEmpty)
        #expect(try store.pairedBands().map(\.id) == [twinA.id])
        #expect(try store.syncCursor(bandID: twinA.id) == 2, "the next sync does not pull the deleted sessions again")

        try insert(store, band: other, bandSessionID: 8, start: Self.newYear)
        try store.clearBandWipeRequest(bandID: twinA.id)
        let laptopOnly = ScriptedConsole(interactive: false)
        #expect(try ResetCommand.reset(yesReally: true, keepBands: true, store: store, storePath: "s", console: laptopOnly.console) == 1)
        #expect(try store.sessions().isEmpty)
        #expect(try store.bandWipeRequests().isEmpty, "--keep-bands leaves the bands alone")
        #expect(laptopOnly.said.contains { $0.contains("amble band delete-all") })
    }

    @Test func sessionsStillBeingRecordedAreListedAfterTheOthers() throws {
        let store = try storeWithSessions()
        try store.setBandRecording(bandID: twinA.id, [(bandSessionID: 40, kind: "mindful-walk", startUnixSeconds: Self.newYear + 7200, recordedSeconds: 754)],
                                   seenUnixSeconds: Self.newYear + 7954)
        let all = try store.sessions()
        let text = SessionsCommand.ListCommand.text(all: all, matching: all, recording: try store.bandRecordings(), time: paris)
        let last = try #require(text.split(separator: "\n").last)
        #expect(last == "still being recorded on \(SessionText.bandLabels(all)[twinA.id]!): mindful-walk since 2026-01-01 03:00 (12:34 so far at the sync); it comes with the first sync after it ends")
        // Filters apply to it as to the sessions.
        let calibrations = SessionFilter(kind: .calibration)
        #expect(calibrations.apply(try store.bandRecordings()).isEmpty)
        // Once synced it is a session like the others, and no longer listed as being recorded.
        try insert(store, band: twinA, bandSessionID: 40, start: Self.newYear + 7200)
        #expect(try store.bandRecordings().isEmpty)
        // A band too old to say: nothing is known.
        try store.setBandRecording(bandID: twinA.id, [(bandSessionID: 41, kind: "calibration", startUnixSeconds: Self.newYear, recordedSeconds: 3)], seenUnixSeconds: Self.newYear)
        try store.setBandRecording(bandID: twinA.id, nil, seenUnixSeconds: Self.newYear + 1)
        #expect(try store.bandRecordings().isEmpty)
    }

    @Test func untrustedTextIsPrintedWithoutControlCharacters() {
        #expect(printableText("walk\u{1B}[2J\u{07}") == "walk?[2J?")
        #expect(printableText(String(repeating: "x", count: 100), maximum: 10) == String(repeating: "x", count: 9) + "…")
        #expect(SessionText.recordingLine(kind: "\u{1B}]0;pwned\u{07}", startUnixSeconds: 0, recordedSeconds: 1, time: paris).hasPrefix("still being recorded: ?]0;pwned? since"))
        // `amble band settings` prints what the band sends.
        #expect(BandCommand.SettingsCommand.text([.init(key: "band_name", value: "Ann's band\u{1B}[2J"), .init(key: "x\u{07}", value: "on")])
                == "band_name  Ann's band?[2J\nx?         on")
    }

    // MARK: Opening the store

    func temporaryStorePath() -> String {
        NSTemporaryDirectory() + "amble-review-\(UUID().uuidString)/amble.sqlite"
    }

    @Test func readingCommandsOpenTheStoreReadOnly() throws {
        let path = temporaryStorePath()
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let store = try CompanionStore(path: path)
            try insert(store, band: other, bandSessionID: 1, start: Self.newYear)
        }
        let reader = try openCompanionStoreForReading(path: path)
        #expect(try reader.sessions().count == 1)
        #expect(throws: (any Error).self) { try reader.deleteAllSessions() }
        #expect(try reader.sessions().count == 1)

        // A store from an earlier build is upgraded first.
        let old = temporaryStorePath()
        let oldFolder = (old as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: oldFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: oldFolder) }
        _ = try CompanionStore(path: old, upTo: "v3-pairing")
        #expect(throws: CompanionStoreError.needsUpgrade) { try CompanionStore(readingOnly: old) }
        #expect(try openCompanionStoreForReading(path: old).sessions().isEmpty)
        #expect(try CompanionStore(readingOnly: old).sessions().isEmpty)
    }

    @Test func aFailedSyncCreatesNoStore() throws {
        let path = temporaryStorePath()
        var command = try AmbleCommand.parseAsRoot(["--store", path, "sync", "--tcp", "127.0.0.1:9", "--timeout", "1"])
        #expect(throws: (any Error).self) { try command.run() }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent))
        for arguments in [["sessions", "list"], ["sessions", "show", "latest"], ["calibrations"], ["sessions", "delete", "1", "--yes"], ["reset", "--yes-really"]] {
            var reading = try AmbleCommand.parseAsRoot(["--store", path] + arguments)
            #expect(throws: (any Error).self, "\(arguments)") { try reading.run() }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
