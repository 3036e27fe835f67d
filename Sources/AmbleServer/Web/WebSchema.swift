extension Migrations {
    /// The researcher's side (docs/server.md, "Researchers" and "SQL for analysts"): web login
    /// sessions, a stable order of the items for resumable exports, and the read-only role
    /// `amble_analyst` with its views. Frozen like every migration.
    static let researcherWeb = Migration(id: "0002-researcher-web", statements: [
        // A researcher's login: the cookie's token is random; only its SHA-256 is stored.
        """
        CREATE TABLE researcher_sessions (
            token_sha256 bytea PRIMARY KEY CHECK (length(token_sha256) = 32),
            researcher_id bigint NOT NULL REFERENCES researchers (id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL
        )
        """,
        "CREATE INDEX researcher_sessions_expiry ON researcher_sessions (expires_at)",
        // The order items arrived in: exports page through it (`after=SEQ`), and an item's
        // number never changes, so an export resumed later continues where it stopped.
        "ALTER TABLE items ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY",
        "CREATE UNIQUE INDEX items_seq ON items (seq)",
        "CREATE INDEX items_participant_kind_seq ON items (participant_id, kind, seq)",
        "CREATE INDEX items_participant_time ON items (participant_id, kind, item_time)",
        // Roles belong to the cluster, not the database: another database of the cluster may
        // have made it already (or be making it now).
        """
        DO $$ BEGIN
            CREATE ROLE amble_analyst NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END $$
        """,
        "CREATE SCHEMA analyst",
        """
        CREATE VIEW analyst.participants AS
        SELECT p.id AS participant_id, p.study_id, s.name AS study_name, p.arm_name AS arm, p.stratum,
               p.allocated_at, p.consent_version, p.consent_accepted_at, p.joined_at, p.withdrawn_at
        FROM participants p JOIN studies s ON s.id = p.study_id
        """,
        """
        CREATE VIEW analyst.sessions AS
        SELECT i.seq AS session_seq, se.participant_id, p.study_id, p.arm_name AS arm, se.session_kind AS kind,
               se.start_at, se.start_at + se.duration_seconds * interval '1 second' AS end_at,
               se.duration_seconds, se.steps, se.walking_seconds, se.mindful_seconds, se.seconds_over_limit,
               CASE WHEN coalesce(se.walking_seconds, se.duration_seconds) > 0
                    THEN 1 - se.seconds_over_limit / coalesce(se.walking_seconds, se.duration_seconds) END AS within_limit_share,
               i.received_at
        FROM sessions se
        JOIN items i ON i.participant_id = se.participant_id AND i.kind = 'session' AND i.item_id = se.item_id
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
        "GRANT USAGE ON SCHEMA analyst TO amble_analyst",
        "GRANT SELECT ON ALL TABLES IN SCHEMA analyst TO amble_analyst",
    ])
}
