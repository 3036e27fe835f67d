import AmbleCompanionStore

/// A challenge on screen (under way, or its end report) and as an HTML page. Pure.
public enum ChallengeReport {
    public static func title(_ c: StoredChallenge) -> String {
        "level \(c.level), \(c.walksPerWeek) walk\(c.walksPerWeek == 1 ? "" : "s") a week for \(c.weeks) week\(c.weeks == 1 ? "" : "s")"
    }

    /// Each week as a bar of its walks against its target: `week 1  ###-  3 of 4`.
    static func weekBars(_ s: ChallengeStatus) -> [String] {
        (0 ..< s.challenge.weeks).map { week in
            let done = s.walksPerDay.dropFirst(week * 7).prefix(7).reduce(0, +)
            let target = s.challenge.walksPerWeek
            let first = s.firstDay.adding(days: week * 7)
            let bar = String(repeating: "#", count: min(done, target)) + String(repeating: "-", count: max(0, target - done))
                + (done > target ? String(repeating: "+", count: min(done - target, 10)) : "")
            return "  week \(week + 1) (from \(first.short))  " + SessionText.pad(bar, max(target, 8) + 2) + "\(done) of \(target)"
        }
    }

    /// `amble challenge` while one is under way.
    public static func progressText(_ s: ChallengeStatus, open: [Int]) -> String {
        var lines = ["Challenge #\(s.challenge.id), \(title(s.challenge)), from \(s.firstDay.long) to \(s.endDay.adding(days: -1).long)"]
        lines.append("  \(s.daysLeft) day\(s.daysLeft == 1 ? "" : "s") left · week \(s.weekIndex + 1) of \(s.challenge.weeks): "
                     + "\(s.walksThisWeek) of \(s.challenge.walksPerWeek) walks · so far \(GoalsText.percent(s.completionRate)) of the challenge")
        lines += weekBars(s)
        lines.append("Levels open: " + open.map(String.init).joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    /// The end report: the message, the completion rate and the graph.
    public static func reportText(_ s: ChallengeStatus) -> String {
        let message = ChallengeRules.message(level: s.challenge.level, walksPerWeek: s.challenge.walksPerWeek, walks: s.walks, completionRate: s.completionRate)
        var lines = ["Challenge #\(s.challenge.id) report: \(title(s.challenge))",
                     "  \(s.firstDay.long) to \(s.endDay.adding(days: -1).long)", "",
                     message.praise, "",
                     "Completion: \(GoalsText.percent(s.completionRate)) (\(s.walks) walk\(s.walks == 1 ? "" : "s") of \(s.walksAsked) asked; each week counts up to its \(s.challenge.walksPerWeek))"]
        lines += weekBars(s)
        lines.append("  walks day by day: " + s.walksPerDay.map { $0 == 0 ? "." : $0 > 9 ? "+" : String($0) }.joined())
        lines += ["", message.next]
        return lines.joined(separator: "\n")
    }

    /// One line per finished challenge, for `amble challenge reports`.
    public static func listLine(_ s: ChallengeStatus) -> String {
        "#\(s.challenge.id)  " + SessionText.pad("level \(s.challenge.level)", 9) + SessionText.pad("\(s.firstDay.iso) to \(s.endDay.adding(days: -1).iso)", 26)
            + SessionText.pad("\(s.walks)/\(s.walksAsked) walks", 14) + GoalsText.percent(s.completionRate)
    }

    public static func json(_ s: ChallengeStatus) -> String {
        let fields: [(String, String)] = [
            ("id", String(s.challenge.id)), ("level", String(s.challenge.level)), ("weeks", String(s.challenge.weeks)),
            ("walks_per_week", String(s.challenge.walksPerWeek)), ("first_day", SessionJSON.string(s.firstDay.iso)),
            ("last_day", SessionJSON.string(s.endDay.adding(days: -1).iso)), ("over", s.isOver ? "true" : "false"),
            ("days_left", String(s.daysLeft)), ("walks", String(s.walks)), ("walks_asked", String(s.walksAsked)),
            ("walks_per_day", "[" + s.walksPerDay.map(String.init).joined(separator: ", ") + "]"),
            ("completion_rate", SessionJSON.number(s.completionRate, digits: 3)),
        ]
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// The performance graph: walks so far, day by day, against the pace that completes the
    /// challenge (a dashed line from 0 to all the walks asked).
    static func graph(_ s: ChallengeStatus) -> String {
        let days = s.walksPerDay.count
        var cumulative: [Double] = []
        var sum = 0
        for walks in s.walksPerDay { sum += walks; cumulative.append(Double(sum)) }
        let top = Double(max(s.walksAsked, sum))
        let ticks = SVGChart.niceTicks(0 ... max(1, top), count: 4, minimumStep: 1)
        let chart = SVGChart(height: 260, top: 20, bottom: SVGChart.twoLineLabelsBottom, xRange: 0 ... Double(days), yRange: 0 ... ticks.last!)
        var svg = chart.open(label: "Walks so far, day by day, against the pace that completes the challenge")
        svg += chart.yGrid(ticks: ticks, format: { String(Int($0)) })
        let labels = (0 ..< days).compactMap { index -> (Double, String)? in
            let day = s.firstDay.adding(days: index)
            return days <= 7 || index % 7 == 0 ? (Double(index) + 0.5, CivilDay.weekdayNames[day.weekday] + "\n" + String(day.components.day)) : nil
        }
        svg += chart.xLabels(labels)
        svg += "<line class=\"limit\" x1=\"\(n(chart.x(0)))\" y1=\"\(n(chart.y(0)))\" x2=\"\(n(chart.x(Double(days))))\" y2=\"\(n(chart.y(Double(s.walksAsked))))\"/>"
        let slot = chart.plotWidth / Double(max(1, days))
        for (index, walks) in s.walksPerDay.enumerated() where walks > 0 {
            let x = chart.x(Double(index)) + slot * 0.2, y = chart.y(Double(walks))
            svg += "<rect class=\"bar\" x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(slot * 0.6))\" height=\"\(n(chart.top + chart.plotHeight - y))\"><title>\(walks) walk\(walks == 1 ? "" : "s")</title></rect>"
        }
        var points: [(Double, Double?)] = [(0, 0)]
        for (index, value) in cumulative.enumerated() { points.append((Double(index) + 1, value)) }
        svg += chart.polylines(points, cssClass: "cadence")
        return svg + "</svg>"
    }

    /// The end report as one self-contained page (inline CSS and SVG, no script).
    public static func html(_ s: ChallengeStatus, time: LocalTime) -> String {
        let message = ChallengeRules.message(level: s.challenge.level, walksPerWeek: s.challenge.walksPerWeek, walks: s.walks, completionRate: s.completionRate)
        var body = "<header>\n<h1>\(HTMLPage.escape("Challenge report, " + title(s.challenge)))</h1>\n"
        body += "<p>\(HTMLPage.escape("\(s.firstDay.long) to \(s.endDay.adding(days: -1).long) · days in local time (\(time.zoneLabel(time.startOfDay(s.firstDay))))"))</p>\n</header>\n"
        body += "<section class=\"table\" id=\"message\"><h2>\(HTMLPage.escape(message.praise))</h2><p>\(HTMLPage.escape(message.next))</p></section>\n"
        body += "<div class=\"figures\">\n" + [
            HTMLPage.figure("Completion", GoalsText.percent(s.completionRate), note: "each week counts up to \(s.challenge.walksPerWeek)"),
            HTMLPage.figure("Walks", "\(s.walks) of \(s.walksAsked)"),
            HTMLPage.figure("Days with a walk", "\(s.walksPerDay.filter { $0 > 0 }.count) of \(s.walksPerDay.count)"),
            HTMLPage.figure("Level", String(s.challenge.level), note: "\(s.challenge.weeks) week\(s.challenge.weeks == 1 ? "" : "s")"),
        ].joined(separator: "\n") + "\n</div>\n"
        body += HTMLPage.chartSection(id: "performance", heading: "Performance", svg: graph(s),
                                      legend: [("bar", "walks each day"), ("cadence", "walks so far"), ("limit", "the pace that completes the challenge")]) + "\n"
        body += "<footer>Made by <code>amble challenge report</code> from the companion's store.</footer>"
        return HTMLPage.document(title: "Challenge report – Amble", body: body)
    }
}
