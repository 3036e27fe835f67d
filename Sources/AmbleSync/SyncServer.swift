import AmbleHardware
import AmbleModel

/// Where the band's side of sync reads sessions (the band's store, in practice).
public protocol SessionProvider: AnyObject {
    func bandIdentity() throws -> (id: String, name: String)
    func finishedSessions(afterID: Int64?) throws -> [SessionListing]
    func session(id: Int64) throws -> SessionRecord?
}

/// The band's side of one sync link (a TCP connection or the serial line). Never blocks:
/// the band's loop calls `service()` each time round; answers are queued and written as the
/// link takes them, so sending an hour-long walk over 115200 baud does not stop the band.
public final class SyncServerConnection {
    /// Requests are small; a larger frame is noise or a confused peer.
    public static let maximumRequestLength = 64 << 10

    private let channel: MessageChannel
    private let provider: any SessionProvider
    public private(set) var isClosed = false
    public var peerName: String { channel.stream.peerName }
    public var pollDescriptor: Int32 { channel.stream.pollDescriptor }

    public init(stream: any ByteStream, provider: any SessionProvider) {
        channel = MessageChannel(stream: stream, maximumIncomingPayloadLength: Self.maximumRequestLength)
        self.provider = provider
    }

    /// Whether answers are still waiting to be written.
    public var isSending: Bool { channel.queuedByteCount > 0 }

    /// Answers every complete request that has arrived and writes what the link takes.
    /// Returns false once the peer is gone (or the link failed).
    @discardableResult
    public func service() -> Bool {
        guard !isClosed else { return false }
        do {
            guard let arrivals = try channel.poll() else {
                close()
                return false
            }
            for arrival in arrivals {
                switch arrival {
                case .message(let request):
                    try channel.queue(answer(request))
                case .undecodable:
                    try channel.queue(.failure(code: .badRequest, message: "the band does not know that request; update the older side"))
                }
            }
            try channel.flush()
            return true
        } catch {
            close()
            return false
        }
    }

    public func close() {
        isClosed = true
        channel.stream.close()
    }

    func answer(_ request: SyncMessage) -> SyncMessage {
        do {
            switch request {
            case .hello(let version, _):
                guard version == SyncMessage.protocolVersion else {
                    return .failure(code: .unsupportedVersion, message: "this band speaks sync protocol \(SyncMessage.protocolVersion), the companion \(version); update the older one")
                }
                let identity = try provider.bandIdentity()
                return .welcome(protocolVersion: SyncMessage.protocolVersion, bandID: identity.id, bandName: identity.name)
            case .listSessions(let after):
                return .sessionList(try provider.finishedSessions(afterID: after))
            case .getSession(let id):
                guard let record = try provider.session(id: id) else {
                    return .failure(code: .notFound, message: "no finished session \(id) on this band")
                }
                return .session(id: id, record: record)
            case .welcome, .sessionList, .session, .failure:
                return .failure(code: .badRequest, message: "that is an answer, not a request")
            }
        } catch {
            return .failure(code: .internalError, message: "the band's store failed: \(error)")
        }
    }
}

/// The companion's side: asks a band for the sessions it does not have yet.
public struct SyncClient {
    public let channel: MessageChannel
    public var timeoutSeconds: Double

    public init(stream: any ByteStream, timeoutSeconds: Double = 15) {
        channel = MessageChannel(stream: stream)
        self.timeoutSeconds = timeoutSeconds
    }

    public func request(_ message: SyncMessage) throws -> SyncMessage {
        try channel.send(message)
        let answer = try channel.receive(timeoutSeconds: timeoutSeconds)
        if case .failure(let code, let text) = answer {
            throw SyncError.refused(peer: channel.stream.peerName, code: code, message: text)
        }
        return answer
    }

    /// Says hello; returns the band's identity.
    public func hello(client: String) throws -> (id: String, name: String) {
        let answer = try request(.hello(protocolVersion: SyncMessage.protocolVersion, client: client))
        guard case .welcome(_, let id, let name) = answer else {
            throw SyncError.unexpected(peer: channel.stream.peerName, got: "\(answer)".prefix(60).description)
        }
        return (id, name)
    }

    public func listSessions(afterID: Int64? = nil) throws -> [SessionListing] {
        let answer = try request(.listSessions(afterID: afterID))
        guard case .sessionList(let list) = answer else {
            throw SyncError.unexpected(peer: channel.stream.peerName, got: "\(answer)".prefix(60).description)
        }
        return list
    }

    public func session(id: Int64) throws -> SessionRecord {
        let answer = try request(.getSession(id: id))
        guard case .session(let got, let record) = answer, got == id else {
            throw SyncError.unexpected(peer: channel.stream.peerName, got: "\(answer)".prefix(60).description)
        }
        return record
    }
}

/// Where the companion keeps what it pulled (its store, in practice).
public protocol SessionSink {
    /// The band session ids already kept for `bandID`.
    func storedBandSessionIDs(bandID: String) throws -> Set<Int64>
    /// Keeps one session; returns its local id, or nil when it was already kept.
    func store(bandID: String, bandName: String, bandSessionID: Int64, record: SessionRecord) throws -> Int64?
}

/// One sync: list the band's finished sessions, fetch those not kept, keep each at once.
/// Interrupted half-way, the next sync fetches what is missing; a session the band refuses
/// is reported and skipped so that the ones after it still come.
public struct Synchronizer {
    public struct Result: Sendable {
        public var bandID: String
        public var bandName: String
        /// Local ids of the sessions kept by this sync, with their summaries.
        public var pulled: [(id: Int64, summary: SessionSummary)]
        public var alreadyStored: Int
        /// Band session ids the band refused to send, with its reason.
        public var refused: [(id: Int64, reason: String)]
    }

    public let sink: any SessionSink
    public let client: SyncClient

    public init(sink: any SessionSink, client: SyncClient) {
        self.sink = sink
        self.client = client
    }

    public func run() throws -> Result {
        let band = try client.hello(client: "amble")
        let known = try sink.storedBandSessionIDs(bandID: band.id)
        let listing = try client.listSessions()
        var result = Result(bandID: band.id, bandName: band.name, pulled: [], alreadyStored: 0, refused: [])
        for item in listing {
            if known.contains(item.id) {
                result.alreadyStored += 1
                continue
            }
            let record: SessionRecord
            do {
                record = try client.session(id: item.id)
            } catch SyncError.refused(_, _, let message) {
                result.refused.append((item.id, message))
                continue
            }
            if let id = try sink.store(bandID: band.id, bandName: band.name, bandSessionID: item.id, record: record) {
                result.pulled.append((id, record.summary))
            } else {
                result.alreadyStored += 1
            }
        }
        return result
    }
}
