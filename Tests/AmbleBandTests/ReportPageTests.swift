@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import ArgumentParser
import Foundation
import Testing

/// `amble report`'s pages, built without I/O from sessions made here.
struct ReportPageTests {
    static let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)

    /// A 5-minute walk: under the limit, over it (an alert), a 20 s pause, under again; heart
    /// rate throughout but the first 10 s.
    static func walkSeconds() -> [SessionSecond] {
        (0..<300).map { t in
            let paused = (200..<220).contains(t)
            let cadence: Double = paused ? 0 : (120..<160).contains(t) ? 100 : 84
            return SessionSecond(offsetSeconds: t, steps: paused ? 0 : 1, cadenceStepsPerMinute: cadence,
                                 heartRateBPM: t < 10 ? nil : paused ? 80 : 95 + Double(t % 7), heartRateConfidence: t < 10 ? nil : 0.9,
                                 overLimit: cadence > 88, alerts: t == 123 || t == 140 ? 1 : 0, paused: paused)
        }
    }

    static func session(id: Int64 = 7, name: String = "Left <wrist> & \"co\"", start: Double = 1_767_258_000, kind: SessionKind = .mindfulWalk,
                        seconds: [SessionSecond] = walkSeconds()) -> (CompanionSession, [SessionSecond]) {
        var summary = SessionTally(seconds).summary(kind: kind, startUnixSeconds: start, endUnixSeconds: start + Double(seconds.count), parameters: parameters)
        summary.activeKilocalories = 14.6
        // Through a store in memory, as the command gets them.
        let store = try! CompanionStore(path: nil)
        let stored = try! store.insert(bandID: "b1", bandName: name, bandSessionID: id, record: SessionRecord(summary: summary, seconds: seconds), syncedAtUnixSeconds: 0)!
        return try! store.session(id: stored)!
    }

    @Test func walkPageHasBothChartsTheLimitAlertsAndPauses() {
        let (session, seconds) = Self.session()
        let html = WalkReport.html(session, seconds: seconds, time: .utc)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == 2)
        #expect(html.contains("viewBox=\"0 0 720 260\""))
        #expect(html.contains("<section class=\"chart\" id=\"cadence\">"))
        #expect(html.contains("<section class=\"chart\" id=\"heart-rate\">"))
        #expect(html.contains("<line class=\"limit\""))
        #expect(html.contains(">limit 88</text>"))
        #expect(html.components(separatedBy: "<path class=\"alert\"").count - 1 == 2, "one marker per alert")
        #expect(html.contains("<title>alert at 09:02</title>"))
        #expect(html.components(separatedBy: "<rect class=\"pause\"").count - 1 == 1, "one band per pause")
        #expect(html.contains("<title>paused 09:03–09:03</title>"))
        #expect(html.contains("<polyline class=\"cadence over\""))
        #expect(html.contains("<polyline class=\"hr\""))
    }

    @Test func walkPageSummary() {
        let (session, seconds) = Self.session()
        let html = WalkReport.html(session, seconds: seconds, time: .utc)
        // 280 walking seconds, 40 of them over the limit.
        for expected in ["<div class=\"label\">Duration</div><div class=\"value\">5:00</div>",
                         "<div class=\"label\">Within the limit</div><div class=\"value\">86 %</div><div class=\"note\">of 4:40 walking; 0:40 over</div>",
                         "<div class=\"label\">Alerts</div><div class=\"value\">2</div>",
                         "<div class=\"value\">88 steps/min</div><div class=\"note\">20 % under your normal 110</div>",
                         "<div class=\"label\">Steps</div><div class=\"value\">280</div>",
                         "<div class=\"label\">Distance</div><div class=\"value\">196 m</div>",
                         "<div class=\"label\">Energy</div><div class=\"value\">15 kcal</div>",
                         "<div class=\"label\">Maximum heart rate</div><div class=\"value\">101 bpm</div>",
                         "<div class=\"label\">Pauses</div><div class=\"value\">1</div><div class=\"note\">0:20 in all</div>"] {
            #expect(html.contains(expected), "\(expected)")
        }
    }

    @Test func bandNamesAreEscaped() {
        let (session, seconds) = Self.session(name: "<script>alert('x')</script> & \"Left\"")
        let html = WalkReport.html(session, seconds: seconds, time: .utc)
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Left&quot;"))
        let period = PeriodReport.html(period: .week(containing: CivilDay(year: 2026, month: 1, day: 1)!), sessions: [(session, seconds)], time: .utc)
        #expect(!period.contains("<script>"))
        #expect(period.contains("&lt;script&gt;"))
    }

    @Test func pageIsSelfContainedAndResponsive() {
        let (session, seconds) = Self.session()
        let html = WalkReport.html(session, seconds: seconds, time: .utc)
        #expect(html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
        #expect(html.contains("@media print"))
        #expect(html.contains("@media (max-width: 30rem)"))
        for outside in ["<script", "src=", "href=", "@import", "url("] {
            #expect(!html.contains(outside), "nothing outside the file: \(outside)")
        }
    }

    @Test func timesAreLocal() {
        let (session, seconds) = Self.session()
        // 2026-01-01T09:00:00Z is 10:00 in UTC+1 and 04:00 the same day in UTC-5.
        let plusOne = WalkReport.html(session, seconds: seconds, time: .fixed(offsetSeconds: 3600))
        #expect(plusOne.contains("Thu 1 Jan 2026, 10:00–10:05 (UTC+01:00)"))
        let minusFive = WalkReport.html(session, seconds: seconds, time: .fixed(offsetSeconds: -5 * 3600))
        #expect(minusFive.contains("Thu 1 Jan 2026, 04:00–04:05 (UTC-05:00)"))
    }

    @Test func walkWithoutHeartRateSaysNoData() {
        let seconds = Self.walkSeconds().map { var s = $0; s.heartRateBPM = nil; s.heartRateConfidence = nil; return s }
        let (session, _) = Self.session(seconds: seconds)
        let html = WalkReport.html(session, seconds: seconds, time: .utc)
        #expect(html.contains("no data: no trustworthy heart-rate reading"))
        #expect(html.contains("<div class=\"label\">Average heart rate</div><div class=\"value\">no data</div>"))
        #expect(!html.contains("<polyline class=\"hr\""))
    }

    @Test func longWalksAreAveragedIntoAtMostTheMaximumColumns() {
        let seconds = (0..<7200).map { SessionSecond(offsetSeconds: $0, steps: 1, cadenceStepsPerMinute: 84) }
        let slices = WalkReport.Slice.make(seconds, maximumColumns: WalkReport.maximumColumns)
        #expect(slices.count == 720)
        #expect(slices.allSatisfy { $0.cadence == 84 })
        let ticks = WalkReport.clockTicks(start: 1_767_258_000, count: 7200, time: .utc)
        #expect(ticks.map(\.1) == ["09:00", "09:30", "10:00", "10:30", "11:00"])
    }

    /// Pages whose charts were drawn wrong, for these tests and ReportChromiumTests: an hour's
    /// walk with an alert every 10 s, a calibration of a minute from a whole minute (a time label
    /// at the chart's right edge), a week with 12,000 steps a day and all of it within the limit.
    static func awkwardPages() -> [(name: String, html: String)] {
        let hour = (0 ..< 3600).map { t in
            SessionSecond(offsetSeconds: t, steps: 2, cadenceStepsPerMinute: 100, heartRateBPM: 90, heartRateConfidence: 0.9, overLimit: true, alerts: t % 10 == 5 ? 1 : 0)
        }
        let (walk, _) = session(start: 1_767_258_000, seconds: hour)
        let minute = (0 ..< 60).map { SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: 110, heartRateBPM: 80, heartRateConfidence: 0.9) }
        let (calibration, _) = session(id: 8, start: 1_767_258_000, kind: .calibration, seconds: minute)
        let long = (0 ..< 4000).map { SessionSecond(offsetSeconds: $0, steps: 3, cadenceStepsPerMinute: 84) }
        let week = (0 ..< 7).map { session(id: 20 + Int64($0), start: 1_767_603_600 + Double($0) * 86_400, seconds: long) }
        return [("hour-walk", WalkReport.html(walk, seconds: hour, time: .utc)), ("calibration", WalkReport.html(calibration, seconds: minute, time: .utc)),
                ("busy-week", PeriodReport.html(period: .week(containing: CivilDay(year: 2026, month: 1, day: 5)!), sessions: week, time: .utc))]
    }

    @Test func closeAlertsShareAMarkerAndNoMarkerOverlapsAnother() {
        let seconds = (0 ..< 3600).map { SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: 100, overLimit: true, alerts: $0 % 10 == 5 ? 1 : 0) }
        let chart = SVGChart(xRange: 0 ... 3600, yRange: 60 ... 120)
        let markers = WalkReport.alertMarkers(seconds, chart: chart)
        #expect(markers.map(\.alerts).reduce(0, +) == 360, "every alert counted")
        #expect((30 ... 40).contains(markers.count), "\(markers.count) markers for 360 alerts")
        #expect(zip(markers, markers.dropFirst()).allSatisfy { $1.x - $0.x >= WalkReport.alertMarkerSpacing })
        let html = Self.awkwardPages()[0].html
        #expect(html.components(separatedBy: "<path class=\"alert\"").count - 1 == markers.count)
        #expect(html.contains("<title>15 alerts, 09:00–09:02</title>"))
        // Alerts far apart keep a marker each (the 5-minute walk's two, 17 s apart).
        #expect(WalkReport.alertMarkers(Self.walkSeconds(), chart: SVGChart(xRange: 0 ... 300, yRange: 60 ... 120)).count == 2)
    }

    @Test func aTimeLabelAtTheChartsEdgeIsDrawnInsideIt() {
        let chart = SVGChart(xRange: 0 ... 60, yRange: 60 ... 120)
        let labels = chart.xLabels(WalkReport.clockTicks(start: 1_767_258_000, count: 60, time: .utc))
        #expect(labels.contains("<text x=\"706\" y=\"252\" text-anchor=\"end\">09:01</text>"), "the last one ends at its tick: \(labels)")
        #expect(labels.contains("<text x=\"70\" y=\"252\" text-anchor=\"middle\">09:00</text>"))
        #expect(SVGChart.left(for: ["0%", "50%", "100%"]) > 70, "a wider margin for wider value labels")
    }

    @Test func periodPageHasADayForEachDayAndTheFiveCharts() {
        let monday = CivilDay(year: 2026, month: 1, day: 5)!
        let period = ReportPeriod.week(containing: monday.adding(days: 3))
        #expect(period.firstDay == monday)
        #expect(period.title == "Week of Mon 5 Jan 2026 to Sun 11 Jan 2026")
        let tuesday = Self.session(id: 1, name: "Left", start: 1_767_690_000)      // Tue 6 Jan 09:00 UTC
        let tuesdayAgain = Self.session(id: 2, name: "Left", start: 1_767_711_600)  // Tue 6 Jan 15:00 UTC
        let friday = Self.session(id: 3, name: "Spare", start: 1_767_949_200)      // Fri 9 Jan 09:00 UTC
        let html = PeriodReport.html(period: period, sessions: [tuesday, tuesdayAgain, friday], time: .utc)
        for id in ["walks-per-day", "mindful-minutes", "within-limit", "resting-heart-rate", "steps-per-day", "sessions"] {
            #expect(html.contains("id=\"\(id)\""), "\(id)")
        }
        #expect(html.components(separatedBy: "<svg ").count - 1 == 5)
        for (weekday, day) in zip(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], 5...11) {
            #expect(html.contains("\">\(weekday)</tspan><tspan "), "\(weekday) is labelled")
            #expect(html.contains("dy=\"1.15em\">\(day)</tspan></text>"), "\(day) is labelled")
        }
        let days = DayFigures.make(period: period, sessions: [tuesday, tuesdayAgain, friday], time: .utc)
        #expect(days.map(\.walks) == [0, 2, 0, 0, 1, 0, 0])
        #expect(days.map(\.steps) == [0, 560, 0, 0, 280, 0, 0])
        #expect(days[1].mindfulMinutes == 2 * 280.0 / 60)
        #expect(days[1].withinLimitShare == 240.0 / 280)
        // The 20 paused seconds at 80 bpm are the only still ones: fewer than 30 on Friday, 40 on Tuesday.
        #expect(days[1].restingHeartRateBPM == 80)
        #expect(days[4].restingHeartRateBPM == nil)
        #expect(html.contains("<div class=\"label\">Walks</div><div class=\"value\">3</div><div class=\"note\">on 2 of 7 days</div>"))
        #expect(html.contains("<span class=\"band\">Left</span>, <span class=\"band\">Spare</span>"))
    }

    @Test func periodWithoutHeartRateSaysNoData() {
        let seconds = Self.walkSeconds().map { var s = $0; s.heartRateBPM = nil; return s }
        let walk = Self.session(seconds: seconds)
        let html = PeriodReport.html(period: .month(containing: CivilDay(year: 2026, month: 1, day: 20)!), sessions: [walk], time: .utc)
        #expect(html.contains("<h1>January 2026</h1>"))
        #expect(html.contains("<div class=\"label\">Resting heart rate</div><div class=\"value\">no data</div>"))
        let resting = html.components(separatedBy: "id=\"resting-heart-rate\"")[1].components(separatedBy: "</section>")[0]
        #expect(resting.contains(">no data</text>"))
        #expect(html.components(separatedBy: "<rect class=\"bar\"").count - 1 == 3, "a bar for the walks, the minutes and the steps of the 1st")
    }

    @Test func daysWeeksAndMonthsInTheCalendar() {
        #expect(CivilDay(year: 1970, month: 1, day: 1)!.daysSinceEpoch == 0)
        #expect(CivilDay(year: 2026, month: 1, day: 1)!.weekday == 3, "a Thursday")
        #expect(CivilDay(parsing: "2024-02-29")?.iso == "2024-02-29")
        #expect(CivilDay(parsing: "2025-02-29") == nil)
        #expect(CivilDay(parsing: "2026-03")?.iso == "2026-03-01")
        #expect(CivilDay(parsing: "26-03-01") == nil)
        #expect(CivilDay(parsing: "1969-12-31")?.daysSinceEpoch == -1)
        #expect(ReportPeriod.month(containing: CivilDay(parsing: "2024-02-10")!).dayCount == 29)
        #expect(ReportPeriod.month(containing: CivilDay(parsing: "2025-12-31")!).lastDay.iso == "2025-12-31")
        #expect(ReportPeriod.week(containing: CivilDay(parsing: "2026-01-04")!).firstDay.iso == "2025-12-29", "Sunday belongs to the week before")
        // 23:30 UTC on 31 Dec is already 1 Jan at UTC+1.
        #expect(LocalTime.fixed(offsetSeconds: 3600).day(1_767_223_800).iso == "2026-01-01")
        #expect(LocalTime.fixed(offsetSeconds: 3600).startOfDay(CivilDay(parsing: "2026-01-01")!) == 1_767_222_000)
    }

    @Test func commandChecksItsArguments() throws {
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["report", "latest"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["report", "seven", "--html", "x.html"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["report", "--html", "x.html"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["report", "--week", "--month", "--html", "x.html"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["report", "--week", "2026-13-01", "--html", "x.html"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["report", "--week", "2026-01", "--html", "x.html"]) }
        _ = try AmbleCommand.parseAsRoot(["report", "latest", "--html", "x.html"])
        _ = try AmbleCommand.parseAsRoot(["report", "12", "--html", "x.html", "--force"])
        _ = try AmbleCommand.parseAsRoot(["report", "--week", "--html", "x.html"])
        _ = try AmbleCommand.parseAsRoot(["report", "--month", "2026-01", "--html", "x.html"])
    }

    @Test func commandErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amble-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appendingPathComponent("amble.sqlite").path
        let out = directory.appendingPathComponent("walk.html").path
        func run(_ arguments: [String]) throws {
            let command = try #require(try AmbleCommand.parseAsRoot(["--store", storePath, "report"] + arguments) as? ReportCommand)
            try command.run()
        }
        func message(_ arguments: [String]) -> String {
            do { try run(arguments); return "" } catch { return "\(error)" }
        }
        #expect(message(["latest", "--html", out]).contains("no store at \(storePath)"))
        let store = try CompanionStore(path: storePath)
        let (walk, seconds) = Self.session()
        _ = try store.insert(bandID: "b1", bandName: walk.bandName, bandSessionID: 1, record: SessionRecord(summary: walk.summary, seconds: seconds), syncedAtUnixSeconds: 0)
        #expect(message(["99", "--html", out]).contains("no session 99"))
        #expect(message(["--month", "2020-01", "--html", out]).contains("no sessions from 2020-01-01 to 2020-01-31"))
        try run(["latest", "--html", out])
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("id=\"cadence\""))
        #expect(message(["latest", "--html", out]).contains("exists; pass --force to replace it"))
        try run(["1", "--html", out, "--force"])
    }
}
