import AmbleBandStore
import AmbleModel
import Foundation
import Testing

/// A finished walk of `count` seconds; returns its id.
func recordSession(_ store: BandStore, start: Double, seconds count: Int = 10) throws -> Int64 {
    let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: start, parameters: walkParameters())
    let seconds = rows(count)
    for row in seconds { try store.appendSecond(sessionID: id, row) }
    try store.endSession(sessionID: id, summary: SessionTally(seconds).summary(
        kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(count), parameters: walkParameters()))
    return id
}

struct BandStoreTests {
    @Test func recordsASessionSecondBySecond() throws {
        let store = try BandStore(path: nil)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 1000, parameters: walkParameters())
        #expect(try store.finishedSessions().isEmpty, "a session under way is not offered for sync")
        let seconds = rows(60, overFrom: 40)
        for row in seconds { try store.appendSecond(sessionID: id, row) }
        let summary = SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: 1000, endUnixSeconds: 1060, parameters: walkParameters())
        try store.endSession(sessionID: id, summary: summary)
        let listed = try store.finishedSessions()
        #expect(listed.map(\.id) == [id])
        #expect(listed.first?.summary == summary)
        #expect(listed.first?.syncedUnixSeconds == nil)
        let record = try #require(try store.session(id: id))
        #expect(record.seconds == seconds)
        #expect(record.summary.steps == 90)
        #expect(record.summary.timeOverLimitSeconds == 20)
        #expect(record.summary.alerts == 1)
    }

    @Test func listsOnlySessionsAfterAnID() throws {
        let store = try BandStore(path: nil)
        var ids: [Int64] = []
        for start in [100.0, 200, 300] {
            let id = try store.beginSession(kind: .calibration, startUnixSeconds: start, parameters: SessionParameters(stepLengthMeters: 0.7))
            try store.endSession(sessionID: id, summary: SessionTally().summary(kind: .calibration, startUnixSeconds: start, endUnixSeconds: start + 60, parameters: SessionParameters(stepLengthMeters: 0.7)))
            ids.append(id)
        }
        #expect(try store.finishedSessions(afterID: ids[0]).map(\.id) == Array(ids.dropFirst()))
    }

    @Test func aCrashMidSessionLosesNothingStored() throws {
        let file = TemporaryDatabase()
        let path = file.path
        do {
            let store = try BandStore(path: path)
            let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 5000, parameters: walkParameters())
            for row in rows(45, overFrom: 30) { try store.appendSecond(sessionID: id, row) }
            // No endSession: the band lost power here.
        }
        let reopened = try BandStore(path: path)
        let sessions = try reopened.finishedSessions()
        try #require(sessions.count == 1)
        #expect(sessions[0].summary.endUnixSeconds == 5045)
        #expect(sessions[0].summary.timeOverLimitSeconds == 15)
        #expect(sessions[0].summary.steps == 68)
        #expect(try reopened.session(id: sessions[0].id)?.seconds.count == 45)
    }

    @Test func keepsCalibrationReductionAndIdentityAcrossRestarts() throws {
        let file = TemporaryDatabase()
        let path = file.path
        let calibration = Calibration(cadenceStepsPerMinute: 108.5, stepLengthMeters: 0.72, unixSeconds: 1234)
        let identity: BandIdentity
        do {
            let store = try BandStore(path: path)
            #expect(try store.loadCalibration() == nil)
            try store.saveCalibration(calibration)
            try store.set(.reductionPercent, to: "25")
            identity = try store.identity(defaultName: "Test band")
        }
        let store = try BandStore(path: path)
        #expect(try store.loadCalibration() == calibration)
        #expect(try store.setting(.reductionPercent) == "25")
        #expect(try store.identity(defaultName: "Other name") == identity)
    }

    @Test func refusesASecondRowForTheSameSecond() throws {
        let store = try BandStore(path: nil)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 0, parameters: walkParameters())
        try store.appendSecond(sessionID: id, rows(1)[0])
        #expect(throws: (any Error).self) { try store.appendSecond(sessionID: id, rows(1)[0]) }
    }

    // MARK: Key and paired laptops

    @Test func bandKeyIsMadeOnceThenKept() throws {
        let file = TemporaryDatabase()
        var made = 0
        let first = try BandStore(path: file.path).staticPrivateKey { made += 1; return Array(repeating: 1, count: 32) }
        let second = try BandStore(path: file.path).staticPrivateKey { made += 1; return Array(repeating: 2, count: 32) }
        #expect(first == Array(repeating: 1, count: 32))
        #expect(second == first)
        #expect(made == 1)
    }

    @Test func pairedLaptopsAreAddedUpdatedAndForgotten() throws {
        let store = try BandStore(path: nil)
        #expect(try store.pairedLaptops().isEmpty)
        let work = PairedLaptop(publicKey: Array(repeating: 1, count: 32), name: "work", pairedUnixSeconds: 10)
        let home = PairedLaptop(publicKey: Array(repeating: 2, count: 32), name: "home", pairedUnixSeconds: 20)
        try store.addPairedLaptop(work)
        try store.addPairedLaptop(home)
        #expect(try store.pairedLaptops() == [work, home], "in the order they were paired")
        let renamed = PairedLaptop(publicKey: work.publicKey, name: "work laptop", pairedUnixSeconds: 30)
        try store.addPairedLaptop(renamed)
        #expect(try store.pairedLaptops() == [home, renamed], "pairing a known key again updates it, no second row")
        #expect(throws: (any Error).self, "a key is 32 bytes") {
            try store.addPairedLaptop(PairedLaptop(publicKey: [1, 2, 3], name: "short", pairedUnixSeconds: 40))
        }
        try store.forgetLaptops()
        #expect(try store.pairedLaptops().isEmpty)
    }

    // MARK: Settings

    @Test func settingsStartAtTheirDefaults() throws {
        let store = try BandStore(path: nil)
        let settings = try store.settings()
        #expect(settings.map(\.0) == BandSetting.allCases)
        #expect(settings.map(\.1) == BandSetting.allCases.map(\.defaultValue))
        #expect(try store.setting(.alertStyle) == "firm")
        #expect(try store.settingValues() == BandSettingValues(), "the typed defaults are the stored ones")
    }

    @Test func settingsAreStoredInCanonicalForm() throws {
        let store = try BandStore(path: nil)
        #expect(try store.set(.alertStyle, to: "  GENTLE ") == "gentle")
        #expect(try store.set(.reminderTime, to: "7:05") == "07:05")
        #expect(try store.set(.heightCentimeters, to: "0182") == "182")
        #expect(try store.setting(.alertStyle) == "gentle")
        #expect(try store.setting(.reminderTime) == "07:05")
        #expect(try store.settings().first { $0.0 == .heightCentimeters }?.1 == "182")
        try store.set(.reductionPercent, to: "35")
        #expect(try store.setting(.reductionPercent) == "35")
        #expect(try store.settingValues().reductionPercent == 35)
    }

    @Test func invalidSettingsAreRefusedAndChangeNothing() throws {
        let store = try BandStore(path: nil)
        try store.set(.reductionPercent, to: "30")
        for (setting, value) in [(BandSetting.reductionPercent, "33"), (.reductionPercent, "45"), (.alertStyle, "loud"),
                                 (.reminderTime, "24:00"), (.bandName, String(repeating: "x", count: 33)), (.retentionDays, "0")] {
            let error = try #require(throws: BandSettingError.self) { try store.set(setting, to: value) }
            #expect(error.setting == setting && error.value == value)
        }
        #expect(try store.setting(.reductionPercent) == "30")
        #expect(try store.setting(.alertStyle) == "firm")
    }

    @Test func renamingTheBandRenamesItsIdentity() throws {
        let store = try BandStore(path: nil)
        let identity = try store.identity(defaultName: "Amble band")
        #expect(identity.name == "Amble band")
        try store.set(.bandName, to: "Left wrist")
        #expect(try store.identity(defaultName: "Amble band") == BandIdentity(id: identity.id, name: "Left wrist"))
    }

    /// What people type is a name; what does not print is not.
    @Test(arguments: ["Ann's band", "Zoë – left wrist", "Band #2 (spare)", "戴在左手", "\"Quoted\" & <b>"])
    func aBandNameIsWhatPeopleType(name: String) throws {
        #expect(try BandSetting.bandName.validate(name) == name)
    }

    @Test(arguments: ["", " ", String(repeating: "x", count: 33), String(repeating: "é", count: 33), "red\u{1B}[31m", "two\nlines", "\u{202E}dnab", "bell\u{07}"])
    func aBandNameThatDoesNotPrintIsRefused(name: String) {
        #expect(throws: BandSettingError.self) { try BandSetting.bandName.validate(name) }
    }

    // MARK: Sync, session data and retention

    /// Records a finished session of `count` seconds; returns its id.
    @Test func markSyncedTakesFinishedSessionsOnlyAndKeepsTheFirstTime() throws {
        let store = try BandStore(path: nil)
        let finished = try recordSession(store, start: 0)
        let open = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 100, parameters: walkParameters())
        #expect(try store.markSynced(id: finished, atUnixSeconds: 500))
        #expect(try store.markSynced(id: finished, atUnixSeconds: 900), "already synced is still fine")
        #expect(try store.markSynced(id: open, atUnixSeconds: 500) == false, "a session under way cannot be synced")
        #expect(try store.markSynced(id: 99, atUnixSeconds: 500) == false)
        #expect(try store.finishedSessions().map(\.syncedUnixSeconds) == [500])
    }

    @Test func sessionDataIsKeptWithItsLengthAndCRC() throws {
        let store = try BandStore(path: nil)
        let a = try recordSession(store, start: 0)
        let b = try recordSession(store, start: 100)
        let c = try recordSession(store, start: 200)
        _ = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 300, parameters: walkParameters())
        #expect(try store.sessionsWithoutData() == [a, b, c], "finished sessions only, oldest first")
        try store.setSessionData(id: b, bytes: [1, 2, 3, 4, 5], crc32: 0xFFFF_FFFF)
        try store.setSessionData(id: c, bytes: [9], crc32: 0x1234_5678)
        #expect(try store.sessionsWithoutData() == [a])
        let data = try #require(try store.sessionData(id: b))
        #expect(data.bytes == [1, 2, 3, 4, 5])
        #expect(data.crc32 == 0xFFFF_FFFF, "the CRC's top bit survives")
        #expect(try store.sessionData(id: a) == nil)
        let sizes = try store.sessionDataSizes(ids: [a, b, c, 42])
        #expect(Set(sizes.keys) == [b, c])
        #expect(sizes[b]?.length == 5)
        #expect(sizes[c]?.length == 1)
        #expect(sizes[c]?.crc32 == 0x1234_5678)
        try store.setSessionData(id: b, bytes: [7, 7], crc32: 2)
        #expect(try store.sessionData(id: b)?.bytes == [7, 7], "set again, replaced")
    }

    @Test func pruneRemovesOldSyncedSessionsOnly() throws {
        let store = try BandStore(path: nil)
        let day = 86_400.0
        let oldSynced = try recordSession(store, start: 0)
        let oldUnsynced = try recordSession(store, start: 100)
        let recentSynced = try recordSession(store, start: 20 * day)
        let open = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 21 * day, parameters: walkParameters())
        try store.appendSecond(sessionID: open, rows(1)[0])
        try store.setSessionData(id: oldSynced, bytes: [1], crc32: 1)
        try store.markSynced(id: oldSynced, atUnixSeconds: 200)
        try store.markSynced(id: recentSynced, atUnixSeconds: 20 * day + 100)
        let removed = try store.prune(nowUnixSeconds: 31 * day, retentionDays: 30)
        #expect(removed == [oldSynced])
        #expect(try store.finishedSessions().map(\.id) == [oldUnsynced, recentSynced])
        #expect(try store.session(id: oldSynced) == nil)
        #expect(try store.sessionData(id: oldSynced) == nil, "its data goes with it")
        #expect(try store.prune(nowUnixSeconds: 1000 * day, retentionDays: 30) == [recentSynced])
        #expect(try store.finishedSessions().map(\.id) == [oldUnsynced], "never synced: kept however old")
        try store.endSession(sessionID: open, summary: SessionTally(rows(1)).summary(
            kind: .mindfulWalk, startUnixSeconds: 21 * day, endUnixSeconds: 21 * day + 1, parameters: walkParameters()))
        #expect(try store.session(id: open)?.seconds.count == 1, "the open session was never touched")
    }

    @Test func pruneBySpaceRemovesTheOldestSyncedFirst() throws {
        let store = try BandStore(path: nil)
        let first = try recordSession(store, start: 0, seconds: 10)
        let unsynced = try recordSession(store, start: 100, seconds: 10)
        let second = try recordSession(store, start: 200, seconds: 10)
        let third = try recordSession(store, start: 300, seconds: 10)
        let open = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 400, parameters: walkParameters())
        for row in rows(10) { try store.appendSecond(sessionID: open, row) }
        for id in [first, second, third] { try store.markSynced(id: id, atUnixSeconds: 500) }
        // 50 seconds stored, at most 35 kept: synced sessions go, oldest first, until 30 are left.
        #expect(try store.prune(nowUnixSeconds: 600, retentionDays: 30, maximumSeconds: 35) == [first, second])
        #expect(try store.finishedSessions().map(\.id) == [unsynced, third])
        #expect(try store.prune(nowUnixSeconds: 600, retentionDays: 30, maximumSeconds: 0) == [third])
        // Nothing synced is left: over the limit, but unsynced and open sessions stay.
        #expect(try store.prune(nowUnixSeconds: 600, retentionDays: 30, maximumSeconds: 0).isEmpty)
        #expect(try store.session(id: unsynced)?.seconds.count == 10)
        let recovered = try store.recoverOpenSessions()
        #expect(recovered == BandStore.Recovery(walksClosed: 1, calibrationsDiscarded: 0))
        #expect(try store.session(id: open)?.seconds.count == 10)
    }

    @Test func deleteEverythingKeepsIdentityAndKeyOnly() throws {
        let store = try BandStore(path: nil)
        let identity = try store.identity(defaultName: "Amble band")
        try store.set(.bandName, to: "Left wrist")
        let key = try store.staticPrivateKey { Array(repeating: 5, count: 32) }
        let session = try recordSession(store, start: 0)
        try store.setSessionData(id: session, bytes: [1], crc32: 1)
        try store.saveCalibration(Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 1))
        try store.set(.alertStyle, to: "silent")
        try store.addPairedLaptop(PairedLaptop(publicKey: Array(repeating: 1, count: 32), name: "work", pairedUnixSeconds: 1))

        try store.deleteEverything()
        #expect(try store.identity(defaultName: "Amble band") == BandIdentity(id: identity.id, name: "Amble band"),
                "same id, the name back to the default")
        #expect(try store.staticPrivateKey { Array(repeating: 6, count: 32) } == key)
        #expect(try store.finishedSessions().isEmpty)
        #expect(try store.session(id: session) == nil)
        #expect(try store.sessionData(id: session) == nil)
        #expect(try store.loadCalibration() == nil)
        #expect(try store.setting(.alertStyle) == "firm")
        #expect(try store.pairedLaptops().isEmpty)
        let next = try recordSession(store, start: 100)
        #expect(next > session, "session ids are never reused")
    }

    @Test func theDatabaseFilesAreTheOwnersOnly() throws {
        let file = TemporaryDatabase()
        let store = try BandStore(path: file.path)
        _ = try store.identity(defaultName: "Amble band")
        try expectOwnerOnly(file.path)
        withExtendedLifetime(store) {}
    }
}


struct BandStorePracticeTests {
    @Test func everyCalibrationIsKeptAndTheLatestIsInUse() throws {
        let store = try BandStore(path: nil)
        #expect(try store.loadCalibration() == nil)
        let first = Calibration(cadenceStepsPerMinute: 108, stepLengthMeters: nil, unixSeconds: 100)
        let second = Calibration(cadenceStepsPerMinute: 112, stepLengthMeters: 0.74, unixSeconds: 200)
        try store.saveCalibration(first)
        try store.saveCalibration(second)
        #expect(try store.calibrations() == [first, second])
        #expect(try store.loadCalibration() == second)
    }

    @Test func aPowerCutClosesWalksAndDiscardsCalibrations() throws {
        let path = NSTemporaryDirectory() + "amble-recovery-\(UUID().uuidString).sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try BandStore(path: path)
            let walk = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 10, parameters: walkParameters())
            for row in rows(20) { try store.appendSecond(sessionID: walk, row) }
            let calibration = try store.beginSession(kind: .calibration, startUnixSeconds: 100, parameters: SessionParameters(stepLengthMeters: 0.7))
            for row in rows(30) { try store.appendSecond(sessionID: calibration, row) }
        }
        let reopened = try BandStore(path: path)
        #expect(reopened.recovery == BandStore.Recovery(walksClosed: 1, calibrationsDiscarded: 1))
        #expect(try reopened.finishedSessions().map(\.summary.kind) == [.mindfulWalk])
        #expect(try reopened.calibrations().isEmpty)
    }

    @Test func aPowerCutKeepsTheStepsTheCounterHeldInTheirSecondsAndTheEnergySoFar() throws {
        let file = TemporaryDatabase()
        let seconds = rows(20)
        do {
            let store = try BandStore(path: file.path)
            let walk = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 10, parameters: walkParameters())
            for (i, row) in seconds.enumerated() {
                // The counter holds the last 5 seconds' steps, 2 a second; the energy grows.
                let held = (max(0, i - 4) ... i).map { StepsAdded(offsetSeconds: $0, steps: 2) }
                try store.appendSecond(sessionID: walk, row, progress: SessionProgress(pendingSteps: held, activeKilocalories: 0.05 * Double(i + 1)))
            }
        }
        let reopened = try BandStore(path: file.path)
        let walk = try #require(try reopened.finishedSessions().first)
        let inRows = seconds.reduce(0) { $0 + $1.steps }
        #expect(walk.summary.steps == inRows + 10, "the rows' \(inRows) steps and the 10 the counter held")
        let stored = try #require(try reopened.session(id: walk.id)).seconds
        #expect(stored.map(\.steps) == seconds.enumerated().map { $0.element.steps + ($0.offset >= 15 ? 2 : 0) }, "in the seconds they were taken in")
        #expect(walk.summary.distanceMeters == Double(inRows + 10) * 0.7)
        #expect(walk.summary.activeKilocalories == 0.05 * 20)
        #expect(walk.summary.durationSeconds == 20)
    }

    @Test func stepsReleasedLateGoToTheirSecondsWithTheNextOneStored() throws {
        let store = try BandStore(path: nil)
        let walk = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 10, parameters: walkParameters())
        let seconds = rows(3)
        try store.appendSecond(sessionID: walk, seconds[0])
        try store.appendSecond(sessionID: walk, seconds[1])
        try store.appendSecond(sessionID: walk, seconds[2], earlier: [StepsAdded(offsetSeconds: 0, steps: 3), StepsAdded(offsetSeconds: 1, steps: 1)])
        let stored = try #require(try store.recoverOpenSessions() == BandStore.Recovery(walksClosed: 1) ? store.session(id: walk) : nil)
        #expect(stored.seconds.map(\.steps) == [seconds[0].steps + 3, seconds[1].steps + 1, seconds[2].steps])
        #expect(stored.summary.steps == seconds.reduce(4) { $0 + $1.steps })
    }

    @Test func aDiscardedSessionLeavesNothing() throws {
        let store = try BandStore(path: nil)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 10, parameters: walkParameters())
        for row in rows(20) { try store.appendSecond(sessionID: id, row) }
        try store.discardSession(sessionID: id)
        #expect(try store.session(id: id) == nil)
        let reopened = try store.recoverOpenSessions()
        #expect(reopened == BandStore.Recovery())
    }

    @Test func pausesAndTheNewTotalsAreStored() throws {
        let store = try BandStore(path: nil)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 10, parameters: walkParameters())
        var seconds = rows(30, overFrom: 20)
        for i in 5 ..< 10 { seconds[i].paused = true; seconds[i].overLimit = false }
        for row in seconds { try store.appendSecond(sessionID: id, row) }
        let summary = SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: 10, endUnixSeconds: 40, parameters: walkParameters())
        try store.endSession(sessionID: id, summary: summary)
        let record = try #require(try store.session(id: id))
        #expect(record.seconds == seconds)
        #expect(record.summary == summary)
        #expect(record.summary.pauses == 1 && record.summary.pausedSeconds == 5)
        #expect(record.summary.maximumHeartRateBPM == 82)
        #expect(record.summary.walkingSeconds == 25)
    }

    @Test func dataOfAnOlderEncodingIsOfferedForEncodingAgain() throws {
        let store = try BandStore(path: nil)
        let a = try recordSession(store, start: 0)
        let b = try recordSession(store, start: 100)
        let c = try recordSession(store, start: 200)
        try store.setSessionData(id: a, bytes: [1, 9, 9], crc32: 1)
        try store.setSessionData(id: b, bytes: [2, 9, 9], crc32: 1)
        #expect(try store.sessionsWithoutData(versions: [2]) == [a, c])
        #expect(try store.sessionsWithoutData() == [c])
    }

    @Test func internalValuesAreNotSettings() throws {
        let store = try BandStore(path: nil)
        try store.setInternalValue("reminder", "{}")
        #expect(try store.internalValue("reminder") == "{}")
        #expect(try store.settings().count == BandSetting.allCases.count)
        try store.setInternalValue("reminder", nil)
        #expect(try store.internalValue("reminder") == nil)
    }
}
