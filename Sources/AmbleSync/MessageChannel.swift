import AmbleHardware

/// Messages over a byte stream: framing and coding in one place, so that a secure channel
/// can later wrap them for TCP and serial alike.
///
/// The companion's side waits (`send`, `receive`); the band's side never blocks (`poll`,
/// `queue`, `flush`), because its loop also reads sensors and drives the motor.
public final class MessageChannel {
    /// What arrived: a message, or a frame that held no message this side knows.
    public enum Incoming: Equatable, Sendable {
        case message(SyncMessage)
        case undecodable
    }

    public let stream: any ByteStream
    private var decoder: FrameDecoder
    private var ready: [Incoming] = []
    private var outgoing: [UInt8] = []
    private var outgoingStart = 0
    public private(set) var discardedBytes = 0

    public init(stream: any ByteStream, maximumIncomingPayloadLength: Int = Framing.maximumPayloadLength) {
        self.stream = stream
        decoder = FrameDecoder(maximumPayloadLength: maximumIncomingPayloadLength)
    }

    /// Sends a message, waiting until it is written.
    public func send(_ message: SyncMessage) throws {
        try stream.write(Framing.frame(try message.encoded()))
    }

    /// Queues a message to be written by `flush()`.
    public func queue(_ message: SyncMessage) throws {
        outgoing += Framing.frame(try message.encoded())
    }

    /// Bytes queued and not yet written.
    public var queuedByteCount: Int { outgoing.count - outgoingStart }

    /// Writes what the stream takes now; returns true when nothing is left queued.
    @discardableResult
    public func flush() throws -> Bool {
        while outgoingStart < outgoing.count {
            let written = try stream.writeAvailable(outgoing[outgoingStart...])
            if written == 0 { break }
            outgoingStart += written
        }
        if outgoingStart == outgoing.count {
            outgoing.removeAll(keepingCapacity: outgoing.count < 1 << 20)
            outgoingStart = 0
            return true
        }
        return false
    }

    /// Reads what has arrived without waiting; returns what it completes, or nil when the peer closed.
    public func poll() throws -> [Incoming]? {
        guard let bytes = try stream.read(maxCount: 65536, timeoutSeconds: 0) else { return nil }
        absorb(bytes)
        defer { ready.removeAll() }
        return ready
    }

    /// Waits up to `timeoutSeconds` for the next message.
    public func receive(timeoutSeconds: Double) throws -> SyncMessage {
        var waited = 0.0
        while true {
            if !ready.isEmpty {
                guard case .message(let message) = ready.removeFirst() else {
                    throw SyncError.malformed(peer: stream.peerName, detail: "a frame did not hold a known message; update the older side")
                }
                return message
            }
            guard waited < timeoutSeconds else {
                throw SyncError.timedOut(peer: stream.peerName, seconds: timeoutSeconds)
            }
            guard let bytes = try stream.read(maxCount: 65536, timeoutSeconds: 0.25) else {
                throw SyncError.closed(peer: stream.peerName)
            }
            if bytes.isEmpty { waited += 0.25 }
            absorb(bytes)
        }
    }

    private func absorb(_ bytes: [UInt8]) {
        for event in decoder.feed(bytes) {
            switch event {
            case .frame(let payload):
                if let message = try? SyncMessage.decode(payload) {
                    ready.append(.message(message))
                } else {
                    ready.append(.undecodable)
                }
            case .discarded(let count, _):
                discardedBytes += count
            }
        }
    }
}

public enum SyncError: Error, Equatable, CustomStringConvertible {
    case timedOut(peer: String, seconds: Double)
    case closed(peer: String)
    case malformed(peer: String, detail: String)
    case refused(peer: String, code: SyncMessage.FailureCode, message: String)
    case unexpected(peer: String, got: String)

    public var description: String {
        switch self {
        case .timedOut(let peer, let seconds): return "\(peer): no answer within \(Int(seconds)) s"
        case .closed(let peer): return "\(peer): the band closed the connection"
        case .malformed(let peer, let detail): return "\(peer): \(detail)"
        case .refused(let peer, let code, let message): return "\(peer): the band refused (\(code.rawValue)): \(message)"
        case .unexpected(let peer, let got): return "\(peer): unexpected answer \(got)"
        }
    }
}
