#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PostgresNIO

/// The server's recurring jobs (docs/server-operations.md, "Background jobs"); each is
/// idempotent and runs inside the job's transaction (JobQueue.run).
public enum ServerJobs {
    /// Months of partitions kept made ahead of the server's clock.
    public static let monthsAhead = 3
    /// Participant-days the rollup remakes in one transaction.
    public static let rollupBatch = 2000
    /// Keys the retention deletes in one transaction.
    public static let retentionBatch = 10_000

    public static func work(logger: Logger) -> [String: JobQueue.Work] {
        [
            "partitions": { connection, _, now in try await ensurePartitions(now: now, on: connection, logger: logger); return .done },
            "rollup": { connection, _, _ in try await rollup(on: connection, logger: logger) },
            "retention": { connection, _, now in try await retention(now: now, on: connection, logger: logger) },
        ]
    }

    /// The month of `now` (UTC), the one before and `monthsAhead` after, made when missing.
    public static func ensurePartitions(now: Double, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            SELECT amble_ensure_month(m::date) FROM generate_series(
                date_trunc('month', \(date(now)) AT TIME ZONE 'UTC') - interval '1 month',
                date_trunc('month', \(date(now)) AT TIME ZONE 'UTC') + \(monthsAhead) * interval '1 month', interval '1 month') AS m
            """, logger: logger)
    }

    /// Remakes the participant-days uploads marked in `rollup_dirty` from their sessions and
    /// answers (UTC days), those participants' last upload and band contact, and the arm-days
    /// they belong to. Marks taken with SKIP LOCKED; a mark an upload makes while this runs is a
    /// new row, taken the next time.
    public static func rollup(on connection: PostgresConnection, logger: Logger) async throws -> JobQueue.Result {
        var ids: [UUID] = [], days: [String] = []
        for try await (id, day) in try await connection.query("""
            DELETE FROM rollup_dirty WHERE (participant_id, day) IN (
                SELECT participant_id, day FROM rollup_dirty LIMIT \(rollupBatch) FOR UPDATE SKIP LOCKED)
            RETURNING participant_id, day::text
            """, logger: logger).decode((UUID, String).self) {
            ids.append(id)
            days.append(day)
        }
        guard !ids.isEmpty else { return .done }
        try await connection.query("""
            INSERT INTO participant_days (participant_id, day, walks, mindful_seconds, over_limit_seconds, walking_seconds, answers)
            SELECT d.participant_id, d.day, s.walks, s.mindful, s.over, s.walking, a.answers
            FROM unnest(\(ids), \(days)::date[]) AS d (participant_id, day)
            JOIN participants p ON p.id = d.participant_id
            CROSS JOIN LATERAL (
                SELECT count(*) FILTER (WHERE se.session_kind = 'mindful-walk') AS walks,
                       coalesce(sum(se.mindful_seconds), 0) AS mindful,
                       coalesce(sum(se.seconds_over_limit) FILTER (WHERE se.session_kind = 'mindful-walk'), 0) AS over,
                       coalesce(sum(coalesce(se.walking_seconds, se.duration_seconds)) FILTER (WHERE se.session_kind = 'mindful-walk'), 0) AS walking
                FROM sessions se
                WHERE se.participant_id = d.participant_id
                  AND se.start_at >= d.day::timestamp AT TIME ZONE 'UTC' AND se.start_at < (d.day + 1)::timestamp AT TIME ZONE 'UTC') s
            CROSS JOIN LATERAL (
                SELECT count(*) AS answers FROM items i
                WHERE i.participant_id = d.participant_id AND i.kind = 'answer'
                  AND i.item_time >= d.day::timestamp AT TIME ZONE 'UTC' AND i.item_time < (d.day + 1)::timestamp AT TIME ZONE 'UTC') a
            ON CONFLICT (participant_id, day) DO UPDATE SET walks = excluded.walks, mindful_seconds = excluded.mindful_seconds,
                over_limit_seconds = excluded.over_limit_seconds, walking_seconds = excluded.walking_seconds, answers = excluded.answers
            """, logger: logger)
        try await connection.query("""
            INSERT INTO participant_status (participant_id, last_upload_at, last_band_contact_at)
            SELECT p.id, (SELECT max(k.received_at) FROM item_keys k WHERE k.participant_id = p.id),
                   (SELECT se.start_at + se.duration_seconds * interval '1 second' FROM sessions se WHERE se.participant_id = p.id
                    ORDER BY se.start_at DESC LIMIT 1)
            FROM participants p WHERE p.id = ANY(\(ids))
            ON CONFLICT (participant_id) DO UPDATE SET last_upload_at = excluded.last_upload_at, last_band_contact_at = excluded.last_band_contact_at
            """, logger: logger)
        try await connection.query("""
            INSERT INTO arm_days (study_id, arm_name, day, participants_walking, walks, mindful_seconds, over_limit_seconds, walking_seconds, answers)
            SELECT t.study_id, t.arm_name, t.day, count(d.participant_id) FILTER (WHERE d.walks > 0), coalesce(sum(d.walks), 0),
                   coalesce(sum(d.mindful_seconds), 0), coalesce(sum(d.over_limit_seconds), 0), coalesce(sum(d.walking_seconds), 0),
                   coalesce(sum(d.answers), 0)
            FROM (SELECT DISTINCT p.study_id, p.arm_name, x.day FROM unnest(\(ids), \(days)::date[]) AS x (id, day)
                  JOIN participants p ON p.id = x.id) t
            LEFT JOIN (participant_days d JOIN participants m ON m.id = d.participant_id)
                ON d.day = t.day AND m.study_id = t.study_id AND m.arm_name = t.arm_name
            GROUP BY 1, 2, 3
            ON CONFLICT (study_id, arm_name, day) DO UPDATE SET participants_walking = excluded.participants_walking,
                walks = excluded.walks, mindful_seconds = excluded.mindful_seconds, over_limit_seconds = excluded.over_limit_seconds,
                walking_seconds = excluded.walking_seconds, answers = excluded.answers
            """, logger: logger)
        return ids.count == rollupBatch ? .again : .done
    }

    /// Drops what a study keeps no longer (`studies.retention_days`, counted from arrival). A
    /// month's partitions go whole (DROP TABLE, no row-by-row delete) once everything in them
    /// is past every owning study's retention; what is past retention elsewhere (a study with
    /// shorter retention beside a longer one, the default partition) is deleted by its keys, at
    /// most `retentionBatch` a transaction (`.again` until none is left).
    public static func retention(now: Double, on connection: PostgresConnection, logger: Logger) async throws -> JobQueue.Result {
        var droppable: [String] = []
        for try await (items, sessions) in try await connection.query("""
            SELECT c.relname, replace(c.relname, 'items_', 'sessions_')
            FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
            CROSS JOIN LATERAL (SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS lower,
                                       (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS upper) b
            WHERE h.inhparent = 'items'::regclass AND b.upper <= \(date(now))
              AND EXISTS (SELECT 1 FROM items i WHERE i.received_at >= b.lower AND i.received_at < b.upper)
              AND NOT EXISTS (
                SELECT 1 FROM participants p JOIN studies s ON s.id = p.study_id
                WHERE (s.retention_days IS NULL OR b.upper > \(date(now)) - s.retention_days * interval '1 day')
                  AND EXISTS (SELECT 1 FROM items i WHERE i.participant_id = p.id AND i.received_at >= b.lower AND i.received_at < b.upper))
            """, logger: logger).decode((String, String).self) {
            droppable.append(items)
            droppable.append(sessions)
        }
        for table in droppable {
            try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \"\(table)\""), logger: logger)
            logger.info("retention: dropped partition \(table)")
        }
        var deleted = 0
        for try await count in try await connection.query("""
            WITH gone AS (
                DELETE FROM item_keys WHERE (participant_id, kind, item_id) IN (
                    SELECT k.participant_id, k.kind, k.item_id FROM studies s
                    JOIN participants p ON p.study_id = s.id
                    JOIN item_keys k ON k.participant_id = p.id AND k.received_at < \(date(now)) - s.retention_days * interval '1 day'
                    WHERE s.retention_days IS NOT NULL LIMIT \(retentionBatch))
                RETURNING 1)
            SELECT count(*) FROM gone
            """, logger: logger).decode(Int.self) { deleted = count }
        return deleted == retentionBatch ? .again : .done
    }
}
