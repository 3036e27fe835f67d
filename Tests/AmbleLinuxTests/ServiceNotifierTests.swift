#if canImport(Glibc)
import Glibc
#endif
import AmbleLinux
import Testing

/// A service manager's end of NOTIFY_SOCKET: a Unix datagram socket bound to a path or to an
/// abstract name (`@name`), read without blocking.
final class NotifySocket {
    let name: String
    private let fd: Int32
    private let directory: String?

    /// Binds in a fresh temporary folder (`abstract: false`) or in the abstract namespace.
    init(abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var bytes: [UInt8]
        if abstract {
            directory = nil
            name = "@amble-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            bytes = Array(name.utf8)
            bytes[0] = 0
        } else {
            var template = Array("/tmp/amble-notify-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            try #require(made != nil)
            directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            name = directory! + "/notify"
            bytes = Array(name.utf8) + [0]
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(bound == 0, "bind \(name): errno \(errno)")
    }

    deinit {
        close(fd)
        if let directory {
            unlink(directory + "/notify")
            rmdir(directory)
        }
    }

    /// The next datagram as text, waiting up to a second; nil when none came.
    func receive() -> String? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 1000) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// Whether a datagram is waiting, without taking it.
    var hasPending: Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0
    }
}

struct ServiceNotifierTests {
    @Test(arguments: [false, true])
    func sendsTheExactBytes(abstract: Bool) throws {
        let manager = try NotifySocket(abstract: abstract)
        let notifier = try #require(try ServiceNotifier(environment: ["NOTIFY_SOCKET": manager.name]))
        try notifier.ready(status: "Amble sim started, listening on 127.0.0.1:7070")
        #expect(manager.receive() == "READY=1\nSTATUS=Amble sim started, listening on 127.0.0.1:7070")
        try notifier.status("walking\nat 110 steps/min")
        #expect(manager.receive() == "STATUS=walking at 110 steps/min", "a status is one line")
        try notifier.watchdog()
        #expect(manager.receive() == "WATCHDOG=1")
        try notifier.stopping(status: "storing the session under way")
        #expect(manager.receive() == "STOPPING=1\nSTATUS=storing the session under way")
        #expect(!manager.hasPending)
    }

    @Test func unsetOrEmptySocketMeansNoNotifier() throws {
        #expect(try ServiceNotifier(environment: [:]) == nil)
        #expect(try ServiceNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
        #expect(try ServiceNotifier(environment: ["WATCHDOG_USEC": "30000000"]) == nil)
    }

    @Test(arguments: ["run/notify", "vsock:2:1234"])
    func refusesAnAddressThatIsNeitherPathNorAbstract(name: String) {
        let error = #expect(throws: ServiceNotifierError.self) { try ServiceNotifier(environment: ["NOTIFY_SOCKET": name]) }
        #expect(error?.description.contains(name) == true)
    }

    @Test func refusesAPathTooLongForAUnixSocket() {
        let name = "/" + String(repeating: "x", count: 200)
        #expect(throws: ServiceNotifierError.self) { try ServiceNotifier(environment: ["NOTIFY_SOCKET": name]) }
    }

    @Test func aManagerThatIsGoneIsAnErrorNotACrash() throws {
        var name = ""
        do {
            let manager = try NotifySocket(abstract: false)
            name = manager.name
        }
        let notifier = try #require(try ServiceNotifier(environment: ["NOTIFY_SOCKET": name]))
        let error = #expect(throws: ServiceNotifierError.self) { try notifier.watchdog() }
        #expect(error?.errno?.code == ENOENT || error?.errno?.code == ECONNREFUSED)
        #expect(error?.description.contains("WATCHDOG=1") == true)
        #expect(error?.description.contains(name) == true)
    }

    @Test func aFullQueueFailsAtOnceInsteadOfBlocking() throws {
        let manager = try NotifySocket(abstract: true)
        let notifier = try #require(try ServiceNotifier(environment: ["NOTIFY_SOCKET": manager.name]))
        // Nobody reads: the receiver's queue fills and MSG_DONTWAIT turns the wait into EAGAIN.
        var failure: ServiceNotifierError?
        for _ in 0..<100_000 where failure == nil {
            do throws(ServiceNotifierError) { try notifier.status(String(repeating: "s", count: 1000)) } catch { failure = error }
        }
        #expect(failure?.errno?.code == EAGAIN)
    }

    @Test func pingsTheWatchdogAtHalfItsTimeout() throws {
        let manager = try NotifySocket(abstract: true)
        let environment = ["NOTIFY_SOCKET": manager.name, "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]
        let notifier = try #require(try ServiceNotifier(environment: environment))
        #expect(notifier.watchdogIntervalSeconds == 15)
        #expect(notifier.nextWatchdogDue(after: 100) == 115)
        #expect(try notifier.watchdogIfDue(nowSeconds: 100), "the first call pings")
        #expect(manager.receive() == "WATCHDOG=1")
        #expect(try !notifier.watchdogIfDue(nowSeconds: 114.9))
        #expect(!manager.hasPending)
        #expect(try notifier.watchdogIfDue(nowSeconds: 115))
        #expect(manager.receive() == "WATCHDOG=1")
        #expect(try !notifier.watchdogIfDue(nowSeconds: 129))
        #expect(try notifier.watchdogIfDue(nowSeconds: 200), "a late turn pings at once")
        #expect(manager.receive() == "WATCHDOG=1")
    }

    @Test func noWatchdogMeansNoPings() throws {
        let manager = try NotifySocket(abstract: true)
        let notifier = try #require(try ServiceNotifier(environment: ["NOTIFY_SOCKET": manager.name]))
        #expect(notifier.watchdogIntervalSeconds == nil)
        #expect(notifier.nextWatchdogDue(after: 0) == nil)
        #expect(try !notifier.watchdogIfDue(nowSeconds: 0))
        #expect(!manager.hasPending)
    }
}

struct ServiceWatchdogTests {
    @Test func readsTheTimeoutForThisProcess() throws {
        let watchdog = try #require(ServiceWatchdog(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"], processID: 42))
        #expect(watchdog.timeoutMicroseconds == 30_000_000)
        #expect(watchdog.timeoutSeconds == 30)
        #expect(watchdog.intervalSeconds == 15)
        #expect(watchdog.nextPingDue(after: 7.5) == 22.5)
        // Without WATCHDOG_PID the watchdog is ours (systemd sets it, other managers may not).
        #expect(ServiceWatchdog(environment: ["WATCHDOG_USEC": "500000"], processID: 42)?.intervalSeconds == 0.25)
    }

    @Test(arguments: [
        ["WATCHDOG_PID": "42"],
        ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "43"],
        ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "forty-two"],
        ["WATCHDOG_USEC": "0"],
        ["WATCHDOG_USEC": "-5"],
        ["WATCHDOG_USEC": "30s"],
        ["WATCHDOG_USEC": ""],
    ])
    func noWatchdogForThisProcess(environment: [String: String]) {
        #expect(ServiceWatchdog(environment: environment, processID: 42) == nil)
    }

    @Test func aNotifierIgnoresAWatchdogMeantForAnotherProcess() throws {
        let manager = try NotifySocket(abstract: true)
        let environment = ["NOTIFY_SOCKET": manager.name, "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid() + 1)"]
        let notifier = try #require(try ServiceNotifier(environment: environment))
        #expect(notifier.watchdogIntervalSeconds == nil)
    }
}
