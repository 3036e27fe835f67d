import AmbleCompanionStore
import AmbleModel
import Foundation
import Testing

struct CompanionStoreTests {
    func record(start: Double, kind: SessionKind = .mindfulWalk) -> SessionRecord {
        let seconds = rows(30, overFrom: 20)
        let summary = SessionTally(seconds).summary(kind: kind, startUnixSeconds: start, endUnixSeconds: start + 30, parameters: walkParameters())
        return SessionRecord(summary: summary, seconds: seconds)
    }

    @Test func storesASessionOnceOnly() throws {
        let store = try CompanionStore(path: nil)
        let first = try store.insert(bandID: "band-a", bandName: "A", bandSessionID: 7, record: record(start: 100), syncedAtUnixSeconds: 1)
        #expect(first != nil)
        let again = try store.insert(bandID: "band-a", bandName: "A", bandSessionID: 7, record: record(start: 100), syncedAtUnixSeconds: 2)
        #expect(again == nil)
        #expect(try store.sessions().count == 1)
        #expect(try store.storedBandSessionIDs(bandID: "band-a") == [7])
    }

    @Test func keepsSessionsOfSeveralBandsApart() throws {
        let store = try CompanionStore(path: nil)
        try store.insert(bandID: "band-a", bandName: "A", bandSessionID: 1, record: record(start: 300), syncedAtUnixSeconds: 1)
        try store.insert(bandID: "band-b", bandName: "B", bandSessionID: 1, record: record(start: 100), syncedAtUnixSeconds: 1)
        try store.insert(bandID: "band-b", bandName: "B", bandSessionID: 2, record: record(start: 200, kind: .calibration), syncedAtUnixSeconds: 1)
        let sessions = try store.sessions()
        #expect(sessions.map(\.bandName) == ["B", "B", "A"], "oldest first")
        #expect(try store.storedBandSessionIDs(bandID: "band-b") == [1, 2])
        let latest = try #require(try store.latestSessionID())
        let (session, seconds) = try #require(try store.session(id: latest))
        #expect(session.bandID == "band-a")
        #expect(seconds == record(start: 300).seconds)
        #expect(session.summary == record(start: 300).summary)
    }

    @Test func emptyStoreHasNoLatest() throws {
        let store = try CompanionStore(path: nil)
        #expect(try store.latestSessionID() == nil)
        #expect(try store.session(id: 1) == nil)
    }
}
