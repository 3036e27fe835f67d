import AmbleLinux
import Logging
import Synchronization

/// The band's terminal: a status line redrawn in place, cut to the terminal's width, and log
/// lines that do not tear it. Without a terminal (a service, a pipe) there is no status line:
/// the band logs what its screen shows at debug level instead.
public final class Console: Sendable {
    private struct State {
        var statusLine = ""
    }

    public let isTerminal: Bool
    /// Print nothing (tests).
    public let isSilent: Bool
    private let state = Mutex(State())

    /// The terminal's width in columns now (nil: unknown, lines are not cut).
    private let columns: @Sendable () -> Int?

    public init(isTerminal: Bool, silent: Bool = false, columns: @escaping @Sendable () -> Int? = { nil }) {
        self.isTerminal = isTerminal
        isSilent = silent
        self.columns = columns
    }

    /// The width the status line must fit, in columns.
    public var width: Int? { isTerminal ? columns() : nil }

    /// Shows the band's status line (on a terminal only; cut to `width` by the caller).
    public func status(_ line: String) {
        guard isTerminal else { return }
        state.withLock { s in
            guard line != s.statusLine else { return }
            s.statusLine = line
            write("\r\u{1B}[2K" + line)
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
