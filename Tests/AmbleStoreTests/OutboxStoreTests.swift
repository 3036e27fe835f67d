import AmbleCompanionStore
import AmbleModel
import Foundation
import Testing

/// The outbox of a study server in the laptop's store: what is queued, once, and when it leaves.
struct OutboxStoreTests {
    static let accepted = 1_000.0

    func record(start: Double) -> SessionRecord {
        let seconds = rows(30)
        return SessionRecord(summary: SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + 30,
                                                                    parameters: walkParameters()), seconds: seconds)
    }

    func id(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 32 - hex.count) + hex
    }

    func item(_ n: Int, kind: OutboxKind = .answer, at: Double = 1_100) -> OutboxItem {
        OutboxItem(itemID: id(n), kind: kind, body: Array("{\"n\":\(n)}".utf8), sha256: String(repeating: "a", count: 64), createdUnixSeconds: at)
    }

    func joined() throws -> CompanionStore {
        let store = try CompanionStore(path: nil)
        let server = StudyServerEnrollment(baseURL: "https://127.0.0.1:8443", fingerprint: String(repeating: "b", count: 64), participantID: "p-1",
                                           studyID: "s-1", consentVersion: "1", consentSHA256: String(repeating: "c", count: 64),
                                           acceptedUnixSeconds: Self.accepted, bandSettings: ["metronome": "on"], refreshToken: "r1",
                                           accessToken: "a1", accessExpiresUnixSeconds: 2_000)
        try store.joinStudyServer(server, studyName: "Walks", fileText: "name = \"Walks\"", consentEvent: item(0, kind: .consent, at: Self.accepted))
        return store
    }

    func session(_ n: Int) -> OutboxSessionItem {
        OutboxSessionItem(itemID: id(100 + n), body: [3, UInt8(n)], sha256: String(repeating: "d", count: 64))
    }

    @Test func aSessionIsQueuedOnceWithTheBandsBytesOnlyWhenAServerStudyIsJoined() throws {
        let plain = try CompanionStore(path: nil)
        try plain.insert(bandID: "b", bandName: "B", bandSessionID: 1, record: record(start: 1_200), syncedAtUnixSeconds: 1_300, outbox: session(1))
        #expect(try plain.outboxItems().isEmpty, "no server study: nothing queued")

        let store = try joined()
        try store.insert(bandID: "b", bandName: "B", bandSessionID: 1, record: record(start: 1_200), syncedAtUnixSeconds: 1_300, outbox: session(1))
        try store.insert(bandID: "b", bandName: "B", bandSessionID: 1, record: record(start: 1_200), syncedAtUnixSeconds: 1_400, outbox: session(2))
        try store.insert(bandID: "b", bandName: "B", bandSessionID: 2, record: record(start: 900), syncedAtUnixSeconds: 1_400, outbox: session(3))
        let sessions = try store.outboxItems().filter { $0.kind == .session }
        #expect(sessions.map(\.itemID) == [id(101)], "stored again: not queued again; started before consent: not queued")
        #expect(sessions.first?.body == [3, 1] && sessions.first?.bandSessionID == 1)
        // The same band session under another item id is refused by the unique key.
        #expect(try store.enqueue(OutboxItem(itemID: id(999), kind: .session, body: [9], sha256: String(repeating: "e", count: 64),
                                             bandID: "b", bandSessionID: 1, createdUnixSeconds: 1_500)) == false)
        #expect(try store.outboxItems().filter { $0.kind == .session }.count == 1)
        #expect(throws: (any Error).self, "a malformed id is an error, not passed over") {
            try store.enqueue(OutboxItem(itemID: "not-hex", kind: .answer, body: [], sha256: String(repeating: "e", count: 64), createdUnixSeconds: 1))
        }
    }

    @Test func anItemLeavesOnlyWhenAcknowledgedAndAHeldOneIsNotDueByItself() throws {
        let store = try joined()
        for n in 1 ... 3 { try store.enqueue(item(n)) }
        #expect(try store.outboxItemsDue(nowUnixSeconds: 1_200).map(\.itemID) == [id(0), id(1), id(2), id(3)])
        try store.acknowledgeOutboxItem(id(1), nowUnixSeconds: 1_210)
        try store.recordOutboxFailure(id(2), error: "cut", nextAttemptUnixSeconds: 1_300, held: nil)
        try store.recordOutboxFailure(id(3), error: "409", nextAttemptUnixSeconds: 1_220, held: "conflict")
        #expect(try store.outboxItemsDue(nowUnixSeconds: 1_250).map(\.itemID) == [id(0)])
        #expect(try store.outboxItemsDue(nowUnixSeconds: 1_300).map(\.itemID) == [id(0), id(2)])
        #expect(try store.outboxItemsDue(nowUnixSeconds: 1_300, includeHeld: true).map(\.itemID) == [id(0), id(2), id(3)])
        let summary = try store.outboxSummary()
        #expect(summary.waiting == [.consent: 1, .answer: 2] && summary.held == ["conflict": 1] && summary.acknowledged == 1)
        #expect(summary.oldestWaitingUnixSeconds == Self.accepted)
        #expect(try store.studyServer()?.lastUploadUnixSeconds == 1_210)
        try store.recordOutboxFailure(id(1), error: "late", nextAttemptUnixSeconds: 9_999, held: nil)
        #expect(try store.outboxItems().first { $0.itemID == id(1) }?.attempts == 0, "an acknowledged item is not touched again")
    }

    @Test func answersAreQueuedWithTheirSubmissionAndWithdrawalDropsWhatWaits() throws {
        let store = try joined()
        try store.submitStudyAnswers([StudyAnswer(questionnaire: "q", period: "start", item: "a", value: "1", answeredUnixSeconds: 1_100)],
                                     questionnaire: "q", period: "start", sessionID: nil, nowUnixSeconds: 1_100, answerSheet: item(7))
        #expect(throws: StudyStoreError.self) {
            try store.submitStudyAnswers([], questionnaire: "q", period: "start", sessionID: nil, nowUnixSeconds: 1_150, answerSheet: item(8))
        }
        #expect(try store.outboxItems().map(\.itemID) == [id(0), id(7)], "a refused submission queues nothing")
        try store.acknowledgeOutboxItem(id(0), nowUnixSeconds: 1_200)
        #expect(try store.withdrawFromStudyServer(nowUnixSeconds: 1_300) == [.answer: 1])
        let server = try #require(try store.studyServer())
        #expect(server.refreshToken == nil && server.accessToken == nil && server.withdrawnUnixSeconds == 1_300)
        #expect(try store.outboxItems().map(\.itemID) == [id(0)], "what was acknowledged stays as a record")
        #expect(try store.studyEnrollment()?.leftUnixSeconds == 1_300)
        try store.insert(bandID: "b", bandName: "B", bandSessionID: 5, record: record(start: 1_400), syncedAtUnixSeconds: 1_500, outbox: session(5))
        #expect(try store.outboxItems().count == 1, "nothing is queued after withdrawal")
    }

    @Test func theArmsBandSettingsAreAppliedOncePerBand() throws {
        let store = try joined()
        try store.markSynced(bandID: "b", bandName: "B", nowUnixSeconds: 1_100)
        #expect(try store.bandSettingsToApply(bandID: "b") == ["metronome": "on"])
        try store.markBandSettingsApplied(bandID: "b", ["metronome": "on"], nowUnixSeconds: 1_200)
        #expect(try store.bandSettingsToApply(bandID: "b") == nil)
    }
}
