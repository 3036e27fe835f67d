import Foundation

/// Headless Chromium (Debian's `chromium`, installed by `scripts/setup chromium`) for the
/// tests that draw a page (the walk's report, the server's dashboard), and the checkout's
/// script that measures what it drew (`scripts/check-report.d/pixels.py`).
public enum Chromium {
    /// The browser, or nil where it is not installed (the tests skip and say so).
    public static let executable: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Why a test that needs it is skipped.
    public static let skipReason = "chromium is not installed (scripts/setup chromium)"

    /// Headless, no sandbox, no GPU, scale 1 on white, with its profile in `directory`.
    public static func flags(profileIn directory: URL) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
         "--force-device-scale-factor=1", "--default-background-color=ffffffff", "--user-data-dir=" + directory.appendingPathComponent("profile").path]
    }

    /// `scripts/check-report.d/pixels.py` on a screenshot: each `name=rrggbb:count` colour
    /// drawn on at least `count` pixels.
    public static func checkPixels(_ png: URL, _ colours: [String]) throws -> (status: Int32, output: String) {
        try runProgram("/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("scripts/check-report.d/pixels.py").path, png.path] + colours)
    }
}
