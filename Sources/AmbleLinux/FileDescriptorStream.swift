#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware

/// A `ByteStream` over a non-blocking descriptor (a TCP socket or a serial line).
public class FileDescriptorStream: ByteStream {
    public let peerName: String
    public let peerHost: String
    public let pollDescriptor: Int32
    private var closed = false

    init(descriptor: Int32, peerName: String, peerHost: String? = nil) {
        self.pollDescriptor = descriptor
        self.peerName = peerName
        self.peerHost = peerHost ?? peerName
    }

    deinit { close() }

    public func read(maxCount: Int, timeoutSeconds: Double) throws(StreamError) -> [UInt8]? {
        if closed { return nil }
        if timeoutSeconds > 0 {
            let ready = try waitReadable(timeoutSeconds: timeoutSeconds)
            if !ready { return [] }
        }
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(pollDescriptor, $0.baseAddress, maxCount) }
            if got > 0 { return Array(buffer.prefix(got)) }
            if got == 0 { return nil }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return [] }
            if code == ECONNRESET { return nil }
            throw StreamError(peer: peerName, message: "read failed", errno: code)
        }
    }

    public func write(_ bytes: [UInt8]) throws(StreamError) {
        if closed { throw StreamError(peer: peerName, message: "stream is closed") }
        var offset = 0
        while offset < bytes.count {
            let sent = try writeAvailable(bytes[offset...])
            if sent > 0 { offset += sent; continue }
            var pfd = pollfd(fd: pollDescriptor, events: Int16(POLLOUT), revents: 0)
            if poll(&pfd, 1, 5000) == 0 {
                throw StreamError(peer: peerName, message: "write timed out: the other end is not reading")
            }
        }
    }

    public func writeAvailable(_ bytes: ArraySlice<UInt8>) throws(StreamError) -> Int {
        if closed { throw StreamError(peer: peerName, message: "stream is closed") }
        guard !bytes.isEmpty else { return 0 }
        while true {
            let sent = bytes.withUnsafeBytes { raw in sendBytes(raw.baseAddress!, raw.count) }
            if sent >= 0 { return sent }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return 0 }
            throw StreamError(peer: peerName, message: code == EPIPE ? "the other end closed the connection" : "write failed", errno: code)
        }
    }

    /// Writes with `send(MSG_NOSIGNAL)` on sockets so a closed peer is an error, not SIGPIPE.
    func sendBytes(_ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        Glibc.write(pollDescriptor, pointer, count)
    }

    public func close() {
        if closed { return }
        closed = true
        closeDescriptor(pollDescriptor)
    }

    private func waitReadable(timeoutSeconds: Double) throws(StreamError) -> Bool {
        var pfd = pollfd(fd: pollDescriptor, events: Int16(POLLIN), revents: 0)
        let ms = Int32(min(timeoutSeconds * 1000, Double(Int32.max)).rounded(.up))
        while true {
            let n = poll(&pfd, 1, ms)
            if n >= 0 { return n > 0 }
            if errno == EINTR { continue }
            throw StreamError(peer: peerName, message: "poll failed", errno: errno)
        }
    }
}

/// Waits until one of `descriptors` is readable or `timeoutSeconds` passes; returns the
/// readable ones (hang-ups and errors count as readable so the owner notices them).
public func waitForReadable(_ descriptors: [Int32], timeoutSeconds: Double) -> Set<Int32> {
    var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let ms = timeoutSeconds <= 0 ? 0 : Int32(min(timeoutSeconds * 1000, 60_000).rounded(.up))
    let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), ms) }
    if n <= 0 {
        if n < 0 && errno == EINTR { return [] }
        if descriptors.isEmpty && ms > 0 { return [] }
        return []
    }
    return Set(fds.filter { $0.revents != 0 }.map(\.fd))
}

/// Sleeps for real seconds (used when nothing is to be watched).
public func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}
