import AmbleBandStore
import AmbleModel
import AmbleStoreSupport
import Foundation
import AmbleSQLite
import Testing

struct BandStoreIntegrityTests {
    @Test func aStoreAtItsSizeLimitStillReadsAndChangesInPlaceAndRefusesOnlyToGrow() throws {
        let file = TemporaryDatabase()
        let synced: Int64
        do {
            let store = try BandStore(path: file.path)
            synced = try recordSession(store, start: 1000, seconds: 3000)
        }
        try DatabaseQueue(path: file.path).vacuum()   // no free page left
        let store = try BandStore(path: file.path, maximumBytes: 4096)   // below its size: it may not grow at all
        #expect(try store.session(id: synced)?.seconds.count == 3000)
        #expect(try store.markSynced(id: synced, atUnixSeconds: 5000), "a change in place needs no room")
        let walk = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 6000, parameters: walkParameters())
        let refused = #expect(throws: (any Error).self) { try store.appendSeconds(sessionID: walk, rows(600)) }
        #expect(refused.map(isStoreFullError) == true, "\(String(describing: refused))")
        #expect(refused.map(errorSentence)?.contains("the disk is full") == true)
        #expect(try store.session(id: walk)?.seconds.isEmpty != false, "all or none")

        // Room is made by removing the synced session; then the seconds go in.
        #expect(try store.prune(nowUnixSeconds: 7000, retentionDays: 30, maximumSeconds: 0) == [synced])
        try store.appendSeconds(sessionID: walk, rows(600))
        #expect(try store.recordedSeconds() == 600)
    }

    @Test func theDataCheckFindsSessionDataThatNoLongerMatchesItsChecksum() throws {
        let store = try BandStore(path: nil)
        let ids = try [1000.0, 2000, 3000].map { try recordSession(store, start: $0) }
        let checksum: ([UInt8]) -> UInt32 = { $0.reduce(0) { $0 &* 31 &+ UInt32($1) } }
        for id in ids {
            let bytes: [UInt8] = [2, 9, 9, UInt8(id)]
            try store.setSessionData(id: id, bytes: bytes, crc32: checksum(bytes))
        }
        #expect(try store.sessionsWithDamagedData(checksum: checksum).isEmpty)
        #expect(try store.quickCheck().isEmpty)
        try store.setSessionData(id: ids[1], bytes: [2, 9, 8, UInt8(ids[1])], crc32: checksum([2, 9, 9, UInt8(ids[1])]))
        #expect(try store.sessionsWithDamagedData(checksum: checksum) == [ids[1]])
    }
}
