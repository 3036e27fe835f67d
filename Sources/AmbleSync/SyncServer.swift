import AmbleHardware
import AmbleModel

/// Where the band's side of sync reads sessions (the band's store, in practice).
public protocol SessionProvider: AnyObject {
    func bandIdentity() throws -> (id: String, name: String)
    func finishedSessions(afterID: Int64?) throws -> [SessionListing]
    func session(id: Int64) throws -> SessionRecord?
}

/// The band's side of one sync link (a TCP connection or the serial line). Never blocks on
/// reading: the band's loop calls `service()` each time round.
public final class SyncServerConnection {
    private let channel: MessageChannel
    private let provider: any SessionProvider
    public private(set) var isClosed = false
    public var peerName: String { channel.stream.peerName }
    public var pollDescriptor: Int32 { channel.stream.pollDescriptor }

    public init(stream: any ByteStream, provider: any SessionProvider) {
        channel = MessageChannel(stream: stream)
        self.provider = provider
    }

    /// Answers every complete request that has arrived. Returns false once the peer is gone.
    @discardableResult
    public func service() -> Bool {
        guard !isClosed else { return false }
        do {
            guard let requests = try channel.poll() else {
                close()
                return false
            }
            for request in requests {
                try channel.send(answer(request))
            }
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
