import AmbleCompanionStore
import AmbleModel

/// The page of one session: its summary, cadence against the limit over time (alerts and
/// pauses marked) and heart rate over time. Pure: values in, HTML out.
public enum WalkReport {
    /// The most columns a chart draws; longer sessions are averaged into this many slices.
    static let maximumColumns = 720

    public static func html(_ session: CompanionSession, seconds: [SessionSecond], time: LocalTime) -> String {
        let s = session.summary
        let title = s.kind == .mindfulWalk ? "Mindful walk" : "Calibration"
        let end = s.startUnixSeconds + max(s.durationSeconds, Double(seconds.count))
        var body = "<header>\n<h1>\(title) #\(session.id)</h1>\n"
        body += "<p>\(HTMLPage.escape(time.dateAndClock(s.startUnixSeconds)))–\(HTMLPage.escape(time.clock(end))) "
            + "(\(HTMLPage.escape(time.zoneLabel(s.startUnixSeconds)))) · band <span class=\"band\">\(HTMLPage.escape(session.bandName))</span></p>\n</header>\n"
        body += "<div class=\"figures\">\n" + figures(session).joined(separator: "\n") + "\n</div>\n"
        let slices = Slice.make(seconds, maximumColumns: maximumColumns)
        body += HTMLPage.chartSection(id: "cadence", heading: "Cadence" + (s.parameters.limitCadenceStepsPerMinute != nil ? " and the limit" : ""),
                                      svg: cadenceSVG(slices, seconds: seconds, limit: s.parameters.limitCadenceStepsPerMinute, start: s.startUnixSeconds, time: time),
                                      legend: cadenceLegend(s, seconds: seconds)) + "\n"
        body += HTMLPage.chartSection(id: "heart-rate", heading: "Heart rate",
                                      svg: heartRateSVG(slices, count: seconds.count, start: s.startUnixSeconds, time: time),
                                      legend: slices.contains { $0.heartRateBPM != nil } ? [("hr", "beats per minute, where the signal was trustworthy")] : []) + "\n"
        body += "<footer>Made by <code>amble report</code> from the companion's store. Times are local (\(HTMLPage.escape(time.zoneLabel(s.startUnixSeconds)))).</footer>"
        return HTMLPage.document(title: "\(title) #\(session.id), \(time.day(s.startUnixSeconds).long) – Amble", body: body)
    }

    static func figures(_ session: CompanionSession) -> [String] {
        let s = session.summary
        var out = [HTMLPage.figure("Duration", formatDuration(s.durationSeconds))]
        if let limit = s.parameters.limitCadenceStepsPerMinute {
            if let share = s.withinLimitShare {
                out.append(HTMLPage.figure("Within the limit", "\(Int((share * 100).rounded())) %",
                                           note: "of \(formatDuration(Double(s.walkingSeconds ?? 0))) walking; \(formatDuration(Double(s.timeOverLimitSeconds))) over"))
            } else {
                out.append(HTMLPage.figure("Within the limit", "no data", note: "no walking recorded"))
            }
            out.append(HTMLPage.figure("Alerts", String(s.alerts)))
            out.append(HTMLPage.figure("Limit", "\(Int(limit.rounded())) steps/min",
                                       note: s.parameters.reductionPercent.flatMap { r in s.parameters.calibratedCadenceStepsPerMinute.map { "\(r) % under your normal \(Int($0.rounded()))" } }))
        }
        if s.kind == .calibration {
            out.append(HTMLPage.figure("Measured pace", s.measuredCadenceStepsPerMinute.map { "\(Int($0.rounded())) steps/min" } ?? "failed",
                                       note: s.speedMetersPerSecond.map { "\(formatOne($0 * 3.6)) km/h" }))
        }
        out.append(HTMLPage.figure("Steps", String(s.steps)))
        out.append(HTMLPage.figure("Distance", SessionText.formatDistance(s.distanceMeters), note: "step \(Int((s.parameters.stepLengthMeters * 100).rounded())) cm"))
        out.append(HTMLPage.figure("Energy", s.activeKilocalories.map { "\(Int($0.rounded())) kcal" } ?? "no data", note: "active"))
        out.append(HTMLPage.figure("Average heart rate", s.averageHeartRateBPM.map { "\(Int($0.rounded())) bpm" } ?? "no data"))
        out.append(HTMLPage.figure("Maximum heart rate", s.maximumHeartRateBPM.map { "\(Int($0.rounded())) bpm" } ?? "no data"))
        out.append(HTMLPage.figure("Pauses", String(s.pauses), note: s.pauses > 0 ? "\(formatDuration(Double(s.pausedSeconds))) in all" : nil))
        if s.gapSeconds > 0 {
            out.append(HTMLPage.figure("Sensor gaps", "\(s.gapSeconds) s", note: "without data from a sensor"))
        }
        return out
    }

    /// Consecutive seconds averaged into one column of a chart.
    struct Slice {
        /// Offset of the slice's first second from the session's start, seconds.
        var startSeconds: Double
        /// Mean cadence of its walking seconds, steps per minute; nil when none walked.
        var cadence: Double?
        var overLimit: Bool
        /// Mean of its heart rates that had a value, beats per minute.
        var heartRateBPM: Double?

        static func make(_ seconds: [SessionSecond], maximumColumns: Int) -> [Slice] {
            guard !seconds.isEmpty else { return [] }
            let perSlice = max(1, (seconds.count + maximumColumns - 1) / maximumColumns)
            return stride(from: 0, to: seconds.count, by: perSlice).map { first in
                let rows = seconds[first..<min(seconds.count, first + perSlice)]
                let walking = rows.filter(\.isWalking)
                let rates = rows.compactMap(\.heartRateBPM)
                return Slice(startSeconds: Double(first),
                             cadence: walking.isEmpty ? nil : walking.reduce(0) { $0 + $1.cadenceStepsPerMinute } / Double(walking.count),
                             overLimit: walking.contains { $0.overLimit },
                             heartRateBPM: rates.isEmpty ? nil : rates.reduce(0, +) / Double(rates.count))
            }
        }
    }

    static func cadenceLegend(_ s: SessionSummary, seconds: [SessionSecond]) -> [(String, String)] {
        var legend = [("cadence", "steps per minute while walking")]
        if s.parameters.limitCadenceStepsPerMinute != nil {
            legend.append(("over", "over the limit"))
            legend.append(("limit", "the limit"))
        }
        if seconds.contains(where: { $0.alerts > 0 }) { legend.append(("alert", "an alert (the band buzzed; alerts close together share a marker)")) }
        if seconds.contains(where: \.paused) { legend.append(("pause", "paused")) }
        return legend
    }

    static func cadenceSVG(_ slices: [Slice], seconds: [SessionSecond], limit: Double?, start: Double, time: LocalTime) -> String {
        let cadences = slices.compactMap(\.cadence)
        let low = min(cadences.min() ?? limit ?? 0, limit ?? .infinity)
        let high = max(cadences.max() ?? limit ?? 120, limit ?? 0)
        let wanted = max(0, ((low - 10) / 10).rounded(.down) * 10)...max(10, ((high + 5) / 10).rounded(.up) * 10)
        let ticks = SVGChart.niceTicks(wanted)
        let yRange = wanted.lowerBound...ticks.last!
        let chart = SVGChart(xRange: 0...Double(max(1, seconds.count)), yRange: yRange)
        var svg = chart.open(label: "Cadence over time" + (limit.map { ", limit \(Int($0.rounded())) steps per minute" } ?? ""))
        // Pauses first, under everything else.
        var index = 0
        while index < seconds.count {
            guard seconds[index].paused else { index += 1; continue }
            var end = index
            while end < seconds.count && seconds[end].paused { end += 1 }
            svg += "<rect class=\"pause\" x=\"\(n(chart.x(Double(index))))\" y=\"\(n(chart.top))\" width=\"\(n(max(1, chart.x(Double(end)) - chart.x(Double(index)))))\" height=\"\(n(chart.plotHeight))\">"
                + "<title>paused \(time.clock(start + Double(index)))–\(time.clock(start + Double(end)))</title></rect>"
            index = end
        }
        svg += chart.yGrid(ticks: ticks, format: { String(Int($0)) })
        svg += chart.xLabels(clockTicks(start: start, count: seconds.count, time: time))
        if seconds.isEmpty || cadences.isEmpty {
            svg += chart.noData(seconds.isEmpty ? "no data" : "no walking recorded")
        }
        let width = slices.count > 1 ? slices[1].startSeconds - slices[0].startSeconds : 1
        let points = slices.map { ($0.startSeconds + width / 2, $0.cadence) }
        svg += chart.polylines(points, cssClass: "cadence")
        if limit != nil {
            svg += chart.polylines(zip(points, slices).map { ($0.0, $1.overLimit ? $0.1 : nil) }, cssClass: "cadence over")
        }
        if let limit {
            let y = chart.y(limit)
            svg += "<line class=\"limit\" x1=\"\(n(chart.left))\" x2=\"\(n(chart.width - chart.right))\" y1=\"\(n(y))\" y2=\"\(n(y))\"/>"
            svg += "<text x=\"\(n(chart.width - chart.right - 4))\" y=\"\(n(y - 5))\" text-anchor=\"end\">limit \(Int(limit.rounded()))</text>"
        }
        for marker in alertMarkers(seconds, chart: chart) {
            let x = marker.x, y = chart.top
            let first = time.clock(start + Double(marker.firstSecond)), last = time.clock(start + Double(marker.lastSecond))
            let title = marker.alerts == 1 ? "alert at \(first)" : "\(marker.alerts) alerts, \(first)–\(last)"
            svg += "<path class=\"alert\" d=\"M\(n(x - alertMarkerWidth / 2)) \(n(y - 12))h\(n(alertMarkerWidth))l-\(n(alertMarkerWidth / 2)) 11z\"><title>\(title)</title></path>"
        }
        return svg + "</svg>"
    }

    /// An alert marker's width, user units.
    static let alertMarkerWidth = 12.0
    /// The least distance between two markers' centres, user units: half a marker's width of
    /// white between them.
    static let alertMarkerSpacing = 18.0

    /// One marker on the cadence chart for alerts close together.
    struct AlertMarker: Equatable {
        /// Where it is drawn, user units: at its first alert's second.
        var x: Double
        var firstSecond: Int
        var lastSecond: Int
        var alerts: Int
    }

    /// The alerts as markers that never overlap: an alert closer than `alertMarkerSpacing` to
    /// the marker before joins it (an hour's walk with an alert every 10 s is 34 markers, not
    /// 360 triangles drawn into one solid bar). A marker stays over the plot, clear of the
    /// value labels at its left.
    static func alertMarkers(_ seconds: [SessionSecond], chart: SVGChart) -> [AlertMarker] {
        var markers: [AlertMarker] = []
        let first = chart.left + alertMarkerWidth / 2 + 2, last = chart.width - chart.right - alertMarkerWidth / 2
        for row in seconds where row.alerts > 0 {
            let x = min(max(chart.x(Double(row.offsetSeconds) + 0.5), first), last)
            if let last = markers.last, x - last.x < alertMarkerSpacing {
                markers[markers.count - 1].lastSecond = row.offsetSeconds
                markers[markers.count - 1].alerts += row.alerts
            } else {
                markers.append(AlertMarker(x: x, firstSecond: row.offsetSeconds, lastSecond: row.offsetSeconds, alerts: row.alerts))
            }
        }
        return markers
    }

    static func heartRateSVG(_ slices: [Slice], count: Int, start: Double, time: LocalTime) -> String {
        let rates = slices.compactMap(\.heartRateBPM)
        let wanted = rates.isEmpty ? 40.0...160.0 : max(0, ((rates.min()! - 5) / 10).rounded(.down) * 10)...((rates.max()! + 5) / 10).rounded(.up) * 10
        let ticks = SVGChart.niceTicks(wanted, count: 3)
        let yRange = wanted.lowerBound...ticks.last!
        let chart = SVGChart(height: 200, xRange: 0...Double(max(1, count)), yRange: yRange)
        var svg = chart.open(label: "Heart rate over time")
        svg += chart.yGrid(ticks: ticks, format: { String(Int($0)) })
        svg += chart.xLabels(clockTicks(start: start, count: count, time: time))
        if rates.isEmpty {
            svg += chart.noData("no data: no trustworthy heart-rate reading")
        } else {
            let width = slices.count > 1 ? slices[1].startSeconds - slices[0].startSeconds : 1
            svg += chart.polylines(slices.map { ($0.startSeconds + width / 2, $0.heartRateBPM) }, cssClass: "hr")
        }
        return svg + "</svg>"
    }

    /// Labels at round local clock times (every 1, 2, 5, 10, 15, 30 or 60 minutes), at most 7.
    static func clockTicks(start: Double, count: Int, time: LocalTime) -> [(Double, String)] {
        guard count > 0 else { return [] }
        let stepMinutes = [1, 2, 5, 10, 15, 30, 60, 120].first { count / ($0 * 60) <= 6 } ?? 240
        let step = stepMinutes * 60
        let startOfDay = time.secondOfDay(start)
        var offset = (startOfDay + step - 1) / step * step - startOfDay
        var ticks: [(Double, String)] = []
        while offset <= count {
            ticks.append((Double(offset), time.clock(start + Double(offset))))
            offset += step
        }
        if ticks.isEmpty { ticks.append((0, time.clock(start))) }
        return ticks
    }
}
