import AmbleCompanionStore
import AmbleModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 8601 in UTC, e.g. 2026-11-22T09:30:00Z.
func isoDate(_ unixSeconds: Double) -> String {
    Date(timeIntervalSince1970: unixSeconds.rounded()).formatted(.iso8601)
}

/// JSON output, written by hand so that absent values are `null` and keys keep their order.
struct SessionJSON {
    var text: String

    static func array(_ objects: [SessionJSON]) -> String {
        objects.isEmpty ? "[]" : "[\n" + objects.map { "  " + $0.text }.joined(separator: ",\n") + "\n]"
    }

    /// `raw`, when given (`sessions show`), adds `raw`: null without raw samples, else their
    /// counts per sensor.
    static func object(_ session: CompanionSession, seconds: [SessionSecond]?, raw: [RawSensor: Int]? = nil) -> SessionJSON {
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

    static func string(_ text: String) -> String {
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

    static func number(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "null" }
        if digits == 0 { return String(Int(value.rounded())) }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// Text output for people.
enum SessionText {
    static func table(_ sessions: [CompanionSession]) -> String {
        var lines = [pad("ID", 5) + pad("KIND", 14) + pad("START (UTC)", 22) + pad("TIME", 8) + pad("STEPS", 7) + pad("DIST", 9) + pad("HR", 6) + pad("ALERTS", 8) + "OVER"]
        for session in sessions {
            let s = session.summary
            lines.append(pad(String(session.id), 5) + pad(s.kind.rawValue, 14) + pad(isoDate(s.startUnixSeconds).replacingT, 22)
                         + pad(formatDuration(s.durationSeconds), 8) + pad(String(s.steps), 7) + pad(formatDistance(s.distanceMeters), 9)
                         + pad(s.averageHeartRateBPM.map { String(Int($0.rounded())) } ?? "--", 6)
                         + pad(s.kind == .mindfulWalk ? String(s.alerts) : "", 8)
                         + (s.kind == .mindfulWalk ? formatDuration(Double(s.timeOverLimitSeconds)) : ""))
        }
        return lines.joined(separator: "\n")
    }

    static func detail(_ session: CompanionSession, seconds: [SessionSecond]) -> String {
        let s = session.summary
        var lines: [String] = []
        let title = s.kind == .mindfulWalk ? "Mindful walk" : "Calibration"
        lines.append("\(title) #\(session.id) from \(session.bandName), \(isoDate(s.startUnixSeconds).replacingT) UTC, \(formatDuration(s.durationSeconds))")
        lines.append("  steps          \(s.steps)   distance \(formatDistance(s.distanceMeters)) (step \(formatOne(s.parameters.stepLengthMeters * 100)) cm)"
                     + (s.activeKilocalories.map { "   active energy \(Int($0.rounded())) kcal" } ?? ""))
        if let calibrated = s.parameters.calibratedCadenceStepsPerMinute, let limit = s.parameters.limitCadenceStepsPerMinute, let reduction = s.parameters.reductionPercent {
            lines.append("  pace limit     \(Int(limit.rounded())) steps/min (\(reduction)% under your normal \(Int(calibrated.rounded())))")
            lines.append("  alerts         \(s.alerts)   time over the limit \(formatDuration(Double(s.timeOverLimitSeconds)))"
                         + (s.withinLimitShare.map { "   within the limit \(Int(($0 * 100).rounded())) % of the walking time" } ?? ""))
        }
        if s.pauses > 0 {
            lines.append("  pauses         \(s.pauses), \(formatDuration(Double(s.pausedSeconds))) in all (not counted against the limit)")
        }
        if s.kind == .calibration {
            lines.append("  measured pace  " + (s.measuredCadenceStepsPerMinute.map { "\(Int($0.rounded())) steps/min" } ?? "none (calibration failed)")
                         + (s.speedMetersPerSecond.map { ", \(formatOne($0 * 3.6)) km/h" } ?? ""))
        }
        let walking = seconds.filter { $0.cadenceStepsPerMinute > 0 }
        if !walking.isEmpty {
            let mean = walking.reduce(0) { $0 + $1.cadenceStepsPerMinute } / Double(walking.count)
            lines.append("  mean cadence   \(Int(mean.rounded())) steps/min while walking")
        }
        lines.append("  heart rate     " + (s.averageHeartRateBPM.map { "\(Int($0.rounded())) bpm average" } ?? "no trustworthy reading")
                     + (s.maximumHeartRateBPM.map { ", \(Int($0.rounded())) max" } ?? "")
                     + (s.rmssdMilliseconds.map { ", RMSSD \(formatOne($0)) ms at rest" } ?? ""))
        if s.gapSeconds > 0 { lines.append("  sensor gaps    \(s.gapSeconds) s without data from a sensor") }
        if !seconds.isEmpty {
            lines.append("")
            lines.append(contentsOf: PaceChart.render(seconds: seconds, limit: s.parameters.limitCadenceStepsPerMinute))
        }
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func formatDistance(_ meters: Double) -> String {
        meters >= 1000 ? "\(formatOne(meters / 1000)) km" : "\(Int(meters.rounded())) m"
    }
}

/// A text chart of cadence over time, one column per time slice, with the limit drawn in.
enum PaceChart {
    static func render(seconds: [SessionSecond], limit: Double?, width: Int = 60, height: Int = 8) -> [String] {
        let columns = min(width, seconds.count)
        guard columns > 0 else { return [] }
        let perColumn = Double(seconds.count) / Double(columns)
        var cadence: [Double] = []
        var alerts: [Bool] = []
        for c in 0..<columns {
            let slice = seconds[Int(Double(c) * perColumn)..<max(Int(Double(c) * perColumn) + 1, Int(Double(c + 1) * perColumn))]
            cadence.append(slice.reduce(0) { $0 + $1.cadenceStepsPerMinute } / Double(slice.count))
            alerts.append(slice.contains { $0.alerts > 0 })
        }
        let top = max((cadence.max() ?? 0), limit ?? 0) * 1.1
        let bottom = max(0, min(cadence.filter { $0 > 0 }.min() ?? 0, limit ?? .infinity) * 0.8)
        guard top > bottom else { return [] }
        let limitRow = limit.map { Int(((top - $0) / (top - bottom) * Double(height - 1)).rounded()) }
        var rows: [String] = []
        for r in 0..<height {
            let value = top - (top - bottom) * Double(r) / Double(height - 1)
            var line = SessionText.pad(String(Int(value.rounded())), 5) + "|"
            for c in 0..<columns {
                let filled = cadence[c] >= value
                if filled {
                    line += limit.map { cadence[c] > $0 } == true ? "#" : "*"
                } else {
                    line += r == limitRow ? "-" : " "
                }
            }
            rows.append(line)
        }
        rows.append("     +" + String(repeating: "-", count: columns))
        rows.append("      " + alerts.map { $0 ? "^" : " " }.joined())
        rows.append("      cadence (steps/min) over \(formatDuration(Double(seconds.count)))" + (limit != nil ? "; --- limit, # over it, ^ alert" : ""))
        return rows
    }
}

extension String {
    var replacingT: String { String(map { $0 == "T" ? " " : $0 }).replacingZ }
    var replacingZ: String { hasSuffix("Z") ? String(dropLast()) : self }
}
