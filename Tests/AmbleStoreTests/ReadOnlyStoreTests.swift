@testable import AmbleCompanionStore
@testable import AmbleStoreSupport
import AmbleModel
import Foundation
import Testing

/// Reading a store without writing anything beside it (docs/robustness.md): no WAL index is
/// made when no other connection is open and no log holds data, and a writer that opens
/// meanwhile keeps its log until the reader is done. A store the user may not write is read
/// as another user in FileAccessTests.
struct ReadOnlyStoreTests {
    let folder = NSTemporaryDirectory() + "amble-read-\(UUID().uuidString)"
    var path: String { folder + "/amble.sqlite" }

    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    func walk(_ store: CompanionStore, _ bandSessionID: Int64) throws {
        let seconds = (0 ..< 30).map { SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: 100) }
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        let summary = SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: 1_767_225_600, endUnixSeconds: 1_767_225_630, parameters: parameters)
        _ = try store.insert(bandID: "band-1", bandName: "Band", bandSessionID: bandSessionID, record: SessionRecord(summary: summary, seconds: seconds),
                             syncedAtUnixSeconds: 1_767_230_000)
    }

    /// A read-only connection made the WAL index (`-shm`) and an empty `-wal` beside the store
    /// and, unable to remove them, left them there after every review.
    @Test func aReviewWritesNothingBesideTheStore() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try walk(try CompanionStore(path: path), 1)
        #expect(try listing() == ["amble.sqlite"])
        do {
            let reader = try CompanionStore(readingOnly: path)
            #expect(try reader.sessions().count == 1)
            #expect(try listing() == ["amble.sqlite"], "nothing made while it reads")
        }
        #expect(try listing() == ["amble.sqlite"])
    }

    @Test func aWriterThatOpensDuringAReviewKeepsItsLogTillTheReviewEnds() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try walk(try CompanionStore(path: path), 1)
        let reader = try CompanionStore(readingOnly: path)
        try walk(try CompanionStore(path: path), 2)   // opened, written and closed during the review
        let log = try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)
        #expect(log.intValue > 0, "the writer could not fold its log into the file under the reader")
        #expect(try reader.sessions().map(\.bandSessionID) == [1], "the review reads the store as it found it")
        #expect(try CompanionStore(readingOnly: path).sessions().map(\.bandSessionID) == [1, 2], "the next review reads the log")
    }

    @Test func theLockTellsWhetherAnotherConnectionIsOpen() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try walk(try CompanionStore(path: path), 1)
        let reviewer = try #require(StoreReadLock(path: path))
        #expect(reviewer.otherConnectionsAreOpen == false)
        #expect(try #require(StoreReadLock(path: path)).otherConnectionsAreOpen == false, "another reviewer does not count")
        let writer = try CompanionStore(path: path)
        #expect(try #require(StoreReadLock(path: path)).otherConnectionsAreOpen, "a connection of this process counts")
        #expect(try CompanionStore(readingOnly: path).sessions().count == 1, "read through the writer's index")
        withExtendedLifetime(writer) {}
    }
}
