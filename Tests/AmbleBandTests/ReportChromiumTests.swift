@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleTestSupport
import Foundation
import Testing

/// The walk's page rendered by headless Chromium (Debian's `chromium`, installed by
/// `scripts/setup chromium`) at a phone's width: the screenshot is not blank and the charts'
/// colours are drawn. Skipped where Chromium is not installed; `scripts/check-report` does the
/// same end to end from a synced walk, at phone and desktop sizes.
struct ReportChromiumTests {
    @Test(.enabled(if: Chromium.executable != nil, Comment(rawValue: Chromium.skipReason)), .timeLimit(.minutes(2)))
    func walkPageRendersWithItsCharts() throws {
        let chromium = try #require(Chromium.executable)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amble-report-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (session, seconds) = ReportPageTests.session()
        let page = directory.appendingPathComponent("walk.html")
        try Data(WalkReport.html(session, seconds: seconds, time: .utc).utf8).write(to: page)
        let flags = Chromium.flags(profileIn: directory)
        let dom = try runProgram(chromium, flags + ["--dump-dom", page.absoluteString])
        try #require(dom.status == 0 && dom.output.contains("</html>"), "chromium could not run headless here")
        #expect(dom.output.components(separatedBy: "<svg ").count - 1 == 2)
        #expect(dom.output.contains("class=\"limit\""))
        let png = directory.appendingPathComponent("walk.png")
        try runProgram(chromium, flags + ["--window-size=390,1600", "--screenshot=" + png.path, page.absoluteString])
        #expect(FileManager.default.fileExists(atPath: png.path))
        let check = try Chromium.checkPixels(png, ["cadence=2563eb:100", "over-limit=dc2626:20", "alert=ea580c:10", "heart-rate=9333ea:100"])
        #expect(check.status == 0, "\(check.output)")
    }

    /// In the browser, at a phone's true width (390 px, through an iframe: headless Chromium's
    /// window is never narrower than 500 px) and a desktop's: no chart text is clipped,
    /// overlaps another, or touches a bar or an alert marker, and no alert markers overlap
    /// (scripts/check-report.d/layout.py measures them), for the pages that were drawn wrong.
    @Test(.enabled(if: Chromium.executable != nil, Comment(rawValue: Chromium.skipReason)), .timeLimit(.minutes(10)))
    func chartsFitAtAPhonesAndADesktopsWidth() throws {
        let chromium = try #require(Chromium.executable)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amble-report-layout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CompanionStore(path: nil)
        let monday = GoalsTests.utc(2026, 3, 2, 8)
        _ = try StartChallengeCommand.start(store: store, weeks: 1, walksPerWeek: 3, nowUnixSeconds: monday, time: .utc)
        for day in [0, 1, 1, 3, 5, 6] { _ = try GoalsTests.session(store, start: monday + Double(day) * 86_400 + 3600) }
        let challenge = ChallengeReport.html(try ChallengeReportCommand.find("latest", store: store, nowUnixSeconds: monday + 8 * 86_400, time: .utc), time: .utc)
        for (name, html) in ReportPageTests.awkwardPages() + [("challenge", challenge)] {
            let page = directory.appendingPathComponent(name + ".html")
            try Data(html.utf8).write(to: page)
            for width in ["390", "1200"] {
                let check = try runProgram("/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("scripts/check-report.d/layout.py").path,
                                                          chromium, page.path, width])
                #expect(check.status == 0, "\(check.output)")
            }
        }
    }
}
