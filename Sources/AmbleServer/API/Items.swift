#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleCompanion
import AmbleModel
import AmbleStudyAPI
import AmbleSync
import HTTPTypes
import Hummingbird
import PostgresNIO

/// An uploaded item, checked and decoded: what it is, when it happened, and for a session the
/// summary the dashboard reads.
struct CheckedItem: Sendable {
    var kind: ItemKind
    var id: String
    var bytes: [UInt8]
    var sha256: String
    /// When it happened (seconds since 1970): a session's start, an answer's or consent event's time.
    var startsAt: Double
    var endsAt: Double
    var session: SessionSummary?
    /// An answer sheet's period of the study rules, when the laptop sent one.
    var period: String?

    /// Checks the id, the digest and that the bytes decode as their kind says; nothing is stored
    /// before this has passed.
    static func check(kind kindText: String, id: String, bytes: [UInt8], digest: String?) throws -> CheckedItem {
        guard let kind = ItemKind(rawValue: kindText) else {
            throw ServerError(.notFound, "unknown_kind", "There is no item kind \(printableText(kindText)); the kinds are " + ItemKind.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        guard StudyAPILimits.isItemID(id) else {
            throw ServerError.badRequest("bad_item_id", "An item id is 32 lowercase hex characters made on the laptop; \(printableText(id)) is not one.")
        }
        guard let digest else {
            throw ServerError.badRequest("missing_digest", "Send the body's SHA-256 (64 lowercase hex characters) in the \(StudyAPI.digestHeader) header.")
        }
        let sha256 = Digest.sha256Hex(bytes)
        guard digest.lowercased() == sha256 else {
            throw ServerError.badRequest("digest_mismatch", "The body's SHA-256 is not the one in \(StudyAPI.digestHeader): it was damaged on the way; send it again. Nothing was stored.")
        }
        var item = CheckedItem(kind: kind, id: id, bytes: bytes, sha256: sha256, startsAt: 0, endsAt: 0)
        switch kind {
        case .session:
            let record: SessionRecord
            do {
                record = try SessionCoding.decode(bytes)
            } catch {
                throw ServerError.badRequest("malformed_session", "The body is not a session in the band's encoding (\(printableText(error.description, maximum: 120))). Nothing was stored.")
            }
            item.startsAt = record.summary.startUnixSeconds
            item.endsAt = record.summary.endUnixSeconds
            item.session = record.summary
        case .answer:
            let answer = try decodeJSON(AnswerItem.self, bytes, kind: kind)
            item.startsAt = answer.answeredAt
            item.endsAt = answer.answeredAt
            if let period = answer.period {
                guard StudyRules.isPeriod(period) else {
                    throw ServerError.badRequest("bad_period", "period \(printableText(period, maximum: 80)) is not a period of the study rules (start, end, day:YYYY-MM-DD, before:since-start, before:since-ID, after:ID). Nothing was stored.")
                }
                item.period = period
            }
        case .consent:
            let consent = try decodeJSON(ConsentItem.self, bytes, kind: kind)
            item.startsAt = consent.at
            item.endsAt = consent.at
        }
        guard item.startsAt.isFinite, item.endsAt.isFinite, item.endsAt >= item.startsAt,
              abs(item.startsAt) < 1e11, abs(item.endsAt) < 1e11 else {
            throw ServerError.badRequest("bad_time", "The item's times are not times (seconds since 1970); nothing was stored.")
        }
        return item
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], kind: ItemKind) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw ServerError.badRequest("malformed_\(kind.rawValue)", "The body is not a JSON \(kind.rawValue) item (\(JSONBody.printableError(error))). Nothing was stored.")
        }
    }
}

extension StudyServer {
    /// `PUT /v1/items/{kind}/{id}`: idempotent. 201 when stored now, 200 when these very bytes
    /// were stored before under this id, 409 when other bytes were; 422 for data timed before
    /// the participant's consent or after their withdrawal.
    func putItem(_ request: Request, kind: String, itemID: String) async throws -> Response {
        let participant = try await authenticate(request)
        let bytes = try await Body.collect(request, limit: configuration.maxItemBytes)
        let item = try CheckedItem.check(kind: kind, id: itemID, bytes: bytes,
                                         digest: request.headers[HTTPField.Name(StudyAPI.digestHeader)!])
        let now = self.now
        let (status, receivedAt) = try await transaction { connection -> (HTTPResponse.Status, Double) in
            if let stored = try await storedItem(participant: participant.id, item: item, on: connection) {
                guard stored.sha256 == item.sha256 else {
                    throw ServerError(.conflict, "conflict", "Other bytes were stored under this item id before; an item id is made once per item on the laptop. Nothing was stored.")
                }
                return (.ok, stored.receivedAt)
            }
            guard item.startsAt >= participant.consentAcceptedAt else {
                throw ServerError(.unprocessableContent, "outside_consent", "This \(item.kind.rawValue) is timed before the participant consented; the server keeps no data from before consent.")
            }
            if let withdrawn = participant.withdrawnAt, item.endsAt > withdrawn {
                throw ServerError(.unprocessableContent, "outside_consent", "This \(item.kind.rawValue) is timed after the participant withdrew; the server keeps no data from after withdrawal.")
            }
            let inserted = try await connection.query("""
                INSERT INTO items (participant_id, kind, item_id, sha256, bytes, item_time, received_at, period)
                VALUES (\(participant.id), \(item.kind.rawValue), \(item.id), \(item.sha256), \(ByteBuffer(bytes: item.bytes)),
                        \(date(item.startsAt)), \(date(now)), \(item.period))
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger)
            var didInsert = false
            for try await _ in inserted.decode(Int.self) { didInsert = true }
            guard didInsert else {
                // Another request stored this id between our look and our insert.
                guard let stored = try await storedItem(participant: participant.id, item: item, on: connection), stored.sha256 == item.sha256 else {
                    throw ServerError(.conflict, "conflict", "Other bytes were stored under this item id; nothing was stored.")
                }
                return (.ok, stored.receivedAt)
            }
            if let summary = item.session {
                try await insertSession(summary, participant: participant.id, itemID: item.id, on: connection)
            }
            return (.created, now)
        }
        return try JSONBody.response(ItemReceipt(kind: item.kind, itemID: item.id, sha256: item.sha256, receivedAt: receivedAt), status: status)
    }

    private func storedItem(participant: UUID, item: CheckedItem, on connection: PostgresConnection) async throws -> (sha256: String, receivedAt: Double)? {
        let rows = try await connection.query("""
            SELECT sha256, received_at FROM items WHERE participant_id = \(participant) AND kind = \(item.kind.rawValue) AND item_id = \(item.id)
            """, logger: logger)
        for try await (sha, at) in rows.decode((String, Date).self) { return (sha, at.timeIntervalSince1970) }
        return nil
    }

    /// The session's summary in the columns the dashboard sums: mindful seconds are a mindful
    /// walk's walking seconds (its duration for sessions stored before walking time was kept).
    private func insertSession(_ s: SessionSummary, participant: UUID, itemID: String, on connection: PostgresConnection) async throws {
        let mindful = s.kind == .mindfulWalk ? Double(s.walkingSeconds ?? Int(s.durationSeconds)) : 0
        try await connection.query("""
            INSERT INTO sessions (participant_id, item_id, start_at, duration_seconds, steps, session_kind, walking_seconds,
                                  mindful_seconds, seconds_over_limit)
            VALUES (\(participant), \(itemID), \(date(s.startUnixSeconds)), \(s.durationSeconds), \(Int64(s.steps)), \(s.kind.rawValue),
                    \(s.walkingSeconds), \(mindful), \(s.timeOverLimitSeconds))
            """, logger: logger)
    }
}
