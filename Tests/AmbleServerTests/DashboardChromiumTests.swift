import AmbleServer
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
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: chromium != nil, "chromium is not installed (scripts/setup chromium)"), .timeLimit(.minutes(2)))
    func theDashboardDrawsItsTablesInChromium() async throws {
        let chromium = try #require(Self.chromium)
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
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
                     "--force-device-scale-factor=1", "--default-background-color=ffffffff", "--user-data-dir=" + directory.appendingPathComponent("profile").path]
        let dom = try Self.run(chromium, flags + ["--dump-dom", page.absoluteString])
        try #require(dom.status == 0 && dom.output.contains("</html>"), "chromium could not run headless here")
        #expect(dom.output.components(separatedBy: "<table>").count - 1 == 3)
        #expect(dom.output.contains("silent 6 days"))
        let png = directory.appendingPathComponent("dashboard.png")
        try Self.run(chromium, flags + ["--window-size=1200,1400", "--screenshot=" + png.path, page.absoluteString])
        #expect(FileManager.default.fileExists(atPath: png.path))
        let pixels = ServerFixture.checkout.appendingPathComponent("scripts/check-report.d/pixels.py").path
        // The flag's red cell and the arms' grey rows are drawn.
        let check = try Self.run("/usr/bin/env", ["python3", pixels, png.path, "silence-flag=dc2626:400", "arm-rows=f3f4f6:2000"])
        #expect(check.status == 0, "\(check.output)")
    }
}
