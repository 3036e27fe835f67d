import AmbleModel

/// CSV exports: `amble-sessions.csv`, one row per session, and `amble-seconds.csv`, one row
/// per recorded second. RFC 4180 (a header row, fields with a comma, quote or line break
/// quoted), lines ending in LF. Units are in the column names; times are UTC ISO 8601;
/// numbers use '.'; a missing value is an empty cell; flags are 0 or 1.
enum CSVExport {
    static let sessionsFileName = "amble-sessions.csv"
    static let secondsFileName = "amble-seconds.csv"

    static let sessionColumns = [
        "session_id", "band_id", "band_name", "band_session_id", "kind", "start_utc", "end_utc", "duration_s",
        "steps", "distance_m", "active_kcal", "avg_hr_bpm", "max_hr_bpm", "rmssd_ms",
        "alerts", "time_over_limit_s", "walking_s", "within_limit_share", "pauses", "paused_s", "gap_s",
        "reduction_percent", "calibrated_cadence_spm", "limit_cadence_spm", "measured_cadence_spm",
        "step_length_m", "speed_m_per_s",
    ]

    static let secondColumns = [
        "session_id", "t_s", "time_utc", "steps", "cadence_spm", "hr_bpm", "hr_confidence",
        "over_limit", "alerts", "accelerometer_gap", "hr_gap", "paused",
    ]

    static func files(_ sessions: [ExportedSession]) -> [ExportFile] {
        let secondCount = sessions.reduce(0) { $0 + $1.seconds.count }
        return [
            ExportFile(name: sessionsFileName, contents: sessionsCSV(sessions), summary: plural(sessions.count, "session")),
            ExportFile(name: secondsFileName, contents: secondsCSV(sessions), summary: plural(secondCount, "second")),
        ]
    }

    static func sessionsCSV(_ sessions: [ExportedSession]) -> String {
        ([sessionColumns.joined(separator: ",")] + sessions.map(sessionRow)).joined(separator: "\n") + "\n"
    }

    /// A session's line of `amble-sessions.csv` (no line break).
    static func sessionRow(_ exported: ExportedSession) -> String {
        let session = exported.session
        let s = session.summary
        let p = s.parameters
        let cells: [String?] = [
            String(session.id), session.bandID, session.bandName, String(session.bandSessionID), s.kind.rawValue,
            isoDate(s.startUnixSeconds), isoDate(s.endUnixSeconds), exportNumber(s.durationSeconds, digits: 0),
            String(s.steps), exportNumber(s.distanceMeters, digits: 1), exportNumber(s.activeKilocalories, digits: 1),
            exportNumber(s.averageHeartRateBPM, digits: 1), exportNumber(s.maximumHeartRateBPM, digits: 1),
            exportNumber(s.rmssdMilliseconds, digits: 1),
            String(s.alerts), String(s.timeOverLimitSeconds), s.walkingSeconds.map(String.init),
            exportNumber(s.withinLimitShare, digits: 3), String(s.pauses), String(s.pausedSeconds), String(s.gapSeconds),
            p.reductionPercent.map(String.init), exportNumber(p.calibratedCadenceStepsPerMinute, digits: 1),
            exportNumber(p.limitCadenceStepsPerMinute, digits: 1), exportNumber(s.measuredCadenceStepsPerMinute, digits: 1),
            exportNumber(p.stepLengthMeters, digits: 3),
            s.kind == .calibration ? exportNumber(s.speedMetersPerSecond, digits: 2) : nil,
        ]
        return row(cells)
    }

    static func secondsCSV(_ sessions: [ExportedSession]) -> String {
        ([secondColumns.joined(separator: ",")] + sessions.flatMap(secondRows)).joined(separator: "\n") + "\n"
    }

    /// A session's lines of `amble-seconds.csv` (no line breaks).
    static func secondRows(_ exported: ExportedSession) -> [String] {
        let id = String(exported.session.id)
        return exported.seconds.map { r in
            row([
                id, String(r.offsetSeconds), isoDate(exported.unixSeconds(of: r)), String(r.steps),
                exportNumber(r.cadenceStepsPerMinute, digits: 1), exportNumber(r.heartRateBPM, digits: 1),
                exportNumber(r.heartRateConfidence, digits: 2), flag(r.overLimit), String(r.alerts),
                flag(r.accelerometerGap), flag(r.heartRateGap), flag(r.paused),
            ])
        }
    }

    /// One CSV line; nil is an empty cell.
    static func row(_ cells: [String?]) -> String {
        cells.map { field($0 ?? "") }.joined(separator: ",")
    }

    /// A field, quoted when it holds a comma, a quote or a line break (quotes doubled).
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }

    private static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}
