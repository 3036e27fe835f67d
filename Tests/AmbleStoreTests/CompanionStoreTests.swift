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

    func key(_ byte: UInt8) -> [UInt8] { Array(repeating: byte, count: 32) }

    // MARK: Sessions

    @Test func storesASessionOnceOnly() throws {
        let store = try CompanionStore(path: nil)
        let first = try store.insert(bandID: "band-a", bandName: "A", bandSessionID: 7, record: record(start: 100), syncedAtUnixSeconds: 1)
        #expect(first != nil)
        let again = try store.insert(bandID: "band-a", bandName: "A", bandSessionID: 7, record: record(start: 100), syncedAtUnixSeconds: 2)
        #expect(again == nil)
        #expect(try store.sessions().count == 1)
        #expect(try store.storedBandSessionIDs(bandID: "band-a") == [7])
        #expect(try store.session(id: try #require(first))?.1.count == 30, "the seconds are stored once")
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

    @Test func aSessionTakesTheBandsLatestName() throws {
        let store = try CompanionStore(path: nil)
        try store.insert(bandID: "band-a", bandName: "Old name", bandSessionID: 1, record: record(start: 100), syncedAtUnixSeconds: 1)
        try store.insert(bandID: "band-a", bandName: "New name", bandSessionID: 2, record: record(start: 200), syncedAtUnixSeconds: 2)
        #expect(try store.sessions().map(\.bandName) == ["New name", "New name"])
    }

    // MARK: Pairing

    @Test func laptopKeyIsMadeOnceThenKept() throws {
        let file = TemporaryDatabase()
        var made = 0
        let first = try CompanionStore(path: file.path).laptopPrivateKey { made += 1; return key(1) }
        let second = try CompanionStore(path: file.path).laptopPrivateKey { made += 1; return key(2) }
        #expect(first == key(1))
        #expect(second == key(1), "the key survives reopening")
        #expect(made == 1)
        let store = try CompanionStore(path: nil)
        #expect(throws: CompanionStoreError.keyLength(31)) { try store.laptopPrivateKey { Array(repeating: 1, count: 31) } }
    }

    @Test func pairingRePairingAndUnpairingKeepSessions() throws {
        let store = try CompanionStore(path: nil)
        try store.insert(bandID: "band-a", bandName: "Left", bandSessionID: 1, record: record(start: 100), syncedAtUnixSeconds: 50)
        try store.pairBand(id: "band-a", name: "Left", publicKey: key(1), address: "127.0.0.1:7070", nowUnixSeconds: 60)
        #expect(try store.pairedBands() == [PairedBand(id: "band-a", name: "Left", publicKey: key(1), address: "127.0.0.1:7070",
                                                       pairedUnixSeconds: 60, lastSyncUnixSeconds: 50, sessionCount: 1)])

        try store.pairBand(id: "band-a", name: "Left wrist", publicKey: key(2), address: nil, nowUnixSeconds: 70)
        let repaired = try #require(try store.pairedBands().first)
        #expect(repaired.publicKey == key(2), "the new key replaces the old")
        #expect(repaired.name == "Left wrist")
        #expect(repaired.address == "127.0.0.1:7070", "no address given: the last one stays")
        #expect(repaired.pairedUnixSeconds == 70)
        #expect(repaired.sessionCount == 1)

        #expect(try store.unpair(bandID: "band-a"))
        #expect(try store.pairedBands().isEmpty)
        #expect(try store.band(matching: "band-a") == nil, "an unpaired band is not offered")
        #expect(try store.unpair(bandID: "band-a") == false, "already unpaired")
        #expect(try store.unpair(bandID: "band-z") == false)
        #expect(try store.sessions().map(\.bandID) == ["band-a"], "sessions stay")
        #expect(try store.storedBandSessionIDs(bandID: "band-a") == [1])
    }

    @Test func pairedBandsAreThoseWithAKeyByName() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "id-z", name: "zed", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        try store.pairBand(id: "id-b", name: "Bravo", publicKey: key(2), address: nil, nowUnixSeconds: 2)
        try store.markSynced(bandID: "id-a", bandName: "Alpha", nowUnixSeconds: 3)
        #expect(try store.pairedBands().map(\.name) == ["Bravo", "zed"])
        #expect(throws: CompanionStoreError.keyLength(0)) {
            try store.pairBand(id: "id-c", name: "Charlie", publicKey: [], address: nil, nowUnixSeconds: 4)
        }
        #expect(try store.pairedBands().count == 2)
    }

    @Test func aBandIsFoundByIDPrefixOrName() throws {
        let store = try CompanionStore(path: nil)
        let left = "0b6c8a52-5d0e-4a3c-9f1e-2f4a8d7c6e10", right = "0b6c9f10-1111-4a3c-9f1e-2f4a8d7c6e10"
        try store.pairBand(id: left, name: "Left", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        try store.pairBand(id: right, name: "Right", publicKey: key(2), address: nil, nowUnixSeconds: 1)
        #expect(try store.band(matching: left)?.name == "Left", "exact id")
        #expect(try store.band(matching: "0b6c8a")?.name == "Left", "unique prefix")
        #expect(try store.band(matching: "0B6C9F")?.name == "Right", "prefix in any case")
        #expect(try store.band(matching: "rIGHT")?.id == right, "name in any case")
        try store.pairBand(id: "e46f0c21-7a3b-4c2d-8e9f-0a1b2c3d4e5f", name: "Wrist", publicKey: key(3), address: nil, nowUnixSeconds: 1)
        #expect(try store.band(matching: "e46")?.name == "Wrist", "any unambiguous start of the id, even short")
        #expect(try store.band(matching: "E")?.name == "Wrist")
        #expect(throws: CompanionStoreError.self, "a start several ids share") { try store.band(matching: "0b6") }
        #expect(try store.band(matching: "") == nil)
        #expect(try store.band(matching: "Middle") == nil)
        #expect(try store.band(matching: "2f4a8d7c6e10") == nil, "only a prefix of the id")

        let error = try #require(throws: CompanionStoreError.self) { try store.band(matching: "0b6c") }
        guard case let .ambiguous(text, candidates) = error else { Issue.record("\(error)"); return }
        #expect(text == "0b6c")
        #expect(Set(candidates.map(\.id)) == [left, right])
        #expect(error.description.hasPrefix("several bands match '0b6c': "))
        #expect(error.description.contains("Left (id 0b6c8a52…)"))
        #expect(error.description.contains("Right (id 0b6c9f10…)"))
        #expect(error.description.hasSuffix("; give more of the id"))
    }

    @Test func twoBandsWithOneNameAreAmbiguous() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "aaaa-1", name: "Band", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        try store.pairBand(id: "aaaa-2", name: "band", publicKey: key(2), address: nil, nowUnixSeconds: 1)
        #expect(throws: CompanionStoreError.self) { try store.band(matching: "BAND") }
        let error = try #require(throws: CompanionStoreError.self) { try store.band(matching: "aaaa") }
        #expect(error.description.contains("(id aaaa-1)"), "ids too short to cut are shown whole: \(error)")
        #expect(try store.band(matching: "aaaa-2")?.name == "band", "an exact id wins")
    }

    @Test func addressIsKeptPerBand() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "band-a", name: "A", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        #expect(try store.pairedBands().first?.address == nil)
        try store.setAddress(bandID: "band-a", address: "/dev/ttyUSB0")
        #expect(try store.pairedBands().first?.address == "/dev/ttyUSB0")
        #expect(throws: CompanionStoreError.unknownBand("band-z")) { try store.setAddress(bandID: "band-z", address: "x") }
    }

    // MARK: Sync

    @Test func syncCursorNeverMovesBackwards() throws {
        let store = try CompanionStore(path: nil)
        #expect(try store.syncCursor(bandID: "band-a") == 0)
        try store.markSynced(bandID: "band-a", bandName: "A", nowUnixSeconds: 1)
        #expect(try store.syncCursor(bandID: "band-a") == 0)
        try store.setSyncCursor(bandID: "band-a", 12)
        #expect(try store.syncCursor(bandID: "band-a") == 12)
        try store.setSyncCursor(bandID: "band-a", 5)
        #expect(try store.syncCursor(bandID: "band-a") == 12)
        try store.setSyncCursor(bandID: "band-a", 13)
        #expect(try store.syncCursor(bandID: "band-a") == 13)
        #expect(throws: CompanionStoreError.unknownBand("band-z")) { try store.setSyncCursor(bandID: "band-z", 1) }
        try store.pairBand(id: "band-a", name: "A", publicKey: key(1), address: nil, nowUnixSeconds: 2)
        try store.unpair(bandID: "band-a")
        #expect(try store.syncCursor(bandID: "band-a") == 13, "pairing and unpairing keep the cursor")
    }

    @Test func markSyncedRecordsTheTimeAndKeepsThePairing() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "band-a", name: "A", publicKey: key(1), address: "h:1", nowUnixSeconds: 10)
        #expect(try store.pairedBands().first?.lastSyncUnixSeconds == nil)
        try store.markSynced(bandID: "band-a", bandName: "Renamed", nowUnixSeconds: 20)
        let band = try #require(try store.pairedBands().first)
        #expect(band.lastSyncUnixSeconds == 20)
        #expect(band.name == "Renamed")
        #expect(band.publicKey == key(1))
        #expect(band.address == "h:1")
    }

    @Test func partialDownloadRoundTripsAndIsReplaced() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "band-a", name: "A", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == nil)
        let first = PartialDownload(totalLength: 1000, crc32: 0xDEAD_BEEF, bytes: Array(0..<200).map { UInt8($0) })
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 4, first)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == first)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 5) == nil)
        let more = PartialDownload(totalLength: 1000, crc32: 0xDEAD_BEEF, bytes: Array(repeating: 9, count: 1000))
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 4, more)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == more)
        let none = PartialDownload(totalLength: 10, crc32: 0, bytes: [])
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 6, none)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 6) == none)
        try store.discardPartialDownload(bandID: "band-a", bandSessionID: 4)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == nil)
    }

    @Test func aPartialDownloadLongerThanItsSessionIsRefused() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "band-a", name: "A", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        let kept = PartialDownload(totalLength: 3, crc32: 1, bytes: [1, 2])
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 4, kept)
        let tooLong = PartialDownload(totalLength: 3, crc32: 1, bytes: [1, 2, 3, 4])
        let error = try #require(throws: CompanionStoreError.self) {
            try store.savePartialDownload(bandID: "band-a", bandSessionID: 4, tooLong)
        }
        #expect(error == .partialDownloadTooLong(bandID: "band-a", bandSessionID: 4, received: 4, totalLength: 3))
        #expect(error.description.contains("4 bytes received for a length of 3"))
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == kept, "a refused save changes nothing")
        #expect(throws: CompanionStoreError.unknownBand("band-z")) {
            try store.savePartialDownload(bandID: "band-z", bandSessionID: 1, kept)
        }
    }

    @Test func storingASessionRemovesItsPartialDownload() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "band-a", name: "A", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        let partial = PartialDownload(totalLength: 10, crc32: 7, bytes: [1, 2, 3])
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 4, partial)
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 5, partial)
        #expect(try store.insert(bandID: "band-a", bandName: "A", bandSessionID: 4, record: record(start: 1), syncedAtUnixSeconds: 2) != nil)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == nil)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 5) == partial, "other sessions' parts stay")
        // A part left beside a session already stored goes too.
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 4, partial)
        #expect(try store.insert(bandID: "band-a", bandName: "A", bandSessionID: 4, record: record(start: 1), syncedAtUnixSeconds: 3) == nil)
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == nil)
        #expect(try store.pairedBands().first?.lastSyncUnixSeconds == 3)
    }

    @Test func unpairingDropsPartialDownloads() throws {
        let store = try CompanionStore(path: nil)
        try store.pairBand(id: "band-a", name: "A", publicKey: key(1), address: nil, nowUnixSeconds: 1)
        try store.savePartialDownload(bandID: "band-a", bandSessionID: 4, PartialDownload(totalLength: 10, crc32: 7, bytes: [1]))
        try store.unpair(bandID: "band-a")
        #expect(try store.partialDownload(bandID: "band-a", bandSessionID: 4) == nil)
    }

    // MARK: Files

    @Test func theDatabaseFilesAreTheOwnersOnly() throws {
        let file = TemporaryDatabase()
        let store = try CompanionStore(path: file.path)
        _ = try store.laptopPrivateKey { key(1) }
        try expectOwnerOnly(file.path)
        withExtendedLifetime(store) {}
    }
}

/// The database file and its WAL and shared-memory files exist and are mode 0600.
func expectOwnerOnly(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for suffix in ["", "-wal", "-shm"] {
        let attributes = try FileManager.default.attributesOfItem(atPath: path + suffix)
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600, "\(path + suffix): mode \(String(mode ?? -1, radix: 8))", sourceLocation: sourceLocation)
    }
}
