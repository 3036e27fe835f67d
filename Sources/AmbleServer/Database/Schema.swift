/// The server's schema, as frozen migrations (docs/server.md, "Schema"). Never edit one that has
/// shipped: append a new one. Times are `timestamptz`; every row that belongs to a study says
/// which, and every state the server keeps is here (no state in the server processes but the
/// per-token rate limiter, docs/server.md).
public enum Migrations {
    public static let all: [Migration] = [initial, researcherWeb, dueState, partitions]

    static let initial = Migration(id: "0001-initial", statements: [
        """
        CREATE TABLE researchers (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 80),
            password_kdf text NOT NULL CHECK (password_kdf IN ('pbkdf2-sha256')),
            password_iterations integer NOT NULL CHECK (password_iterations > 0),
            password_salt bytea NOT NULL,
            password_hash bytea NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE TABLE studies (
            id uuid PRIMARY KEY,
            owner_id bigint NOT NULL REFERENCES researchers (id),
            name text NOT NULL,
            study_file text NOT NULL,
            participant_file text NOT NULL,
            consent_version text NOT NULL,
            consent_sha256 text NOT NULL CHECK (length(consent_sha256) = 64),
            consent_text text NOT NULL,
            enrolment_opens timestamptz,
            enrolment_closes timestamptz,
            code_expiry_days integer NOT NULL CHECK (code_expiry_days > 0),
            delete_on_withdrawal boolean NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        "CREATE INDEX studies_owner ON studies (owner_id)",
        """
        CREATE TABLE arms (
            study_id uuid NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
            name text NOT NULL,
            position integer NOT NULL,
            ratio integer NOT NULL DEFAULT 1 CHECK (ratio > 0),
            band_settings jsonb NOT NULL DEFAULT '{}',
            PRIMARY KEY (study_id, name),
            UNIQUE (study_id, position)
        )
        """,
        """
        CREATE TABLE participants (
            id uuid PRIMARY KEY,
            study_id uuid NOT NULL REFERENCES studies (id),
            arm_name text NOT NULL,
            stratum text NOT NULL DEFAULT '',
            allocation_index integer NOT NULL CHECK (allocation_index >= 0),
            allocated_at timestamptz NOT NULL,
            consent_version text NOT NULL,
            consent_sha256 text NOT NULL,
            consent_accepted_at timestamptz NOT NULL,
            joined_at timestamptz NOT NULL DEFAULT now(),
            tokens_revoked_at timestamptz,
            withdrawn_at timestamptz,
            data_deleted_at timestamptz,
            FOREIGN KEY (study_id, arm_name) REFERENCES arms (study_id, name),
            UNIQUE (study_id, stratum, allocation_index)
        )
        """,
        """
        CREATE TABLE join_codes (
            code_sha256 bytea PRIMARY KEY CHECK (length(code_sha256) = 32),
            study_id uuid NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL DEFAULT now(),
            expires_at timestamptz NOT NULL,
            used_at timestamptz,
            participant_id uuid REFERENCES participants (id),
            CHECK ((used_at IS NULL) = (participant_id IS NULL))
        )
        """,
        "CREATE INDEX join_codes_study ON join_codes (study_id)",
        """
        CREATE TABLE refresh_tokens (
            token_sha256 bytea PRIMARY KEY CHECK (length(token_sha256) = 32),
            participant_id uuid NOT NULL REFERENCES participants (id) ON DELETE CASCADE,
            family uuid NOT NULL,
            issued_at timestamptz NOT NULL DEFAULT now(),
            rotated_at timestamptz,
            revoked_at timestamptz
        )
        """,
        "CREATE INDEX refresh_tokens_family ON refresh_tokens (family)",
        "CREATE INDEX refresh_tokens_participant ON refresh_tokens (participant_id)",
        """
        CREATE TABLE items (
            participant_id uuid NOT NULL REFERENCES participants (id) ON DELETE CASCADE,
            kind text NOT NULL CHECK (kind IN ('session', 'answer', 'consent')),
            item_id text NOT NULL CHECK (item_id ~ '^[0-9a-f]{32}$'),
            sha256 text NOT NULL CHECK (length(sha256) = 64),
            bytes bytea NOT NULL,
            item_time timestamptz NOT NULL,
            received_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (participant_id, kind, item_id)
        )
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
            PRIMARY KEY (participant_id, item_id),
            FOREIGN KEY (participant_id, kind, item_id) REFERENCES items (participant_id, kind, item_id) ON DELETE CASCADE
        )
        """,
        "CREATE INDEX sessions_start ON sessions (participant_id, start_at)",
        """
        CREATE TABLE audit_log (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at timestamptz NOT NULL DEFAULT now(),
            researcher_id bigint REFERENCES researchers (id),
            study_id uuid REFERENCES studies (id),
            action text NOT NULL,
            detail jsonb NOT NULL DEFAULT '{}'
        )
        """,
    ])
}
