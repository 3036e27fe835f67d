import AmbleBandStore
import AmbleModel
import Foundation
import Testing

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
            try store.saveReductionPercent(25)
            identity = try store.identity(defaultName: "Test band")
        }
        let store = try BandStore(path: path)
        #expect(try store.loadCalibration() == calibration)
        #expect(try store.loadReductionPercent() == 25)
        #expect(try store.identity(defaultName: "Other name") == identity)
    }

    @Test func refusesASecondRowForTheSameSecond() throws {
        let store = try BandStore(path: nil)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 0, parameters: walkParameters())
        try store.appendSecond(sessionID: id, rows(1)[0])
        #expect(throws: (any Error).self) { try store.appendSecond(sessionID: id, rows(1)[0]) }
    }
}
