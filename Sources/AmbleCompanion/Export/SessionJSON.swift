import AmbleCompanionStore
import AmbleModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 8601 in UTC, e.g. 2026-11-22T09:30:00Z.
public func isoDate(_ unixSeconds: Double) -> String {
    Date(timeIntervalSince1970: unixSeconds.rounded()).formatted(.iso8601)
}

/// JSON output, written by hand so that absent values are `null` and keys keep their order.
public struct SessionJSON {
    public var text: String

    public init(text: String) { self.text = text }

    public static func array(_ objects: [SessionJSON]) -> String {
        objects.isEmpty ? "[]" : "[\n" + objects.map { "  " + $0.text }.joined(separator: ",\n") + "\n]"
    }

    /// `raw`, when given (`sessions show`), adds `raw`: null without raw samples, else their
    /// counts per sensor.
    public static func object(_ session: CompanionSession, seconds: [SessionSecond]?, raw: [RawSensor: Int]? = nil) -> SessionJSON {
        let s = session.summary
        var fields: [(String, String)] = [
            ("id", String(session.id)),
            ("kind", string(s.kind.rawValue)),
            ("start", string(isoDate(s.startUnixSeconds))),
            ("end", string(isoDate(s.endUnixSeconds))),
            ("duration_s", number(s.durationSeconds, digits: 0)),
            ("steps", String(s.steps)),
            ("distance_m", number(s.distanceMeters, digits: 1)),
            ("avg_hr_bpm", s.averageHeartRateBPM.map { number($0, digits: 1) } ?? "null"),
            ("alerts", String(s.alerts)),
            ("time_over_limit_s", String(s.timeOverLimitSeconds)),
            ("reduction_percent", s.parameters.reductionPercent.map(String.init) ?? "null"),
            ("calibrated_cadence_spm", s.parameters.calibratedCadenceStepsPerMinute.map { number($0, digits: 1) } ?? "null"),
            ("limit_cadence_spm", s.parameters.limitCadenceStepsPerMinute.map { number($0, digits: 1) } ?? "null"),
            ("measured_cadence_spm", s.measuredCadenceStepsPerMinute.map { number($0, digits: 1) } ?? "null"),
            ("step_length_m", number(s.parameters.stepLengthMeters, digits: 3)),
            ("gap_s", String(s.gapSeconds)),
            ("rmssd_ms", s.rmssdMilliseconds.map { number($0, digits: 1) } ?? "null"),
            ("active_kcal", s.activeKilocalories.map { number($0, digits: 1) } ?? "null"),
            ("max_hr_bpm", s.maximumHeartRateBPM.map { number($0, digits: 1) } ?? "null"),
            ("walking_s", s.walkingSeconds.map(String.init) ?? "null"),
            ("within_limit_share", s.withinLimitShare.map { number($0, digits: 3) } ?? "null"),
            ("pauses", String(s.pauses)),
            ("paused_s", String(s.pausedSeconds)),
            ("speed_m_per_s", s.kind == .calibration ? (s.speedMetersPerSecond.map { number($0, digits: 2) } ?? "null") : "null"),
            ("band_id", string(session.bandID)),
            ("band_name", string(session.bandName)),
            ("band_session_id", String(session.bandSessionID)),
        ]
        if let raw {
            fields.append(("raw", raw.isEmpty ? "null"
                : "{\"accelerometer_samples\": \(raw[.accelerometer] ?? 0), \"ppg_samples\": \(raw[.ppg] ?? 0)}"))
        }
        if let seconds {
            let rows = seconds.map { r in
                "{\"t\": \(r.offsetSeconds), \"steps\": \(r.steps), \"cadence_spm\": \(number(r.cadenceStepsPerMinute, digits: 1)), " +
                "\"hr_bpm\": \(r.heartRateBPM.map { number($0, digits: 1) } ?? "null"), \"hr_confidence\": \(r.heartRateConfidence.map { number($0, digits: 2) } ?? "null"), " +
                "\"over_limit\": \(r.overLimit), \"alerts\": \(r.alerts), \"accelerometer_gap\": \(r.accelerometerGap), \"hr_gap\": \(r.heartRateGap), \"paused\": \(r.paused)}"
            }
            fields.append(("seconds", rows.isEmpty ? "[]" : "[\n    " + rows.joined(separator: ",\n    ") + "\n  ]"))
        }
        return SessionJSON(text: "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    }

    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += "\\u00" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    public static func number(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "null" }
        if digits == 0 { return String(Int(value.rounded())) }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
