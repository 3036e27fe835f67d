import AmbleBandStore
import AmbleCompanionStore
import AmbleModel
import AmbleStoreSupport
import Foundation
import AmbleSQLite
import Testing

/// Raw sensor samples in both stores: kept exactly (in their fixed point), in order, deleted
/// with their session, and refused when out of range.
struct RawBlockStoreTests {
    static let acceleration = RawBlock(sensor: .accelerometer, startMilliseconds: 20, rateMillihertz: 50_000, channels: 3,
                                       values: [12, -980, 150, 32_767, -32_768, 0, -1, 1, 1000])
    static let ppg = RawBlock(sensor: .ppg, startMilliseconds: 15, rateMillihertz: 100_000, channels: 2,
                              values: [262_143, 0, 120_000, 98_765, 120_010, 98_760])

    @Test func theBandKeepsRawBlocksWithItsSessionAndEncodesThem() throws {
        let store = try BandStore(path: nil)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 1000, parameters: walkParameters())
        try store.appendRawBlocks(sessionID: id, [Self.acceleration, Self.ppg])
        var later = Self.acceleration
        later.startMilliseconds = 5020
        try store.appendRawBlocks(sessionID: id, [later])
        for row in rows(10) { try store.appendSecond(sessionID: id, row) }
        try store.endSession(sessionID: id, summary: SessionTally(rows(10)).summary(kind: .mindfulWalk, startUnixSeconds: 1000, endUnixSeconds: 1010, parameters: walkParameters()))
        let record = try #require(try store.session(id: id))
        #expect(record.raw == [Self.acceleration, Self.ppg, later], "exactly, in the order added")
        let counts = try store.rawCounts(sessionID: id)
        #expect(counts.samples == [.accelerometer: 6, .ppg: 3])
        #expect(counts.bytes == 6 * 6 + 3 * 8, "6 bytes an accelerometer sample, 4 a PPG value")
    }

    @Test func discardedPrunedAndWipedSessionsLeaveNoRawBlocks() throws {
        let store = try BandStore(path: nil)
        // Discarded while recording.
        let discarded = try store.beginSession(kind: .calibration, startUnixSeconds: 1000, parameters: walkParameters())
        try store.appendRawBlocks(sessionID: discarded, [Self.acceleration])
        try store.discardSession(sessionID: discarded)
        #expect(try store.rawCounts(sessionID: discarded).samples.isEmpty)
        // Pruned once synced and old.
        let pruned = try recordSession(store, start: 0)
        try store.appendRawBlocks(sessionID: pruned, [Self.acceleration, Self.ppg])
        try store.markSynced(id: pruned, atUnixSeconds: 100)
        #expect(try store.prune(nowUnixSeconds: 100 * 86_400, retentionDays: 30) == [pruned])
        #expect(try store.rawCounts(sessionID: pruned).samples.isEmpty)
        // Wiped.
        let kept = try recordSession(store, start: 200)
        try store.appendRawBlocks(sessionID: kept, [Self.ppg])
        try store.deleteEverything()
        #expect(try store.rawCounts(sessionID: kept).samples.isEmpty)
    }

    @Test func blocksOutOfRangeAreRefused() throws {
        let store = try BandStore(path: nil)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: 1000, parameters: walkParameters())
        var bad = [Self.acceleration, Self.acceleration, Self.acceleration, Self.ppg, Self.ppg]
        bad[0].values.append(1)                       // not whole samples
        bad[1].values[0] = 40_000                     // beyond 16 bits of mg
        bad[2].rateMillihertz = 0
        bad[3].values[0] = -1                         // a negative count
        bad[4].channels = 4
        for block in bad {
            #expect(throws: RawBlockError.self) { try store.appendRawBlocks(sessionID: id, [block]) }
        }
        #expect(try store.rawCounts(sessionID: id).samples.isEmpty)
        // A row that does not match its length is refused by the schema itself.
        #expect(RawBlockTable.pack(Self.acceleration).count == 18 && RawBlockTable.pack(Self.ppg).count == 24)
    }

    @Test func theLaptopKeepsRawBlocksWithTheSyncedSession() throws {
        let store = try CompanionStore(path: nil)
        let seconds = rows(10)
        let summary = SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: 1000, endUnixSeconds: 1010, parameters: walkParameters())
        let id = try #require(try store.insert(bandID: "b1", bandName: "Band", bandSessionID: 1,
                                               record: SessionRecord(summary: summary, seconds: seconds, raw: [Self.acceleration, Self.ppg]),
                                               syncedAtUnixSeconds: 0))
        #expect(try store.rawBlocks(sessionID: id) == [Self.acceleration, Self.ppg])
        #expect(try store.rawSampleCounts(sessionID: id) == [.accelerometer: 3, .ppg: 3])
        let plain = try #require(try store.insert(bandID: "b1", bandName: "Band", bandSessionID: 2,
                                                  record: SessionRecord(summary: summary, seconds: seconds), syncedAtUnixSeconds: 0))
        #expect(try store.rawBlocks(sessionID: plain).isEmpty)
        #expect(try store.rawSampleCounts(sessionID: plain).isEmpty)
    }
}
