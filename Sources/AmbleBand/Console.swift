import AmbleLinux
import Logging
import Synchronization

/// The band's terminal: a status line redrawn in place on a terminal (one line per change
/// otherwise) and log lines that do not tear it.
public final class Console: Sendable {
    private struct State {
        var statusLine = ""
        var lastPrintedKey = ""
        var lastPrintedTime = -Double.infinity
    }

    public let isTerminal: Bool
    /// Print nothing (tests).
    public let isSilent: Bool
    private let state = Mutex(State())

    public init(isTerminal: Bool, silent: Bool = false) {
        self.isTerminal = isTerminal
        isSilent = silent
    }

    /// Shows the band's status. Without a terminal a line is printed when `key` changes or
    /// `everySeconds` have passed since the last line (band time `now`).
    public func status(_ line: String, key: String, now: Double, everySeconds: Double = 15) {
        state.withLock { s in
            if isTerminal {
                guard line != s.statusLine else { return }
                s.statusLine = line
                write("\r\u{1B}[2K" + line)
            } else if key != s.lastPrintedKey || now - s.lastPrintedTime >= everySeconds {
                s.lastPrintedKey = key
                s.lastPrintedTime = now
                write(line + "\n")
            }
        }
    }

    /// Prints a line above the status line.
    public func line(_ text: String) {
        state.withLock { s in
            if isTerminal {
                write("\r\u{1B}[2K" + text + "\n" + s.statusLine)
            } else {
                write(text + "\n")
            }
        }
    }

    /// Leaves the status line in place and moves below it (at exit).
    public func finish() {
        state.withLock { s in
            if isTerminal && !s.statusLine.isEmpty { write("\n") }
            s.statusLine = ""
        }
    }

    private func write(_ text: String) {
        if !isSilent { writeStandardOutput(text) }
    }
}

/// A swift-log handler that prints through the console, so logs and the status line share
/// the terminal cleanly.
public struct ConsoleLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let console: Console
    let label: String

    public init(label: String, console: Console) {
        self.label = label
        self.console = console
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let tag: String
        switch event.level {
        case .trace, .debug: tag = "debug"
        case .info, .notice: tag = "info"
        case .warning: tag = "warning"
        case .error, .critical: tag = "error"
        }
        var text = "\(label): \(tag): \(event.message)"
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !all.isEmpty {
            text += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        console.line(text)
    }
}
