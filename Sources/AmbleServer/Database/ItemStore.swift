#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleModel
import Logging
import PostgresNIO

/// Stores checked items exactly once (docs/server.md, `PUT /v1/items` and `POST /v1/items`).
/// The key (participant, kind, item id) is inserted into the unpartitioned `item_keys` first: its
/// primary key is what makes an id stored once across every month's partition (a partitioned
/// table's unique key must hold the partition key, `received_at`, which a retry sent a month
/// later would not share). The bodies and session summaries of the keys inserted now follow in
/// one multi-row insert each, in the caller's transaction.
struct ItemStore {
    /// What PUT answers for one item.
    enum Outcome: Equatable {
        /// Stored now (201) or before with the same bytes (200), at that time.
        case stored(receivedAt: Double, now: Bool)
        case refused(ServerError)
    }

    var participant: AuthenticatedParticipant
    var logger: Logger

    /// The outcome of each item, in order; an id twice in `items` is answered as if sent one after the other.
    func store(_ items: [CheckedItem], now: Double, on connection: PostgresConnection) async throws -> [Outcome] {
        let before = try await storedKeys(items, on: connection)
        var outcomes: [Outcome?] = Array(repeating: nil, count: items.count)
        var fresh: [Key: Int] = [:]  // the first entry of each id stored now
        for (index, item) in items.enumerated() {
            let key = Key(item)
            if let stored = before[key] {
                outcomes[index] = Self.retry(item, stored)
            } else if let first = fresh[key] {
                outcomes[index] = Self.retry(item, (items[first].sha256, now))
            } else if let refusal = consentRefusal(item) {
                outcomes[index] = .refused(refusal)
            } else {
                fresh[key] = index
                outcomes[index] = .stored(receivedAt: now, now: true)
            }
        }
        let firsts = fresh.values.sorted()
        let inserted = try await insertKeys(firsts.map { items[$0] }, now: now, on: connection)
        // Keys another request inserted between our look and our insert: answered as retries
        // of what it stored, and so are the later entries of the same id.
        let raced = firsts.filter { !inserted.contains(Key(items[$0])) }
        if !raced.isEmpty {
            let stored = try await storedKeys(raced.map { items[$0] }, on: connection)
            let racedKeys = Set(raced.map { Key(items[$0]) })
            for (index, item) in items.enumerated() where racedKeys.contains(Key(item)) && before[Key(item)] == nil {
                outcomes[index] = stored[Key(item)].map { Self.retry(item, $0) } ?? .refused(Self.conflict)
            }
        }
        try await insertBodies(firsts.filter { inserted.contains(Key(items[$0])) }.map { items[$0] }, now: now, on: connection)
        return outcomes.map { $0! }
    }

    /// An item whose id was stored before: the same bytes are a retry (200), others a conflict.
    private static func retry(_ item: CheckedItem, _ stored: (sha256: String, receivedAt: Double)) -> Outcome {
        stored.sha256 == item.sha256 ? .stored(receivedAt: stored.receivedAt, now: false) : .refused(conflict)
    }

    static let conflict = ServerError(.conflict, "conflict", "Other bytes were stored under this item id before; an item id is made once per item on the laptop. Nothing was stored.")

    private struct Key: Hashable {
        var kind: String
        var id: String
        init(kind: String, id: String) { self.kind = kind; self.id = id }
        init(_ item: CheckedItem) { self.init(kind: item.kind.rawValue, id: item.id) }
    }

    private func consentRefusal(_ item: CheckedItem) -> ServerError? {
        if item.startsAt < participant.consentAcceptedAt {
            return ServerError(.unprocessableContent, "outside_consent", "This \(item.kind.rawValue) is timed before the participant consented; the server keeps no data from before consent.")
        }
        if let withdrawn = participant.withdrawnAt, item.endsAt > withdrawn {
            return ServerError(.unprocessableContent, "outside_consent", "This \(item.kind.rawValue) is timed after the participant withdrew; the server keeps no data from after withdrawal.")
        }
        return nil
    }

    private func storedKeys(_ items: [CheckedItem], on connection: PostgresConnection) async throws -> [Key: (sha256: String, receivedAt: Double)] {
        guard !items.isEmpty else { return [:] }
        let query: PostgresQuery = """
            SELECT k.kind, k.item_id, k.sha256, k.received_at FROM item_keys k
            JOIN unnest(\(items.map(\.kind.rawValue)), \(items.map(\.id))) AS x (kind, item_id) ON k.kind = x.kind AND k.item_id = x.item_id
            WHERE k.participant_id = \(participant.id)
            """
        var found: [Key: (String, Double)] = [:]
        for try await (kind, id, sha, at) in try await connection.query(query, logger: logger).decode((String, String, String, Date).self) {
            found[Key(kind: kind, id: id)] = (sha, at.timeIntervalSince1970)
        }
        return found
    }

    /// Inserts the keys (the first of each id only); returns those inserted now.
    private func insertKeys(_ items: [CheckedItem], now: Double, on connection: PostgresConnection) async throws -> Set<Key> {
        var seen = Set<Key>()
        let unique = items.filter { seen.insert(Key($0)).inserted }
        guard !unique.isEmpty else { return [] }
        let rows = try await connection.query("""
            INSERT INTO item_keys (participant_id, kind, item_id, sha256, received_at)
            SELECT \(participant.id), x.kind, x.item_id, x.sha256, \(date(now))
            FROM unnest(\(unique.map(\.kind.rawValue)), \(unique.map(\.id)), \(unique.map(\.sha256))) AS x (kind, item_id, sha256)
            ON CONFLICT DO NOTHING RETURNING kind, item_id
            """, logger: logger)
        var inserted = Set<Key>()
        for try await (kind, id) in rows.decode((String, String).self) { inserted.insert(Key(kind: kind, id: id)) }
        return inserted
    }

    /// The bodies and the sessions' summaries in one multi-row insert each, and the days they
    /// touch marked for the dashboard's rollup.
    private func insertBodies(_ items: [CheckedItem], now: Double, on connection: PostgresConnection) async throws {
        guard !items.isEmpty else { return }
        var binds = PostgresBindings(capacity: items.count * 7 + 2)
        binds.append(participant.id)
        binds.append(date(now))
        var rows: [String] = []
        for (n, item) in items.enumerated() {
            let b = 3 + n * 6
            rows.append("($1, $\(b), $\(b + 1), $\(b + 2), $\(b + 3), $\(b + 4), $2, $\(b + 5))")
            binds.append(item.kind.rawValue)
            binds.append(item.id)
            binds.append(item.sha256)
            binds.append(ByteBuffer(bytes: item.bytes))
            binds.append(date(item.startsAt))
            binds.append(item.period)
        }
        try await connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO items (participant_id, kind, item_id, sha256, bytes, item_time, received_at, period)
            VALUES \(rows.joined(separator: ", "))
            """, binds: binds), logger: logger)
        let sessions = items.compactMap { item in item.session.map { (item.id, $0) } }
        if !sessions.isEmpty {
            var binds = PostgresBindings(capacity: sessions.count * 8 + 2)
            binds.append(participant.id)
            binds.append(date(now))
            var rows: [String] = []
            for (n, (id, s)) in sessions.enumerated() {
                let b = 3 + n * 8
                rows.append("($1, $\(b), $\(b + 1), $\(b + 2), $\(b + 3), $\(b + 4), $\(b + 5), $\(b + 6), $\(b + 7), $2)")
                // Mindful seconds are a mindful walk's walking seconds (its duration for sessions
                // stored before walking time was kept).
                let mindful = s.kind == .mindfulWalk ? Double(s.walkingSeconds ?? Int(s.durationSeconds)) : 0
                binds.append(id)
                binds.append(date(s.startUnixSeconds))
                binds.append(s.durationSeconds)
                binds.append(Int64(s.steps))
                binds.append(s.kind.rawValue)
                binds.append(s.walkingSeconds)
                binds.append(mindful)
                binds.append(s.timeOverLimitSeconds)
            }
            try await connection.query(PostgresQuery(unsafeSQL: """
                INSERT INTO sessions (participant_id, item_id, start_at, duration_seconds, steps, session_kind, walking_seconds,
                                      mindful_seconds, seconds_over_limit, received_at)
                VALUES \(rows.joined(separator: ", "))
                """, binds: binds), logger: logger)
        }
        let days = Set(items.filter { $0.kind != .consent }.map { Int(($0.startsAt / 86_400).rounded(.down)) }).sorted()
        try await connection.query("""
            INSERT INTO rollup_dirty (participant_id, day)
            SELECT \(participant.id), date '1970-01-01' + d::integer FROM unnest(\(days)) AS d ON CONFLICT DO NOTHING
            """, logger: logger)
    }
}
