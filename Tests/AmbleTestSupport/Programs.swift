import Foundation

/// The repository's root, found from this file's place (Tests/AmbleTestSupport/Programs.swift).
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `executable` with `arguments` to its end: its exit status and what it printed on
/// standard output, and on standard error too when `mergingStandardError` (else that is dropped).
@discardableResult
public func runProgram(_ executable: String, _ arguments: [String], mergingStandardError: Bool = false) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = mergingStandardError ? pipe : FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The first python3 that can import `module`: of `preferred` (a virtual environment, say),
/// then on PATH; nil where none can (the test that needs it skips and says so).
public func pythonImporting(_ module: String, preferred: [String] = []) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
    let candidates = preferred + path.split(separator: ":").map { "\($0)/python3" }
    return candidates.first { candidate in
        guard FileManager.default.isExecutableFile(atPath: candidate) else { return false }
        return (try? runProgram(candidate, ["-c", "import \(module)"]))?.status == 0
    }
}
