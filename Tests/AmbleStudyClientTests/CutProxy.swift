import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of the server that cuts connections: each connection takes
/// the next planned cut, forwards bytes both ways, and closes both ends once `bytes` have gone
/// in the cut's direction (the request towards the server, or the response back). Counts what
/// it forwarded. Stops with `stop()` (and with the test's process).
final class CutProxy: @unchecked Sendable {
    enum Direction: CaseIterable, Sendable { case request, response }
    struct Cut: Equatable, Sendable {
        var direction: Direction
        var bytes: Int
    }

    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var plans: [Cut] = []
    private var made: [Cut] = []
    private var connectionCount = 0
    private var stopped = false
    /// Bytes forwarded by the last connection that ran whole: (request, response).
    private(set) var lastWhole: (request: Int, response: Int) = (0, 0)

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The cuts for the next connections, in order; connections after them run whole.
    func plan(_ cuts: [Cut]) { lock.withLock { plans = cuts } }
    /// The cuts made so far.
    var cutsMade: [Cut] { lock.withLock { made } }
    var connections: Int { lock.withLock { connectionCount } }
    var cutsLeft: Int { lock.withLock { plans.count } }

    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0, !lock.withLock({ stopped }) else { return }
            let cut: Cut? = lock.withLock {
                connectionCount += 1
                return plans.isEmpty ? nil : plans.removeFirst()
            }
            Thread.detachNewThread { [self] in relay(client, cut: cut) }
        }
    }

    private func relay(_ client: Int32, cut: Cut?) {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        defer {
            close(client)
            close(server)
        }
        guard connected == 0 else { return }
        var sent = [Direction.request: 0, .response: 0]
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, 10_000) > 0 {
            for (index, direction) in [(0, Direction.request), (1, Direction.response)] where fds[index].revents != 0 {
                let from = index == 0 ? client : server, to = index == 0 ? server : client
                var count = read(from, &buffer, buffer.count)
                if count <= 0 {
                    if cut == nil { lock.withLock { lastWhole = (sent[.request]!, sent[.response]!) } }
                    return
                }
                if let cut, cut.direction == direction { count = min(count, cut.bytes - sent[direction]!) }
                if count > 0 { _ = buffer.withUnsafeBytes { write(to, $0.baseAddress, count) } }
                sent[direction]! += count
                if let cut, cut.direction == direction, sent[direction]! >= cut.bytes {
                    lock.withLock { made.append(cut) }
                    return
                }
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
