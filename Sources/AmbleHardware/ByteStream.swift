/// A two-way byte stream: a TCP connection or a serial line.
///
/// The sync protocol frames its messages on top of this; a secure channel wraps the frames,
/// not the stream, so serial and TCP get the same protection.
public protocol ByteStream: AnyObject {
    /// What a person would call the other end, e.g. `127.0.0.1:7070` or `/dev/ttyUSB0`.
    var peerName: String { get }
    /// The other end as limits per peer count it: a TCP peer's address without its port, else
    /// `peerName`.
    var peerHost: String { get }
    /// A descriptor that becomes readable when bytes arrive.
    var pollDescriptor: Int32 { get }
    /// Reads what is available, at most `maxCount` bytes, waiting at most `timeoutSeconds`
    /// (0: do not wait). Returns an empty array on timeout and `nil` when the peer closed.
    func read(maxCount: Int, timeoutSeconds: Double) throws(StreamError) -> [UInt8]?
    /// Writes all of `bytes`, waiting as needed.
    func write(_ bytes: [UInt8]) throws(StreamError)
    /// Writes as much of `bytes` as the stream takes without waiting; returns how many.
    func writeAvailable(_ bytes: ArraySlice<UInt8>) throws(StreamError) -> Int
    func close()
}

extension ByteStream {
    public var peerHost: String { peerName }
}

public struct StreamError: Error, Equatable, CustomStringConvertible, Sendable {
    public var peer: String
    public var message: String
    public var errno: Int32?

    public init(peer: String, message: String, errno: Int32? = nil) {
        self.peer = peer
        self.message = message
        self.errno = errno
    }

    public var description: String {
        if let errno { return "\(peer): \(message) (errno \(errno))" }
        return "\(peer): \(message)"
    }
}
