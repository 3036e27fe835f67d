import AmbleCompanionStore
import AmbleModel

/// A run of local calendar days a report covers: a week (Monday to Sunday) or a month.
public struct ReportPeriod: Equatable, Sendable {
    public var firstDay: CivilDay
    var dayCount: Int
    public var title: String

    public static func week(containing day: CivilDay) -> ReportPeriod {
        let first = day.startOfWeek
        return ReportPeriod(firstDay: first, dayCount: 7, title: "Week of \(first.long) to \(first.adding(days: 6).long)")
    }

    public static func month(containing day: CivilDay) -> ReportPeriod {
        let first = day.startOfMonth
        let c = first.components
        return ReportPeriod(firstDay: first, dayCount: first.startOfNextMonth.daysSinceEpoch - first.daysSinceEpoch,
                            title: "\(CivilDay.longMonthNames[c.month - 1]) \(c.year)")
    }

    var days: [CivilDay] { (0..<dayCount).map { firstDay.adding(days: $0) } }
    public var lastDay: CivilDay { firstDay.adding(days: dayCount - 1) }

    public func contains(_ day: CivilDay) -> Bool { day >= firstDay && day <= lastDay }
}

/// One local day's figures in a period report.
struct DayFigures: Equatable, Sendable {
    var day: CivilDay
    var walks = 0
    /// Minutes of mindful walking: the walks' durations without their pauses.
    var mindfulMinutes = 0.0
    /// Steps of every session that started that day (calibrations too).
    var steps = 0
    var alerts = 0
    /// Walking and over-limit seconds of the day's walks that had a limit.
    var walkingSeconds = 0
    var overLimitSeconds = 0
    /// Median heart rate of the seconds the wearer stood still (no cadence) in the day's
    /// sessions, beats per minute; nil with fewer than `minimumRestingSeconds` such readings.
    var restingHeartRateBPM: Double?

    /// Share of the walking time within the limit, 0...1; nil without walking under a limit.
    var withinLimitShare: Double? {
        walkingSeconds > 0 ? Double(max(0, walkingSeconds - overLimitSeconds)) / Double(walkingSeconds) : nil
    }

    /// Fewer still seconds with a heart rate than this give no resting figure for the day.
    static let minimumRestingSeconds = 30

    /// The figures of each day of `period` from the sessions (with their seconds) that
    /// started in it, in local time.
    static func make(period: ReportPeriod, sessions: [(CompanionSession, [SessionSecond])], time: LocalTime) -> [DayFigures] {
        var figures = period.days.map { DayFigures(day: $0) }
        var stillRates: [[Double]] = Array(repeating: [], count: period.dayCount)
        for (session, seconds) in sessions {
            let s = session.summary
            let index = time.day(s.startUnixSeconds).daysSinceEpoch - period.firstDay.daysSinceEpoch
            guard figures.indices.contains(index) else { continue }
            figures[index].steps += s.steps
            stillRates[index] += seconds.filter { $0.cadenceStepsPerMinute == 0 }.compactMap(\.heartRateBPM)
            guard s.kind == .mindfulWalk else { continue }
            figures[index].walks += 1
            figures[index].alerts += s.alerts
            figures[index].mindfulMinutes += max(0, s.durationSeconds - Double(s.pausedSeconds)) / 60
            if s.parameters.limitCadenceStepsPerMinute != nil, let walking = s.walkingSeconds {
                figures[index].walkingSeconds += walking
                figures[index].overLimitSeconds += min(walking, s.timeOverLimitSeconds)
            }
        }
        for index in figures.indices where stillRates[index].count >= minimumRestingSeconds {
            let sorted = stillRates[index].sorted()
            let middle = sorted.count / 2
            figures[index].restingHeartRateBPM = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        return figures
    }
}

/// The page of a week or a month: walks per day, mindful minutes, the trend of the time within
/// the limit and of the resting heart rate, steps per day, and the sessions. Pure.
public enum PeriodReport {
    public static func html(period: ReportPeriod, sessions: [(CompanionSession, [SessionSecond])], time: LocalTime) -> String {
        let days = DayFigures.make(period: period, sessions: sessions, time: time)
        let zone = time.zoneLabel(time.startOfDay(period.firstDay))
        var body = "<header>\n<h1>\(HTMLPage.escape(period.title))</h1>\n"
        let bands = Set(sessions.map(\.0.bandName)).sorted()
        body += "<p>\(sessions.count) session\(sessions.count == 1 ? "" : "s") from " + bands.map { "<span class=\"band\">\(HTMLPage.escape($0))</span>" }.joined(separator: ", ")
            + " · days in local time (\(HTMLPage.escape(zone)))</p>\n</header>\n"

        let walks = days.reduce(0) { $0 + $1.walks }
        let walking = days.reduce(0) { $0 + $1.walkingSeconds }, over = days.reduce(0) { $0 + $1.overLimitSeconds }
        let rest = days.compactMap(\.restingHeartRateBPM)
        var figures = [
            HTMLPage.figure("Walks", String(walks), note: "on \(days.filter { $0.walks > 0 }.count) of \(period.dayCount) days"),
            HTMLPage.figure("Mindful minutes", String(Int(days.reduce(0) { $0 + $1.mindfulMinutes }.rounded()))),
            HTMLPage.figure("Within the limit", walking > 0 ? "\(Int((Double(walking - over) / Double(walking) * 100).rounded())) %" : "no data",
                            note: walking > 0 ? "of \(formatDuration(Double(walking))) walking" : nil),
            HTMLPage.figure("Alerts", String(days.reduce(0) { $0 + $1.alerts })),
            HTMLPage.figure("Steps", String(days.reduce(0) { $0 + $1.steps })),
        ]
        figures.append(HTMLPage.figure("Resting heart rate", rest.isEmpty ? "no data" : "\(Int((rest.reduce(0, +) / Double(rest.count)).rounded())) bpm",
                                       note: rest.isEmpty ? nil : "mean of \(rest.count) day\(rest.count == 1 ? "" : "s")"))
        body += "<div class=\"figures\">\n" + figures.joined(separator: "\n") + "\n</div>\n"

        let labels = dayLabels(period)
        body += HTMLPage.chartSection(id: "walks-per-day", heading: "Walks per day",
                                      svg: bars(days.map { Double($0.walks) }, labels: labels, label: "Mindful walks per day", format: { String(Int($0)) }),
                                      legend: []) + "\n"
        body += HTMLPage.chartSection(id: "mindful-minutes", heading: "Mindful minutes per day",
                                      svg: bars(days.map(\.mindfulMinutes), labels: labels, label: "Mindful minutes per day", format: { String(Int($0.rounded())) }),
                                      legend: [("bar", "minutes of mindful walking, pauses left out")]) + "\n"
        body += HTMLPage.chartSection(id: "within-limit", heading: "Time within the limit",
                                      svg: trend(days.map { $0.withinLimitShare.map { $0 * 100 } }, labels: labels, fixedRange: 0...100,
                                                 label: "Share of walking time within the limit per day", format: { "\(Int($0.rounded()))%" }),
                                      legend: [("cadence", "share of each day's walking time within the limit")]) + "\n"
        body += HTMLPage.chartSection(id: "resting-heart-rate", heading: "Resting heart rate",
                                      svg: trend(days.map(\.restingHeartRateBPM), labels: labels, fixedRange: nil,
                                                 label: "Resting heart rate per day", format: { String(Int($0.rounded())) }, pointClass: "hr-point", lineClass: "hr"),
                                      legend: [("hr", "median heart rate while standing still in the day's sessions, bpm (days with \(DayFigures.minimumRestingSeconds) s or more of it)")]) + "\n"
        body += HTMLPage.chartSection(id: "steps-per-day", heading: "Steps per day",
                                      svg: bars(days.map { Double($0.steps) }, labels: labels, label: "Steps per day", format: { String(Int($0.rounded())) }),
                                      legend: [("bar", "steps in the day's sessions")]) + "\n"
        body += sessionTable(sessions, time: time) + "\n"
        body += "<footer>Made by <code>amble report</code> from the companion's store.</footer>"
        return HTMLPage.document(title: "\(period.title) – Amble", body: body)
    }

    /// Under-axis labels: every day of a week; the 1st and every 5th of a month.
    static func dayLabels(_ period: ReportPeriod) -> [(Double, String)] {
        period.days.enumerated().compactMap { index, day in
            if period.dayCount <= 7 { return (Double(index) + 0.5, CivilDay.weekdayNames[day.weekday] + "\n" + String(day.components.day)) }
            let d = day.components.day
            return d == 1 || d % 5 == 0 ? (Double(index) + 0.5, String(d)) : nil
        }
    }

    static func bars(_ values: [Double], labels: [(Double, String)], label: String, format: (Double) -> String) -> String {
        let top = max(values.max() ?? 0, 1)
        let ticks = SVGChart.niceTicks(0...top, count: 3, minimumStep: 1)
        let yRange = 0...max(top, ticks.last ?? top)
        let chart = SVGChart(height: 230, left: SVGChart.left(for: ticks.map(format)), top: 30, bottom: SVGChart.twoLineLabelsBottom,
                             xRange: 0...Double(max(1, values.count)), yRange: yRange)
        var svg = chart.open(label: label)
        svg += chart.yGrid(ticks: ticks, format: format)
        svg += chart.xLabels(labels)
        let slot = chart.plotWidth / Double(max(1, values.count))
        for (index, value) in values.enumerated() where value > 0 {
            let x = chart.x(Double(index)) + slot * 0.15, y = chart.y(value)
            svg += "<rect class=\"bar\" x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(slot * 0.7))\" height=\"\(n(chart.top + chart.plotHeight - y))\"><title>\(HTMLPage.escape(format(value)))</title></rect>"
            if values.count <= 7 {
                svg += "<text class=\"value-label\" x=\"\(n(x + slot * 0.35))\" y=\"\(n(y - 8))\" text-anchor=\"middle\">\(HTMLPage.escape(format(value)))</text>"
            }
        }
        if values.allSatisfy({ $0 == 0 }) { svg += chart.noData("none in this period") }
        return svg + "</svg>"
    }

    /// Points per day joined by a line across the days without a value; "no data" without any.
    static func trend(_ values: [Double?], labels: [(Double, String)], fixedRange: ClosedRange<Double>?, label: String, format: (Double) -> String,
                      pointClass: String = "point", lineClass: String = "trend") -> String {
        let present = values.compactMap { $0 }
        let wanted = fixedRange ?? (present.isEmpty ? 40...100 : max(0, ((present.min()! - 5) / 5).rounded(.down) * 5)...((present.max()! + 5) / 5).rounded(.up) * 5)
        let ticks = SVGChart.niceTicks(wanted, count: 4)
        let yRange = wanted.lowerBound...max(wanted.upperBound, ticks.last!)
        let chart = SVGChart(height: 230, left: SVGChart.left(for: ticks.map(format)), top: 30, bottom: SVGChart.twoLineLabelsBottom,
                             xRange: 0...Double(max(1, values.count)), yRange: yRange)
        var svg = chart.open(label: label)
        svg += chart.yGrid(ticks: ticks, format: format)
        svg += chart.xLabels(labels)
        if present.isEmpty {
            svg += chart.noData("no data")
        } else {
            let points = values.enumerated().compactMap { index, value in value.map { (Double(index) + 0.5, Optional($0)) } }
            svg += chart.polylines(points, cssClass: lineClass)
            for (x, value) in points {
                guard let value else { continue }
                svg += "<circle class=\"\(pointClass)\" cx=\"\(n(chart.x(x)))\" cy=\"\(n(chart.y(value)))\" r=\"4\"><title>\(HTMLPage.escape(format(value)))</title></circle>"
                if values.count <= 7 {
                    svg += "<text class=\"value-label\" x=\"\(n(chart.x(x)))\" y=\"\(n(chart.y(value) - 9))\" text-anchor=\"middle\">\(HTMLPage.escape(format(value)))</text>"
                }
            }
        }
        return svg + "</svg>"
    }

    static func sessionTable(_ sessions: [(CompanionSession, [SessionSecond])], time: LocalTime) -> String {
        var html = "<section class=\"table\" id=\"sessions\">\n<h2>Sessions</h2>\n<div class=\"scroll\"><table>\n"
        html += "<thead><tr><th>When</th><th>Kind</th><th class=\"num\">Time</th><th class=\"num\">Within limit</th><th class=\"num\">Alerts</th><th class=\"num\">Steps</th><th>Band</th></tr></thead>\n<tbody>\n"
        for (session, _) in sessions {
            let s = session.summary
            html += "<tr><td class=\"when\">\(HTMLPage.escape(time.dateAndClock(s.startUnixSeconds)))</td><td>\(s.kind == .mindfulWalk ? "walk" : "calibration") #\(session.id)</td>"
                + "<td class=\"num\">\(formatDuration(s.durationSeconds))</td>"
                + "<td class=\"num\">\(s.withinLimitShare.map { "\(Int(($0 * 100).rounded())) %" } ?? "–")</td>"
                + "<td class=\"num\">\(s.kind == .mindfulWalk ? String(s.alerts) : "–")</td><td class=\"num\">\(s.steps)</td>"
                + "<td class=\"band\">\(HTMLPage.escape(session.bandName))</td></tr>\n"
        }
        return html + "</tbody></table></div>\n</section>"
    }
}
