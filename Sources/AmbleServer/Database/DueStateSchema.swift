extension Migrations {
    /// What the due rules need on the server (docs/server.md, "Questionnaires and their due
    /// state"): an answer sheet's period, as the laptop queued it (NULL for sheets of older
    /// clients, which send none, and for every other kind), and the participant's time zone,
    /// which local days are counted in (`UTC` for participants who joined without one).
    static let dueState = Migration(id: "0003-due-state", statements: [
        "ALTER TABLE items ADD COLUMN period text CHECK (period IS NULL OR (kind = 'answer' AND length(period) BETWEEN 1 AND 80))",
        "ALTER TABLE participants ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC' CHECK (length(time_zone) BETWEEN 1 AND 64)",
    ])
}
