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
        let store = ItemStore(participant: participant, logger: logger)
        let outcome = try await transaction { try await store.store([item], now: now, on: $0)[0] }
        switch outcome {
        case let .refused(error):
            throw error
        case let .stored(receivedAt, storedNow):
            return try JSONBody.response(ItemReceipt(kind: item.kind, itemID: item.id, sha256: item.sha256, receivedAt: receivedAt),
                                         status: storedNow ? .created : .ok)
        }
    }

    /// `POST /v1/items`: up to `ItemBatch.maxItems` items, each checked and stored as PUT would
    /// (the same `CheckedItem.check`, the same `ItemStore`), those that pass in one transaction;
    /// the answer lists, in request order, what PUT would have answered for each alone. A
    /// malformed envelope is refused whole, with nothing stored.
    func postItems(_ request: Request) async throws -> Response {
        let participant = try await authenticate(request)
        let batch = try await JSONBody.decode(ItemBatch.self, from: request, limit: configuration.maxItemBytes)
        guard batch.items.count <= ItemBatch.maxItems else {
            throw ServerError(.contentTooLarge, "too_large", "A batch holds at most \(ItemBatch.maxItems) items; this one has \(batch.items.count). Send them in several; nothing was stored.")
        }
        var checked: [CheckedItem] = []
        var results: [ItemBatchResults.Result] = []
        var checkedAt: [Int] = []  // the index in `results` of each checked item
        for entry in batch.items {
            guard let bytes = Data(base64Encoded: entry.bytes).map(Array.init) else {
                throw ServerError.badRequest("malformed_body", "The bytes of item \(printableText(entry.id, maximum: 40)) are not standard base64; nothing was stored.")
            }
            results.append(.init(kind: entry.kind, id: entry.id, status: 0, error: nil))
            do {
                checked.append(try CheckedItem.check(kind: entry.kind, id: entry.id, bytes: bytes, digest: entry.sha256))
                checkedAt.append(results.count - 1)
            } catch let error as ServerError {
                results[results.count - 1].status = Int(error.status.code)
                results[results.count - 1].error = error.code
            }
        }
        let now = self.now
        let store = ItemStore(participant: participant, logger: logger)
        let items = checked
        let outcomes = items.isEmpty ? [] : try await transaction { try await store.store(items, now: now, on: $0) }
        for (index, outcome) in zip(checkedAt, outcomes) {
            switch outcome {
            case let .refused(error):
                results[index].status = Int(error.status.code)
                results[index].error = error.code
            case let .stored(_, storedNow):
                results[index].status = storedNow ? 201 : 200
            }
        }
        return try JSONBody.response(ItemBatchResults(results: results), status: .ok)
    }
}
