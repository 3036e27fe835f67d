// Pure: no Glibc here. How the band's log lines look on standard error, under journald or not.

/// A log message's severity, one per swift-log level (the band maps `Logger.Level` onto it).
public enum LogSeverity: String, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error, critical

    /// The syslog priority journald files the line under (`sd-daemon(3)`): 7 debug,
    /// 6 info, 5 notice, 4 warning, 3 err, 2 crit. There is no trace in syslog: 7.
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// A file's identity as `fstat(2)` gives it, and as `JOURNAL_STREAM` names the journal's stream.
public struct FileIdentity: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// Parses `JOURNAL_STREAM`: `DEVICE:INODE`, both decimal (`systemd.exec(5)`). Nil otherwise.
    public init?(journalStream text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
        self.init(device: device, inode: inode)
    }
}

/// How log lines are written.
public enum ServiceLogStyle: Equatable, Sendable {
    /// Standard error is the journal's stream: `<priority>` before each line and no time
    /// (journald stamps each line itself and files it under that priority).
    case journal
    /// Anything else (a terminal, a file, a pipe): time, level and label before each line.
    case readable

    /// The journal's style when `JOURNAL_STREAM` (nil when unset) names the very file that
    /// standard error is (`standardError`, nil when it could not be examined). A child that
    /// inherited the variable but writes elsewhere (redirected to a file) is readable.
    public static func deciding(journalStream: String?, standardError: FileIdentity?) -> ServiceLogStyle {
        guard let journalStream, let stream = FileIdentity(journalStream: journalStream),
              let standardError, stream == standardError
        else { return .readable }
        return .journal
    }

    /// The text to write for one message: one line per line of `message` (metadata, when
    /// given, goes at the end of the last), each with the full prefix so that no line stands
    /// without its priority or its time, each ending in a newline. `timestamp` is used only
    /// by `.readable`. An empty message is one line; a trailing newline adds no empty line.
    public func format(
        severity: LogSeverity, label: String, message: String, metadata: [String: String] = [:], timestamp: String
    ) -> String {
        var text = message
        if !metadata.isEmpty {
            text += " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        let prefix = switch self {
        case .journal: "<\(severity.syslogPriority)>\(label): "
        case .readable: "\(timestamp) \(severity.rawValue) \(label): "
        }
        return lines.map { prefix + $0 + "\n" }.joined()
    }
}
