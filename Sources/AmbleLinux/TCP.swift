#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware

/// A host and port as written on a command line (`127.0.0.1:7070`, `[::1]:7070`, `band.local:7070`).
public struct HostPort: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; returns nil when it is not of that form.
    public init?(parsing text: String) {
        var rest = Substring(text)
        let host: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            rest = rest[rest.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            rest = rest.dropFirst()
        } else {
            guard let colon = rest.lastIndex(of: ":") else { return nil }
            host = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        }
        guard !host.isEmpty, let port = UInt16(rest) else { return nil }
        self.host = String(host)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A connected TCP socket.
public final class TCPConnection: FileDescriptorStream {
    /// Connects to `target`, trying each address the name resolves to; from the local address
    /// `source` when given (a bench's or a test's peers on 127.0.0.2 beside a laptop on 127.0.0.1).
    public static func connect(to target: HostPort, timeoutSeconds: Double = 5, from source: String? = nil) throws(StreamError) -> TCPConnection {
        let peer = target.description
        var lastError = StreamError(peer: peer, message: "no address found for \(target.host)")
        let addresses = try resolve(target, passive: false)
        defer { freeaddrinfo(addresses) }
        let local = try source.map { source throws(StreamError) in try resolve(HostPort(host: source, port: 0), passive: false) }
        defer { if let local { freeaddrinfo(local) } }
        var cursor = addresses
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.pointee.ai_protocol)
            if fd < 0 { lastError = StreamError(peer: peer, message: "socket failed", errno: errno); continue }
            if let local = local ?? nil, bind(fd, local.pointee.ai_addr, local.pointee.ai_addrlen) < 0 {
                lastError = StreamError(peer: peer, message: "cannot connect from \(source ?? "")", errno: errno)
                closeDescriptor(fd)
                continue
            }
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) < 0 && errno != EINPROGRESS {
                lastError = connectError(peer: peer, code: errno)
                closeDescriptor(fd)
                continue
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&pfd, 1, Int32(timeoutSeconds * 1000))
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if ready <= 0 {
                lastError = StreamError(peer: peer, message: "no answer within \(Int(timeoutSeconds)) s; is the band on and is ambled listening there?")
                closeDescriptor(fd)
                continue
            }
            if soError != 0 {
                lastError = connectError(peer: peer, code: soError)
                closeDescriptor(fd)
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return TCPConnection(descriptor: fd, peerName: peer)
        }
        throw lastError
    }

    override func sendBytes(_ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        send(pollDescriptor, pointer, count, Int32(MSG_NOSIGNAL))
    }

    private static func connectError(peer: String, code: Int32) -> StreamError {
        if code == ECONNREFUSED {
            return StreamError(peer: peer, message: "connection refused: nothing listens there; start ambled with --listen", errno: code)
        }
        return StreamError(peer: peer, message: "connect failed", errno: code)
    }
}

/// A listening TCP socket; `accept()` never blocks.
public final class TCPListener {
    public let pollDescriptor: Int32
    /// The address actually bound (the port is filled in when 0 was asked for).
    public let boundAddress: HostPort

    public init(bindingTo address: HostPort) throws(StreamError) {
        let peer = address.description
        let addresses = try resolve(address, passive: true)
        defer { freeaddrinfo(addresses) }
        guard let info = addresses else { throw StreamError(peer: peer, message: "cannot resolve \(address.host)") }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.pointee.ai_protocol)
        if fd < 0 { throw StreamError(peer: peer, message: "socket failed", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) < 0 {
            let code = errno
            closeDescriptor(fd)
            let hint = code == EADDRINUSE ? "address in use: another ambled may be running; pick another port with --listen" : "bind failed"
            throw StreamError(peer: peer, message: hint, errno: code)
        }
        if listen(fd, 8) < 0 {
            let code = errno
            closeDescriptor(fd)
            throw StreamError(peer: peer, message: "listen failed", errno: code)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let port: UInt16 = withUnsafeMutablePointer(to: &storage) { pointer in
            _ = pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        pollDescriptor = fd
        boundAddress = HostPort(host: address.host, port: port)
    }

    deinit { closeDescriptor(pollDescriptor) }

    /// Returns a waiting connection, or nil when none is waiting.
    public func accept() throws(StreamError) -> TCPConnection? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(pollDescriptor, $0, &length)
                }
            }
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = setNonBlocking(fd)
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return TCPConnection(descriptor: fd, peerName: describe(&storage), peerHost: hostKey(&storage))
            }
            let code = errno
            if code == EINTR || code == ECONNABORTED { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw StreamError(peer: boundAddress.description, message: "accept failed", errno: code)
        }
    }
}

private func resolve(_ address: HostPort, passive: Bool) throws(StreamError) -> UnsafeMutablePointer<addrinfo>? {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    if passive { hints.ai_flags = AI_PASSIVE }
    var result: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(address.host, String(address.port), &hints, &result)
    if status != 0 {
        throw StreamError(peer: address.description, message: "cannot resolve \(address.host): \(String(cString: gai_strerror(status)))")
    }
    return result
}

private func describe(_ storage: inout sockaddr_storage) -> String {
    var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
    let length = socklen_t(storage.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    let status = withUnsafePointer(to: &storage) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
        }
    }
    if status != 0 { return "unknown peer" }
    let h = cString(host), s = cString(service)
    return h.contains(":") ? "[\(h)]:\(s)" : "\(h):\(s)"
}

/// A peer's address for limits per peer, without the port: IPv4 (also when mapped into IPv6)
/// or the whole IPv6 address. Not IPv6's /64: every device on a home LAN shares one (and
/// link-local fe80::), and an attacker with many addresses is bounded by the band's shared
/// limit for new addresses anyway.
private func hostKey(_ storage: inout sockaddr_storage) -> String {
    withUnsafePointer(to: &storage) { pointer in
        if Int32(pointer.pointee.ss_family) == AF_INET6 {
            let bytes = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
            }
            if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
                return bytes.suffix(4).map(String.init).joined(separator: ".")
            }
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
        }
        let bytes = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
            withUnsafeBytes(of: address.pointee.sin_addr) { Array($0) }
        }
        return bytes.map(String.init).joined(separator: ".")
    }
}
