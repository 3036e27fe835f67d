import AmbleModel
import AmbleServer
import AmbleStudyAPI
import AmbleSync
import Foundation
import Logging
import PostgresNIO

/// `bench-server seed DATABASE_URL [PARTICIPANTS] [DAYS]` (scripts/seed-server-db): a study of
/// PARTICIPANTS (10,000) who each uploaded, every day of the DAYS (90) ending today, one
/// 10-minute mindful walk in the band's encoding and one answer sheet, written by SQL
/// `generate_series` into a migrated database in a few statements (no HTTP): item keys, items
/// in their months' partitions, session summaries and the rollup's participant-days.
enum SeedStudy {
    static func run(_ url: DatabaseURL, participants: Int, days: Int, logger: Logger) async throws {
        let started = ContinuousClock.now
        let now = Date().timeIntervalSince1970
        let first = (now / 86_400).rounded(.down) * 86_400 - Double(days - 1) * 86_400
        let walk = BenchServer.sessionBytes(start: first + 18 * 3600, seconds: 600)
        try await withDatabase(url, logger: logger) { client in
            try await Migrator.migrate(client, logger: logger)
            let admin = Admin(client: client, logger: logger)
            try await admin.addResearcher(name: "bench", password: "a long enough password", rounds: 1000)
            let study = try await admin.createStudy(try BenchServer.study(), owner: "bench")
            let statements: [PostgresQuery] = [
                "SELECT amble_ensure_month(m::date) FROM generate_series(date_trunc('month', \(Date(timeIntervalSince1970: first)) AT TIME ZONE 'UTC'), now(), interval '1 month') AS m",
                """
                INSERT INTO participants (id, study_id, arm_name, stratum, allocation_index, allocated_at, consent_version, consent_sha256,
                                          consent_accepted_at, joined_at)
                SELECT md5('p' || n)::uuid, s.id, 'all', '', n, \(Date(timeIntervalSince1970: first - 86_400)), s.consent_version, s.consent_sha256,
                       \(Date(timeIntervalSince1970: first - 86_400)), \(Date(timeIntervalSince1970: first - 86_400))
                FROM studies s, generate_series(0, \(participants - 1)) AS n WHERE s.id = \(study)
                """,
                """
                INSERT INTO item_keys (participant_id, kind, item_id, sha256, received_at)
                SELECT md5('p' || n)::uuid, k.kind, md5(k.kind || n || '-' || d), \(Digest.sha256Hex(walk)),
                       \(Date(timeIntervalSince1970: first)) + d * interval '1 day' + interval '20 hours' + n * interval '1 ms'
                FROM generate_series(0, \(days - 1)) AS d, generate_series(0, \(participants - 1)) AS n, (VALUES ('session'), ('answer')) AS k (kind)
                """,
                """
                INSERT INTO items (participant_id, kind, item_id, sha256, bytes, item_time, received_at, period)
                SELECT k.participant_id, k.kind, k.item_id, k.sha256,
                       CASE k.kind WHEN 'session' THEN \(ByteBuffer(bytes: walk))
                            ELSE convert_to(json_build_object('questionnaire', 'q', 'answered_at', extract(epoch FROM k.received_at - interval '1 hour'),
                                                              'answers', json_build_object('a', 'fine'))::text, 'UTF8') END,
                       k.received_at - interval '2 hours', k.received_at,
                       CASE k.kind WHEN 'answer' THEN 'day:' || to_char(k.received_at, 'YYYY-MM-DD') END
                FROM item_keys k ORDER BY k.received_at
                """,
                """
                INSERT INTO sessions (participant_id, item_id, start_at, duration_seconds, steps, session_kind, walking_seconds,
                                      mindful_seconds, seconds_over_limit, received_at)
                SELECT i.participant_id, i.item_id, i.item_time, 600, 620, 'mindful-walk', 600, 600, 46, i.received_at
                FROM items i WHERE i.kind = 'session'
                """,
                """
                INSERT INTO participant_days (participant_id, day, walks, mindful_seconds, over_limit_seconds, walking_seconds, answers)
                SELECT participant_id, (item_time AT TIME ZONE 'UTC')::date, count(*) FILTER (WHERE kind = 'session'),
                       600 * count(*) FILTER (WHERE kind = 'session'), 46 * count(*) FILTER (WHERE kind = 'session'),
                       600 * count(*) FILTER (WHERE kind = 'session'), count(*) FILTER (WHERE kind = 'answer')
                FROM items GROUP BY 1, 2
                """,
                """
                INSERT INTO participant_status (participant_id, last_upload_at, last_band_contact_at)
                SELECT k.participant_id, max(k.received_at), max(k.received_at) - interval '2 hours' + interval '10 minutes' FROM item_keys k GROUP BY 1
                """,
                """
                INSERT INTO arm_days (study_id, arm_name, day, participants_walking, walks, mindful_seconds, over_limit_seconds, walking_seconds, answers)
                SELECT p.study_id, p.arm_name, d.day, count(*) FILTER (WHERE d.walks > 0), sum(d.walks), sum(d.mindful_seconds),
                       sum(d.over_limit_seconds), sum(d.walking_seconds), sum(d.answers)
                FROM participant_days d JOIN participants p ON p.id = d.participant_id GROUP BY 1, 2, 3
                """,
                "ANALYZE",
            ]
            for statement in statements {
                let t = ContinuousClock.now
                try await client.query(statement, logger: logger)
                print("seed: \(statement.sql.split(separator: "\n").first!.prefix(60))… \(ContinuousClock.now - t)")
            }
            print("seed: study \(study), \(participants) participants × \(days) days (a \(walk.count)-byte walk and an answer sheet a day) in \(ContinuousClock.now - started)")
        }
    }
}
