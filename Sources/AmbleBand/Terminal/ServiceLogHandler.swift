import AmbleLinux
import Logging

/// A swift-log handler for `ambled` without a terminal: one line per message line on
/// standard error. Under systemd, when `JOURNAL_STREAM` names standard error, each line starts
/// with its syslog priority (`<3>` for errors) so `journalctl -p err` finds it, and carries no
/// time (journald adds one); otherwise lines read `2026-01-05 14:03:07.250 error ambled: ...`.
/// The formatting is `ServiceLogStyle.format` (AmbleLinux), tested there.
public struct ServiceLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public let label: String
    public let style: ServiceLogStyle
    private let write: @Sendable (String) -> Void

    /// `write` receives the whole text of one message (every line ends in a newline); by
    /// default standard error, never blocking (a line is dropped rather than stall the band).
    public init(label: String, style: ServiceLogStyle, write: @escaping @Sendable (String) -> Void = { writeStandardError($0) }) {
        self.label = label
        self.style = style
        self.write = write
    }

    /// Writes to standard error in the style `environment` calls for (journal or readable).
    public static func standardError(label: String, environment: [String: String]) -> ServiceLogHandler {
        ServiceLogHandler(label: label, style: standardErrorLogStyle(environment: environment))
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        write(style.format(
            severity: Self.severity(event.level),
            label: label,
            message: "\(event.message)",
            metadata: all.mapValues { "\($0)" },
            timestamp: style == .readable ? localTimestamp() : ""
        ))
    }

    static func severity(_ level: Logger.Level) -> LogSeverity {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
