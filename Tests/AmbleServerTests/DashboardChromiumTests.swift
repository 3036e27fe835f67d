import AmbleServer
import AmbleTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// The dashboard as the real server renders it from the real database, drawn by headless
/// Chromium (Debian's `chromium`, `scripts/setup chromium`), as ReportChromiumTests draws the
/// walk's page: the DOM holds the three tables, and the screenshot is not blank and shows the
/// table's silence flag in its colour.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct DashboardChromiumTests {
    @Test(.enabled(if: Chromium.executable != nil, Comment(rawValue: Chromium.skipReason)), .timeLimit(.minutes(2)))
    func theDashboardDrawsItsTablesInChromium() async throws {
        let chromium = try #require(Chromium.executable)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amble-dashboard-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("dashboard.html")
        try await ServerFixture.run { server in
            _ = try await DashboardTests.twoParticipants(server)
            let cookie = try await server.loggedIn()
            let response = try await server.page("/studies/\(server.study.uuidString.lowercased())/dashboard?days=3&to=2026-03-03", cookie: cookie)
            #expect(response.status == .ok)
            try Data(response.body.readableBytesView).write(to: page)
        }
        let flags = Chromium.flags(profileIn: directory)
        let dom = try runProgram(chromium, flags + ["--dump-dom", page.absoluteString])
        try #require(dom.status == 0 && dom.output.contains("</html>"), "chromium could not run headless here")
        #expect(dom.output.components(separatedBy: "<table>").count - 1 == 3)
        #expect(dom.output.contains("silent 6 days"))
        let png = directory.appendingPathComponent("dashboard.png")
        try runProgram(chromium, flags + ["--window-size=1200,1400", "--screenshot=" + png.path, page.absoluteString])
        #expect(FileManager.default.fileExists(atPath: png.path))
        // The flag's red cell and the arms' grey rows are drawn.
        let check = try Chromium.checkPixels(png, ["silence-flag=dc2626:400", "arm-rows=f3f4f6:2000"])
        #expect(check.status == 0, "\(check.output)")
    }
}
