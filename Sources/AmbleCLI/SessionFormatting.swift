import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LocalTime {
    /// The machine's zone, which follows `TZ` and daylight saving.
    static let system = LocalTime { localUTCOffsetSeconds(atUnixSeconds: $0) }
}

/// Wall-clock time for people: "2026-01-01 10:30" in `time` (the machine's zone unless a test
/// passes another).
func localDateTime(_ unixSeconds: Double, in time: LocalTime = .system) -> String {
    time.day(unixSeconds).iso + " " + time.clock(unixSeconds)
}

/// The time of day, "10:30", or "10:30:15" with `seconds`.
func localClock(_ unixSeconds: Double, in time: LocalTime = .system, seconds: Bool = false) -> String {
    let second = time.secondOfDay(unixSeconds) % 60
    return time.clock(unixSeconds) + (seconds ? (second < 10 ? ":0\(second)" : ":\(second)") : "")
}

/// Text output for people. Times are local (`time`); JSON keeps UTC.
extension SessionText {
    static func table(_ sessions: [CompanionSession], bandLabels: [String: String]? = nil, time: LocalTime = .system) -> String {
        let labels = bandLabels ?? SessionText.bandLabels(sessions)
        var lines = [pad("ID", 5) + pad("START", 17) + pad("KIND", 13) + pad("TIME", 8) + pad("STEPS", 7) + pad("WITHIN", 8) + pad("ALERTS", 7) + "BAND"]
        for session in sessions {
            let s = session.summary
            let walk = s.kind == .mindfulWalk
            lines.append(pad(String(session.id), 5) + pad(localDateTime(s.startUnixSeconds, in: time), 17) + pad(s.kind.rawValue, 13)
                         + pad(formatDuration(s.durationSeconds), 8) + pad(String(s.steps), 7)
                         + pad(walk ? (s.withinLimitShare.map { "\(Int(($0 * 100).rounded())) %" } ?? "--") : "", 8)
                         + pad(walk ? String(s.alerts) : "", 7)
                         + (labels[session.bandID] ?? session.bandName))
        }
        if let first = sessions.first {
            lines.append("Times in \(time.zoneLabel(first.summary.startUnixSeconds)) (set TZ for another zone). WITHIN: share of the walking time within the pace limit.")
        }
        return lines.joined(separator: "\n")
    }

    /// A session a band was still recording at a sync: "still being recorded: mindful-walk
    /// since 2026-11-26 14:02 (12:05 so far at the sync); it comes with the first sync after it ends".
    static func recordingLine(kind: String, startUnixSeconds: Double, recordedSeconds: Int, band: String? = nil, time: LocalTime = .system) -> String {
        "still being recorded\(band.map { " on \($0)" } ?? ""): \(printableText(kind, maximum: 32)) since \(localDateTime(startUnixSeconds, in: time)) "
            + "(\(formatDuration(Double(recordedSeconds))) so far at the sync); it comes with the first sync after it ends"
    }

    /// The sessions the bands were recording at their last syncs, one line each, for the end
    /// of `sessions list` (empty when none).
    static func recordingLines(_ recordings: [BandRecording], bandLabels: [String: String], time: LocalTime = .system) -> [String] {
        recordings.map {
            recordingLine(kind: $0.kind, startUnixSeconds: $0.startUnixSeconds, recordedSeconds: $0.recordedSeconds,
                          band: bandLabels[$0.bandID] ?? $0.bandName, time: time)
        }
    }

    /// What to call each band (by id) so that two bands with the same name differ: the name,
    /// and where names collide the start of the id ("Simulated band (3f2a9c01)").
    static func bandLabels(_ sessions: [CompanionSession]) -> [String: String] {
        var namesByID: [String: String] = [:]
        for session in sessions { namesByID[session.bandID] = session.bandName }
        var idsByName: [String: [String]] = [:]
        for (id, name) in namesByID { idsByName[name.lowercased(), default: []].append(id) }
        var labels: [String: String] = [:]
        for (id, name) in namesByID {
            let sharing = idsByName[name.lowercased()] ?? [id]
            guard sharing.count > 1 else { labels[id] = name; continue }
            let common = sharing.filter { $0 != id }.map { other in zip(id, other).prefix { $0 == $1 }.count }.max() ?? 0
            labels[id] = "\(name) (\(id.prefix(max(8, common + 1))))"
        }
        return labels
    }

    static func detail(_ session: CompanionSession, seconds: [SessionSecond], time: LocalTime = .system) -> String {
        let s = session.summary
        var lines: [String] = []
        let title = s.kind == .mindfulWalk ? "Mindful walk" : "Calibration"
        lines.append("\(title) #\(session.id) from \(session.bandName) (\(session.bandID.prefix(8))), "
                     + "\(localDateTime(s.startUnixSeconds, in: time)) \(time.zoneLabel(s.startUnixSeconds)), \(formatDuration(s.durationSeconds))")
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
        let clock = ChartClock(startUnixSeconds: s.startUnixSeconds, time: time)
        let pace = PaceChart.render(seconds: seconds, limit: s.parameters.limitCadenceStepsPerMinute, clock: clock)
        if !pace.isEmpty {
            lines.append("")
            lines.append(contentsOf: pace)
        }
        let heart = HeartRateChart.render(seconds: seconds, clock: clock)
        if !heart.isEmpty {
            lines.append("")
            lines.append(contentsOf: heart)
        }
        return lines.joined(separator: "\n")
    }
}

/// The local clock under a chart's time axis: when the session started, in which zone.
struct ChartClock {
    var startUnixSeconds: Double
    var time: LocalTime
}

/// What the text charts share: seconds grouped into at most `width` columns, and the rows
/// under the axis (alerts and pauses marked, the local start and end times).
enum ChartColumns {
    static func slices(_ seconds: [SessionSecond], width: Int) -> [ArraySlice<SessionSecond>] {
        let columns = min(width, seconds.count)
        guard columns > 0 else { return [] }
        let perColumn = Double(seconds.count) / Double(columns)
        return (0..<columns).map { c in
            let first: Int = Int(Double(c) * perColumn)
            let next: Int = Int(Double(c + 1) * perColumn)
            return seconds[first..<Swift.max(first + 1, next)]
        }
    }

    /// `^` where an alert sounded, `p` where the wearer had paused (most of the column).
    static func markers(_ slices: [ArraySlice<SessionSecond>]) -> String {
        slices.map { slice in
            if slice.contains(where: { $0.alerts > 0 }) { return "^" }
            return slice.filter(\.paused).count * 2 > slice.count ? "p" : " "
        }.joined()
    }

    static func footer(_ slices: [ArraySlice<SessionSecond>], seconds: [SessionSecond], clock: ChartClock?) -> [String] {
        var rows = ["     +" + String(repeating: "-", count: slices.count), "      " + markers(slices)]
        if let clock, let last = seconds.last {
            // Seconds too when the walk is short enough for minutes to repeat.
            let short = last.offsetSeconds < 600
            let start = localClock(clock.startUnixSeconds, in: clock.time, seconds: short)
            let end = localClock(clock.startUnixSeconds + Double(last.offsetSeconds + 1), in: clock.time, seconds: short)
            let gap = max(1, slices.count - start.count - end.count)
            rows.append("      " + start + String(repeating: " ", count: gap) + end)
        }
        return rows
    }
}

/// A text chart of cadence over time, one column per time slice, with the limit drawn in.
enum PaceChart {
    static func render(seconds: [SessionSecond], limit: Double?, clock: ChartClock? = nil, width: Int = 60, height: Int = 8) -> [String] {
        let slices = ChartColumns.slices(seconds, width: width)
        guard !slices.isEmpty else { return [] }
        let cadence = slices.map { slice in slice.reduce(0) { $0 + $1.cadenceStepsPerMinute } / Double(slice.count) }
        let top = max((cadence.max() ?? 0), limit ?? 0) * 1.1
        let bottom = max(0, min(cadence.filter { $0 > 0 }.min() ?? 0, limit ?? .infinity) * 0.8)
        guard top > bottom else { return [] }
        let limitRow = limit.map { Int(((top - $0) / (top - bottom) * Double(height - 1)).rounded()) }
        var rows: [String] = []
        for r in 0..<height {
            let value = top - (top - bottom) * Double(r) / Double(height - 1)
            var line = SessionText.pad(String(Int(value.rounded())), 5) + "|"
            for c in cadence.indices {
                if cadence[c] >= value {
                    line += limit.map { cadence[c] > $0 } == true ? "#" : "*"
                } else {
                    line += r == limitRow ? "-" : " "
                }
            }
            rows.append(line)
        }
        rows += ChartColumns.footer(slices, seconds: seconds, clock: clock)
        rows.append("      cadence (steps/min) over \(formatDuration(Double(seconds.count)))"
                    + (limit != nil ? "; --- limit, # over it" : "") + "; ^ alert, p paused")
        return rows
    }
}

/// A text chart of heart rate over time: one `*` per column at its mean reading (columns
/// without a trustworthy reading stay empty), alerts and pauses marked under the axis.
enum HeartRateChart {
    static func render(seconds: [SessionSecond], clock: ChartClock? = nil, width: Int = 60, height: Int = 6) -> [String] {
        let slices = ChartColumns.slices(seconds, width: width)
        let means: [Double?] = slices.map { slice in
            let readings = slice.compactMap(\.heartRateBPM)
            return readings.isEmpty ? nil : readings.reduce(0, +) / Double(readings.count)
        }
        let known = means.compactMap { $0 }
        guard let high = known.max(), let low = known.min() else { return [] }
        let top = (high + 2).rounded(.up), bottom = max(0, (low - 2).rounded(.down))
        var rows: [String] = []
        for r in 0..<height {
            let value = top - (top - bottom) * Double(r) / Double(height - 1)
            var line = SessionText.pad(String(Int(value.rounded())), 5) + "|"
            for mean in means {
                guard let mean else { line += " "; continue }
                line += Int(((top - mean) / (top - bottom) * Double(height - 1)).rounded()) == r ? "*" : " "
            }
            rows.append(line)
        }
        rows += ChartColumns.footer(slices, seconds: seconds, clock: clock)
        rows.append("      heart rate (bpm) over \(formatDuration(Double(seconds.count))); ^ alert, p paused")
        return rows
    }
}

extension String {
    var replacingT: String { String(map { $0 == "T" ? " " : $0 }).replacingZ }
    var replacingZ: String { hasSuffix("Z") ? String(dropLast()) : self }
}
