#if canImport(Glibc)
import Glibc
#endif

/// A message to the service manager, in the `sd_notify(3)` protocol: newline-separated
/// `KEY=VALUE` assignments in one datagram.
public enum ServiceNotification: Equatable, Sendable {
    /// Start-up is over: the band samples, stores and serves (`READY=1`), with a status text.
    case ready(status: String)
    /// A one-line status shown by `systemctl status` (`STATUS=`).
    case status(String)
    /// The loop is alive (`WATCHDOG=1`); due every `ServiceWatchdog.intervalSeconds`.
    case watchdog
    /// Shutdown has begun (`STOPPING=1`), with a status text.
    case stopping(status: String)

    /// The datagram's text. A status is one line: newlines in it become spaces, since a
    /// newline would start a new assignment.
    public var datagram: String {
        switch self {
        case .ready(let status): "READY=1\nSTATUS=\(Self.oneLine(status))"
        case .status(let status): "STATUS=\(Self.oneLine(status))"
        case .watchdog: "WATCHDOG=1"
        case .stopping(let status): "STOPPING=1\nSTATUS=\(Self.oneLine(status))"
        }
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}

/// The service manager's watchdog as systemd announces it (`WatchdogSec=` in the unit):
/// `WATCHDOG_USEC`, the timeout in microseconds, and `WATCHDOG_PID`, the process it is meant
/// for (when set and not this process, the watchdog is a parent's and not ours).
public struct ServiceWatchdog: Equatable, Sendable {
    /// The service manager's timeout, microseconds (> 0).
    public let timeoutMicroseconds: UInt64

    public init?(timeoutMicroseconds: UInt64) {
        guard timeoutMicroseconds > 0 else { return nil }
        self.timeoutMicroseconds = timeoutMicroseconds
    }

    /// Reads `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`; nil when there is no
    /// watchdog for `processID`: the timeout unset, zero or not a number, or `WATCHDOG_PID`
    /// set to another process (or not a number).
    public init?(environment: [String: String], processID: Int32) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text) else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let pid = Int32(pidText), pid == processID else { return nil }
        }
        self.init(timeoutMicroseconds: microseconds)
    }

    /// The timeout, seconds.
    public var timeoutSeconds: Double { Double(timeoutMicroseconds) / 1e6 }

    /// How often to ping, seconds: half the timeout, as `sd_watchdog_enabled(3)` advises, so
    /// one late tick is not yet a restart.
    public var intervalSeconds: Double { timeoutSeconds / 2 }

    /// When the next ping is due after one sent at `lastPingSeconds` (monotonic seconds;
    /// real time, never the simulated board's band time, which may run faster).
    public func nextPingDue(after lastPingSeconds: Double) -> Double {
        lastPingSeconds + intervalSeconds
    }
}

/// What went wrong telling the service manager something. The band logs it and goes on:
/// a lost notification is never a reason to stop.
public struct ServiceNotifierError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `NOTIFY_SOCKET` as given.
    public var socket: String
    /// What failed, e.g. "sending WATCHDOG=1".
    public var operation: String
    public var errno: Errno?

    public var description: String {
        "service notification (NOTIFY_SOCKET=\(socket)): \(operation) failed" + (errno.map { ": \($0)" } ?? "")
    }
}

/// `sd_notify(3)` without libsystemd: readiness, status, watchdog pings and stopping, sent as
/// datagrams to the Unix socket named by `NOTIFY_SOCKET` (a path, or an abstract-namespace
/// name when it starts with `@`). The socket is opened once (SOCK_CLOEXEC) and each message
/// is sent with MSG_DONTWAIT, so a busy service manager never stalls the band.
///
/// The watchdog is pinged through `watchdogIfDue(nowSeconds:)`, which remembers the last
/// ping; `watchdogIntervalSeconds` is nil when the unit has no `WatchdogSec=`.
public final class ServiceNotifier {
    /// `NOTIFY_SOCKET` as given.
    public let socketName: String
    /// The watchdog, when the service manager asked for one for this process.
    public let serviceWatchdog: ServiceWatchdog?
    private let fd: Int32
    private var address: sockaddr_un
    private let addressLength: socklen_t
    private var lastWatchdogPingSeconds: Double?

    /// Returns nil when `NOTIFY_SOCKET` is unset or empty (not run by a service manager that
    /// wants notifications); every call is then simply not made. Throws when the variable
    /// names no usable socket (not a path nor `@name`, or too long) or the socket cannot be
    /// opened.
    public init?(environment: [String: String], processID: Int32 = getpid()) throws(ServiceNotifierError) {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        socketName = name
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        var pathBytes = Array(name.utf8)
        let isAbstract = pathBytes.first == UInt8(ascii: "@")
        guard isAbstract || pathBytes.first == UInt8(ascii: "/") else {
            throw ServiceNotifierError(socket: name, operation: "reading the address (expected /path or @name)")
        }
        if isAbstract { pathBytes[0] = 0 }
        // A path needs room for its terminating NUL; an abstract name has none.
        guard pathBytes.count + (isAbstract ? 0 : 1) <= capacity else {
            throw ServiceNotifierError(socket: name, operation: "reading the address (longer than \(capacity - 1) bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        self.address = address
        addressLength = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (isAbstract ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServiceNotifierError(socket: name, operation: "opening a datagram socket", errno: .current) }
        self.fd = fd
        serviceWatchdog = ServiceWatchdog(environment: environment, processID: processID)
    }

    deinit { closeDescriptor(fd) }

    /// The watchdog's ping interval, seconds (half its timeout); nil without a watchdog.
    public var watchdogIntervalSeconds: Double? { serviceWatchdog?.intervalSeconds }

    /// When the next watchdog ping is due after one at `lastPingSeconds`; nil without a watchdog.
    public func nextWatchdogDue(after lastPingSeconds: Double) -> Double? {
        serviceWatchdog?.nextPingDue(after: lastPingSeconds)
    }

    /// Sends one notification. Never blocks; throws when it could not be sent (the socket
    /// gone, its queue full), for the caller to log.
    public func send(_ notification: ServiceNotification) throws(ServiceNotifierError) {
        let bytes = Array(notification.datagram.utf8)
        let result = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    Syscall.retrying {
                        sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), socketAddress, addressLength)
                    }
                }
            }
        }
        if case .failure(let error) = result {
            let first = notification.datagram.prefix { $0 != "\n" }
            throw ServiceNotifierError(socket: socketName, operation: "sending \(first)", errno: error)
        }
    }

    /// `READY=1` with a status: call once start-up is over (store open, board built, link listening).
    public func ready(status: String) throws(ServiceNotifierError) { try send(.ready(status: status)) }

    /// `STATUS=`: what `systemctl status ambled` shows.
    public func status(_ text: String) throws(ServiceNotifierError) { try send(.status(text)) }

    /// `WATCHDOG=1`, unconditionally (`watchdogIfDue(nowSeconds:)` keeps the pace).
    public func watchdog() throws(ServiceNotifierError) { try send(.watchdog) }

    /// `STOPPING=1` with a status: call when shutdown begins.
    public func stopping(status: String = "stopping") throws(ServiceNotifierError) { try send(.stopping(status: status)) }

    /// Pings the watchdog when a ping is due at `nowSeconds` (monotonic real seconds): at the
    /// first call, then every `watchdogIntervalSeconds`. Returns whether it sent one; without
    /// a watchdog it does nothing. Call it from every turn of the band's loop. A failed ping
    /// throws and is tried again at the next call.
    @discardableResult
    public func watchdogIfDue(nowSeconds: Double) throws(ServiceNotifierError) -> Bool {
        guard let watchdog = serviceWatchdog else { return false }
        if let last = lastWatchdogPingSeconds, nowSeconds < watchdog.nextPingDue(after: last) { return false }
        try send(.watchdog)
        lastWatchdogPingSeconds = nowSeconds
        return true
    }
}
