import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A companion command driven through a pseudo-terminal, as a person at a terminal sees it
/// (`amble survey` typed into, `amble sync`'s progress bar): each answer is sent only once its
/// prompt shows.
final class PseudoTerminalSession {
    let process = Process()
    private let controller: Int32
    private(set) var output = ""
    /// Output before this offset has been matched already: each wait looks for new text.
    private var consumed = 0

    init(_ program: String, _ arguments: [String], environment: [String: String]) throws {
        var controllerFD: Int32 = -1, subordinateFD: Int32 = -1
        guard openpty(&controllerFD, &subordinateFD, nil, nil, nil) == 0 else { throw POSIXError(.EIO) }
        controller = controllerFD
        let subordinate = FileHandle(fileDescriptor: subordinateFD, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = subordinate
        process.standardOutput = subordinate
        process.standardError = subordinate
        try process.run()
        try subordinate.close()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(controller)
    }

    /// Whether `text` is in the output not matched yet; if so, the output up to it is matched.
    private func take(_ text: String) -> Bool {
        let unread = output.utf8.dropFirst(consumed)
        guard let range = String(decoding: unread, as: UTF8.self).range(of: text) else { return false }
        consumed += String(decoding: unread, as: UTF8.self)[..<range.upperBound].utf8.count
        return true
    }

    /// Reads until `text` has appeared in new output, or `seconds` pass (a limit for a hung
    /// program, generous for a machine whose other core is busy).
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if take(text) { return true }
            guard readAvailable(waitingMilliseconds: 100) else { return take(text) }
        }
        return take(text)
    }

    /// Adds what the program wrote to `output`, waiting up to `waitingMilliseconds` for it;
    /// false once the terminal is closed (the program ended and its output is all read).
    @discardableResult
    func readAvailable(waitingMilliseconds: Int32 = 0) -> Bool {
        var poller = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, waitingMilliseconds) >= 0 else { return false }
        if poller.revents & Int16(POLLIN) != 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(controller, &buffer, buffer.count)
            if n <= 0 { return false }
            output += String(decoding: buffer[..<n], as: UTF8.self)
        } else if poller.revents != 0 {
            return false
        }
        return true
    }

    /// Waits for the prompt after `marker`, then types `line` and Enter.
    func answer(after marker: String, _ line: String) {
        #expect(waitFor(marker), "waited for \(marker); got:\n\(output)")
        type(line + "\n")
    }

    func type(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(controller, $0.baseAddress, $0.count - 1) }
    }

    func finish() -> Int32 {
        waitFor("\u{0}", seconds: 2)   // drains what is left
        process.waitUntilExit()
        return process.terminationStatus
    }
}
