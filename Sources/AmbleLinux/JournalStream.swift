#if canImport(Glibc)
import Glibc
#endif

/// The identity (device and inode) of an open descriptor, from `fstat(2)`; nil when it is not open.
public func fileIdentity(ofDescriptor fd: Int32) -> FileIdentity? {
    var status = stat()
    if case .failure = Syscall.retrying({ fstat(fd, &status) }) { return nil }
    return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
}

/// How to write log lines to standard error: `.journal` when `JOURNAL_STREAM` in
/// `environment` names standard error itself (systemd connected it to the journal),
/// `.readable` otherwise.
public func standardErrorLogStyle(environment: [String: String]) -> ServiceLogStyle {
    ServiceLogStyle.deciding(journalStream: environment["JOURNAL_STREAM"], standardError: fileIdentity(ofDescriptor: STDERR_FILENO))
}

/// The local time to the millisecond, `2026-01-05 14:03:07.250`, for readable log lines.
public func localTimestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    localtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let milliseconds = Int(now.tv_nsec / 1_000_000)
    let millisecondsText = String(repeating: "0", count: 3 - String(milliseconds).count) + String(milliseconds)
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
        + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millisecondsText)"
}
