extension Migrations {
    /// Ten thousand participants (docs/server-operations.md, "Partitions, indexes and retention"
    /// and "Background jobs"). The tables that grow, `items` (with their bytes) and `sessions`,
    /// become partitioned by month of `received_at`, the server's clock at upload: it is always
    /// about now, so the partitions made ahead are never missing, whatever the band's clock said
    /// (a default partition catches anything else, and the job that makes partitions moves such
    /// rows out of it). A partitioned table's unique key must hold its partition key, so the
    /// exactly-once key (participant, kind, item id) lives in the small unpartitioned
    /// `item_keys`, which the upload inserts into first; bodies and session summaries refer to it
    /// and go with it. Every existing row is carried over with its `seq`.
    static let partitions = Migration(id: "0004-partitions-jobs", statements: [
        "DROP VIEW analyst.sessions, analyst.answers, analyst.arm_days",
        "ALTER TABLE items RENAME TO items_0003",
        "ALTER TABLE sessions RENAME TO sessions_0003",
        """
        CREATE TABLE item_keys (
            participant_id uuid NOT NULL REFERENCES participants (id) ON DELETE CASCADE,
            kind text NOT NULL CHECK (kind IN ('session', 'answer', 'consent')),
            item_id text NOT NULL CHECK (item_id ~ '^[0-9a-f]{32}$'),
            sha256 text NOT NULL CHECK (length(sha256) = 64),
            received_at timestamptz NOT NULL,
            PRIMARY KEY (participant_id, kind, item_id)
        )
        """,
        "CREATE INDEX item_keys_participant_received ON item_keys (participant_id, received_at)",
        "INSERT INTO item_keys (participant_id, kind, item_id, sha256, received_at) SELECT participant_id, kind, item_id, sha256, received_at FROM items_0003",
        "CREATE SEQUENCE item_seq AS bigint",
        "SELECT setval('item_seq', coalesce((SELECT max(seq) FROM items_0003), 0) + 1, false)",
        """
        CREATE TABLE items (
            participant_id uuid NOT NULL,
            kind text NOT NULL,
            item_id text NOT NULL,
            sha256 text NOT NULL,
            bytes bytea NOT NULL,
            item_time timestamptz NOT NULL,
            received_at timestamptz NOT NULL,
            period text CHECK (period IS NULL OR (kind = 'answer' AND length(period) BETWEEN 1 AND 80)),
            seq bigint NOT NULL DEFAULT nextval('item_seq'),
            CONSTRAINT items_key PRIMARY KEY (participant_id, kind, item_id, received_at),
            FOREIGN KEY (participant_id, kind, item_id) REFERENCES item_keys (participant_id, kind, item_id) ON DELETE CASCADE
        ) PARTITION BY RANGE (received_at)
        """,
        """
        CREATE TABLE sessions (
            participant_id uuid NOT NULL,
            item_id text NOT NULL,
            kind text NOT NULL DEFAULT 'session' CHECK (kind = 'session'),
            start_at timestamptz NOT NULL,
            duration_seconds double precision NOT NULL,
            steps bigint NOT NULL,
            session_kind text NOT NULL,
            walking_seconds integer,
            mindful_seconds double precision NOT NULL,
            seconds_over_limit integer NOT NULL,
            received_at timestamptz NOT NULL,
            CONSTRAINT sessions_key PRIMARY KEY (participant_id, item_id, received_at),
            FOREIGN KEY (participant_id, kind, item_id) REFERENCES item_keys (participant_id, kind, item_id) ON DELETE CASCADE
        ) PARTITION BY RANGE (received_at)
        """,
        "CREATE TABLE items_default PARTITION OF items DEFAULT",
        "CREATE TABLE sessions_default PARTITION OF sessions DEFAULT",
        // Exports page through seq (per study, or per participant); the dashboard reads a
        // participant's items and sessions by time.
        "CREATE INDEX items_by_seq ON items (seq)",
        "CREATE INDEX items_by_participant_seq ON items (participant_id, kind, seq)",
        "CREATE INDEX items_by_participant_time ON items (participant_id, kind, item_time)",
        "CREATE INDEX sessions_by_start ON sessions (participant_id, start_at)",
        // The dashboard's default last day: the latest walk of the study.
        "CREATE INDEX sessions_by_time ON sessions (start_at)",
        // Makes the month's partition of both tables when missing (UTC months), moving any rows
        // the default partition holds for that month into it. Several processes may call it at
        // once: the advisory lock lets one through at a time.
        """
        CREATE FUNCTION amble_ensure_month(month date) RETURNS boolean LANGUAGE plpgsql AS $$
        DECLARE
            lo timestamptz := (date_trunc('month', month::timestamp) AT TIME ZONE 'UTC');
            hi timestamptz := ((date_trunc('month', month::timestamp) + interval '1 month') AT TIME ZONE 'UTC');
            suffix text := to_char(month, '"y"YYYY"m"MM');
            parent text;
        BEGIN
            PERFORM pg_advisory_xact_lock(7020383869032017776);
            IF to_regclass('items_' || suffix) IS NOT NULL THEN RETURN false; END IF;
            FOREACH parent IN ARRAY ARRAY['items', 'sessions'] LOOP
                EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', parent || '_' || suffix, parent);
                EXECUTE format('WITH moved AS (DELETE FROM %I WHERE received_at >= %L AND received_at < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
                               parent || '_default', lo, hi, parent || '_' || suffix);
                EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, parent || '_' || suffix, lo, hi);
            END LOOP;
            RETURN true;
        END $$
        """,
        """
        DO $$ DECLARE month date; BEGIN
            FOR month IN SELECT generate_series(date_trunc('month', least(coalesce((SELECT min(received_at) FROM items_0003), now()), now()) AT TIME ZONE 'UTC'),
                                                date_trunc('month', now() AT TIME ZONE 'UTC') + interval '2 months', interval '1 month')::date LOOP
                PERFORM amble_ensure_month(month);
            END LOOP;
        END $$
        """,
        """
        INSERT INTO items (participant_id, kind, item_id, sha256, bytes, item_time, received_at, period, seq)
        SELECT participant_id, kind, item_id, sha256, bytes, item_time, received_at, period, seq FROM items_0003
        """,
        """
        INSERT INTO sessions (participant_id, item_id, kind, start_at, duration_seconds, steps, session_kind, walking_seconds,
                                       mindful_seconds, seconds_over_limit, received_at)
        SELECT s.participant_id, s.item_id, s.kind, s.start_at, s.duration_seconds, s.steps, s.session_kind, s.walking_seconds,
               s.mindful_seconds, s.seconds_over_limit, i.received_at
        FROM sessions_0003 s JOIN items_0003 i ON i.participant_id = s.participant_id AND i.kind = s.kind AND i.item_id = s.item_id
        """,
        "DROP TABLE sessions_0003",
        "DROP TABLE items_0003",
        "ALTER SEQUENCE item_seq OWNED BY items.seq",
        // The analyst's views as 0002 made them, over the partitioned tables.
        """
        CREATE VIEW analyst.sessions AS
        SELECT i.seq AS session_seq, se.participant_id, p.study_id, p.arm_name AS arm, se.session_kind AS kind,
               se.start_at, se.start_at + se.duration_seconds * interval '1 second' AS end_at,
               se.duration_seconds, se.steps, se.walking_seconds, se.mindful_seconds, se.seconds_over_limit,
               CASE WHEN coalesce(se.walking_seconds, se.duration_seconds) > 0
                    THEN 1 - se.seconds_over_limit / coalesce(se.walking_seconds, se.duration_seconds) END AS within_limit_share,
               i.received_at
        FROM sessions se
        JOIN items i ON i.participant_id = se.participant_id AND i.kind = 'session' AND i.item_id = se.item_id AND i.received_at = se.received_at
        JOIN participants p ON p.id = se.participant_id
        """,
        """
        CREATE VIEW analyst.answers AS
        SELECT i.seq AS sheet_seq, i.participant_id, p.study_id, p.arm_name AS arm,
               convert_from(i.bytes, 'UTF8')::jsonb ->> 'questionnaire' AS questionnaire,
               i.item_time AS answered_at, a.key AS item, a.value, i.received_at
        FROM items i
        JOIN participants p ON p.id = i.participant_id
        CROSS JOIN LATERAL jsonb_each_text(convert_from(i.bytes, 'UTF8')::jsonb -> 'answers') AS a (key, value)
        WHERE i.kind = 'answer'
        """,
        """
        CREATE VIEW analyst.arm_days AS
        SELECT p.study_id, p.arm_name AS arm, (se.start_at AT TIME ZONE 'UTC')::date AS day_utc,
               count(DISTINCT se.participant_id) AS participants_walking,
               count(*) FILTER (WHERE se.session_kind = 'mindful-walk') AS walks,
               sum(se.mindful_seconds) / 60 AS mindful_minutes,
               sum(se.seconds_over_limit) FILTER (WHERE se.session_kind = 'mindful-walk') AS seconds_over_limit
        FROM sessions se JOIN participants p ON p.id = se.participant_id
        GROUP BY 1, 2, 3
        """,
        "GRANT SELECT ON ALL TABLES IN SCHEMA analyst TO amble_analyst",
        // How long a study keeps what was uploaded, counted from its arrival (NULL: for ever).
        "ALTER TABLE studies ADD COLUMN retention_days integer CHECK (retention_days > 0)",
        // Background work (Database/Jobs.swift): a row per job, taken with FOR UPDATE SKIP
        // LOCKED and held by a lease; a recurring job is moved to its next run when done.
        """
        CREATE TABLE jobs (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            kind text NOT NULL,
            argument text NOT NULL DEFAULT '',
            run_at timestamptz NOT NULL,
            every_seconds integer CHECK (every_seconds > 0),
            lease uuid,
            leased_until timestamptz,
            attempts integer NOT NULL DEFAULT 0,
            last_error text,
            done_at timestamptz,
            UNIQUE (kind, argument)
        )
        """,
        "CREATE INDEX jobs_due ON jobs (run_at) WHERE done_at IS NULL",
        """
        INSERT INTO jobs (kind, run_at, every_seconds) VALUES
            ('partitions', now(), 86400), ('retention', now(), 86400), ('rollup', now(), 60)
        """,
        // The dashboard's rollup: a participant's UTC day summed, remade from the day's sessions
        // and answers by the rollup job for every day an upload marked in rollup_dirty.
        """
        CREATE TABLE participant_days (
            participant_id uuid NOT NULL REFERENCES participants (id) ON DELETE CASCADE,
            day date NOT NULL,
            walks integer NOT NULL,
            mindful_seconds double precision NOT NULL,
            over_limit_seconds double precision NOT NULL,
            walking_seconds double precision NOT NULL,
            answers integer NOT NULL,
            PRIMARY KEY (participant_id, day)
        )
        """,
        // What the dashboard reads of every participant and arm without scanning their uploads,
        // remade by the rollup job with the participant-days: a participant's last upload and
        // band contact, and an arm's UTC day summed over its participants.
        """
        CREATE TABLE participant_status (
            participant_id uuid PRIMARY KEY REFERENCES participants (id) ON DELETE CASCADE,
            last_upload_at timestamptz,
            last_band_contact_at timestamptz
        )
        """,
        """
        CREATE TABLE arm_days (
            study_id uuid NOT NULL,
            arm_name text NOT NULL,
            day date NOT NULL,
            participants_walking integer NOT NULL,
            walks integer NOT NULL,
            mindful_seconds double precision NOT NULL,
            over_limit_seconds double precision NOT NULL,
            walking_seconds double precision NOT NULL,
            answers integer NOT NULL,
            PRIMARY KEY (study_id, arm_name, day),
            FOREIGN KEY (study_id, arm_name) REFERENCES arms (study_id, name) ON DELETE CASCADE
        )
        """,
        "CREATE INDEX participant_days_day ON participant_days (day)",
        // The dashboard lists participants in order of joining, 200 a page.
        "CREATE INDEX participants_study_joined ON participants (study_id, joined_at, id)",
        """
        CREATE TABLE rollup_dirty (
            participant_id uuid NOT NULL REFERENCES participants (id) ON DELETE CASCADE,
            day date NOT NULL,
            PRIMARY KEY (participant_id, day)
        )
        """,
        "INSERT INTO rollup_dirty SELECT DISTINCT participant_id, (start_at AT TIME ZONE 'UTC')::date FROM sessions ON CONFLICT DO NOTHING",
        "INSERT INTO rollup_dirty SELECT DISTINCT participant_id, (item_time AT TIME ZONE 'UTC')::date FROM items WHERE kind = 'answer' ON CONFLICT DO NOTHING",
    ])
}
