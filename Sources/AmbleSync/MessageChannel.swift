import AmbleHardware

/// Messages over a byte stream: framing and coding in one place, so that a secure channel
/// can later wrap `send`/`receive` for TCP and serial alike.
public final class MessageChannel {
    public let stream: any ByteStream
    private var decoder = FrameDecoder()
    private var ready: [SyncMessage] = []
    public private(set) var discardedBytes = 0

    public init(stream: any ByteStream) {
        self.stream = stream
    }

    public func send(_ message: SyncMessage) throws {
        try stream.write(Framing.frame(try message.encoded()))
    }

    /// Reads what has arrived without waiting; returns complete messages, or nil when the peer closed.
    public func poll() throws -> [SyncMessage]? {
        guard let bytes = try stream.read(maxCount: 65536, timeoutSeconds: 0) else { return nil }
        try absorb(bytes)
        defer { ready.removeAll() }
        return ready
    }

    /// Waits up to `timeoutSeconds` for the next message.
    public func receive(timeoutSeconds: Double) throws -> SyncMessage {
        var waited = 0.0
        while ready.isEmpty {
            guard waited < timeoutSeconds else {
                throw SyncError.timedOut(peer: stream.peerName, seconds: timeoutSeconds)
            }
            guard let bytes = try stream.read(maxCount: 65536, timeoutSeconds: 0.25) else {
                throw SyncError.closed(peer: stream.peerName)
            }
            if bytes.isEmpty { waited += 0.25 }
            try absorb(bytes)
        }
        return ready.removeFirst()
    }

    private func absorb(_ bytes: [UInt8]) throws {
        for event in decoder.feed(bytes) {
            switch event {
            case .frame(let payload):
                do {
                    ready.append(try SyncMessage.decode(payload))
                } catch {
                    throw SyncError.malformed(peer: stream.peerName, detail: "a frame did not hold a known message")
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
