import AmbleStudyAPI
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP request to the study server.
struct HTTPRequest: Sendable {
    var method: HTTPMethod
    /// The path with its query, from `/`.
    var path: String
    var headers: [(String, String)] = []
    var body: [UInt8] = []
}

/// The server's answer.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    /// The first header of this name (any case).
    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// Sends requests to the study server: what the outbox and the commands use, and what unit
/// tests replace.
protocol StudyTransport: Sendable {
    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse
}

/// Why a request got no answer. Every case says what to do.
enum TransportError: Error, Equatable, CustomStringConvertible {
    /// No connection: the server is down, unreachable, or refused it.
    case unreachable(server: String, reason: String)
    /// The server's certificate is not the one pinned.
    case certificateMismatch(server: String, expected: String, found: String)
    /// TLS failed for another reason (not a TLS server, a certificate the system does not trust).
    case tls(server: String, reason: String)
    /// No byte for `seconds`, or the whole answer took longer than allowed.
    case timedOut(server: String, seconds: Double)
    /// The connection ended before the whole answer came.
    case cut(server: String, reason: String)
    /// The answer is larger than any the API sends.
    case answerTooLarge(server: String, limit: Int)

    var description: String {
        switch self {
        case let .unreachable(server, reason):
            return "cannot reach the study server \(server) (\(reason)); check the network, or try again later: what waits is kept"
        case let .certificateMismatch(server, expected, found):
            return "refused the study server \(server): its certificate's SHA-256 is \(found), but this laptop pinned \(expected). "
                + "Someone may be in between; do not go on unless the research team says the server's certificate changed "
                + "(then join again with the new fingerprint)"
        case let .tls(server, reason):
            return "no secure connection to \(server) (\(reason)); check the address, and give the fingerprint of the join link "
                + "(#sha256=HEX or --fingerprint): without one the certificate must be signed by an authority this system trusts"
        case let .timedOut(server, seconds):
            return "the study server \(server) did not answer within \(Int(seconds)) s; try again later: what waits is kept"
        case let .cut(server, reason):
            return "the connection to the study server \(server) was cut (\(reason)); what waits is kept and sent again"
        case let .answerTooLarge(server, limit):
            return "the study server \(server) sent an answer over \(limit) bytes; refused it"
        }
    }

    /// Whether the server could not be reached at all (then trying the next item is pointless).
    var isUnreachable: Bool {
        switch self {
        case .unreachable, .certificateMismatch, .tls: return true
        default: return false
        }
    }
}

/// HTTP/1.1 over TCP, with TLS (NIOSSL) when the endpoint is https: the server's certificate
/// pinned by its SHA-256 when a fingerprint is given, checked by the system's authorities
/// otherwise. A connection per request (`Connection: close`): nothing is left half-open
/// between an outbox's items. Blocking: the commands are synchronous.
final class NIOHTTPTransport: StudyTransport, @unchecked Sendable {
    let endpoint: ServerEndpoint
    /// Seconds to connect (and finish the TLS handshake).
    var connectTimeoutSeconds: Double = 10
    /// Seconds without a byte from the server before giving up.
    var readTimeoutSeconds: Double = 30
    /// Seconds for a whole exchange at most (a server dripping bytes is given up too).
    var exchangeTimeoutSeconds: Double = 120
    /// The largest answer read, bytes (the API's answers are small; a study file is 512 KiB at most).
    var maximumResponseBytes = 2 << 20
    private let group: MultiThreadedEventLoopGroup
    private let sslContext: NIOSSLContext?

    init(endpoint: ServerEndpoint) throws(TransportError) {
        self.endpoint = endpoint
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        guard endpoint.secure else {
            sslContext = nil
            return
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        // With a pin, the callback below is the whole check (it replaces BoringSSL's).
        configuration.certificateVerification = endpoint.fingerprint == nil ? .fullVerification : .noHostnameVerification
        do {
            sslContext = try NIOSSLContext(configuration: configuration)
        } catch {
            throw .tls(server: endpoint.baseURL, reason: "\(error)")
        }
    }

    deinit {
        try? group.syncShutdownGracefully()
    }

    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        let server = endpoint.baseURL
        let loop = group.next()
        let promise = loop.makePromise(of: HTTPResponse.self)
        let seen = FingerprintSeen()
        let channel: Channel
        do {
            channel = try bootstrap(loop: loop, promise: promise, seen: seen).connect(host: endpoint.host, port: endpoint.port).wait()
        } catch {
            promise.fail(error)   // a promise left open is a leak NIO traps on
            if case ChannelError.connectTimeout = error { throw .timedOut(server: server, seconds: connectTimeoutSeconds) }
            throw .unreachable(server: server, reason: Self.words(error))
        }
        let deadline = loop.scheduleTask(in: .milliseconds(Int64(exchangeTimeoutSeconds * 1000))) {
            promise.fail(ExchangeTimedOut())
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.path)
        head.headers.add(name: "Host", value: endpoint.host.contains(":") ? "[\(endpoint.host)]:\(endpoint.port)" : "\(endpoint.host):\(endpoint.port)")
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "User-Agent", value: "amble")
        head.headers.add(name: "Content-Length", value: String(request.body.count))
        for (name, value) in request.headers { head.headers.add(name: name, value: value) }
        let body = channel.allocator.buffer(bytes: request.body)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if !request.body.isEmpty { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        do {
            return try promise.futureResult.wait()
        } catch is ExchangeTimedOut {
            throw .timedOut(server: server, seconds: exchangeTimeoutSeconds)
        } catch is ReadTimedOut {
            throw .timedOut(server: server, seconds: readTimeoutSeconds)
        } catch let error as ResponseTooLarge {
            throw .answerTooLarge(server: server, limit: error.limit)
        } catch {
            if let expected = endpoint.fingerprint, let found = seen.value, found != expected {
                throw .certificateMismatch(server: server, expected: expected, found: found)
            }
            // A connection that ends without TLS's close_notify was cut; other TLS errors are not.
            if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl { throw .cut(server: server, reason: "the connection ended mid-exchange") }
            if error is NIOSSLError || error is BoringSSLError { throw .tls(server: server, reason: Self.words(error)) }
            throw .cut(server: server, reason: Self.words(error))
        }
    }

    private func bootstrap(loop: EventLoop, promise: EventLoopPromise<HTTPResponse>, seen: FingerprintSeen) -> ClientBootstrap {
        let endpoint = endpoint, sslContext = sslContext, limit = maximumResponseBytes
        let readTimeout = TimeAmount.milliseconds(Int64(readTimeoutSeconds * 1000))
        return ClientBootstrap(group: loop)
            .connectTimeout(.milliseconds(Int64(connectTimeoutSeconds * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let sslContext {
                        let name = endpoint.hostIsAddress ? nil : endpoint.host
                        if let expected = endpoint.fingerprint {
                            try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: name) { certificates, verified in
                                let found = certificates.first.flatMap { try? $0.toDERBytes() }.map { Digest.sha256Hex($0) }
                                seen.value = found ?? "none (no certificate)"
                                verified.succeed(found == expected ? .certificateVerified : .failed)
                            })
                        } else {
                            try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: name))
                        }
                    }
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(IdleStateHandler(readTimeout: readTimeout))
                    try pipeline.addHandler(ResponseCollector(promise: promise, limit: limit))
                }
            }
    }

    /// An error of the socket or TLS layer in a few words.
    private static func words(_ error: any Error) -> String {
        if let io = error as? IOError { return io.description }
        return "\(error)"
    }

    struct ExchangeTimedOut: Error {}
    struct ReadTimedOut: Error {}
    struct ResponseTooLarge: Error { var limit: Int }
    struct ClosedEarly: Error, CustomStringConvertible {
        var description: String { "the server closed the connection before its answer was complete" }
    }

    /// The certificate fingerprint the server presented, for the mismatch message.
    final class FingerprintSeen: Sendable {
        private let stored = Mutex<String?>(nil)
        var value: String? {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }

    /// Collects one response, completing the promise at its end (or failing it).
    final class ResponseCollector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let promise: EventLoopPromise<HTTPResponse>
        let limit: Int
        var head: HTTPResponseHead?
        var body: [UInt8] = []

        init(promise: EventLoopPromise<HTTPResponse>, limit: Int) {
            self.promise = promise
            self.limit = limit
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let received):
                head = received
            case .body(let buffer):
                guard body.count + buffer.readableBytes <= limit else {
                    promise.fail(ResponseTooLarge(limit: limit))
                    context.close(promise: nil)
                    return
                }
                body += buffer.readableBytesView
            case .end:
                guard let head else { return }
                promise.succeed(HTTPResponse(status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: body))
                context.close(promise: nil)
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
                promise.fail(ReadTimedOut())
                context.close(promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ClosedEarly())
            context.fireChannelInactive()
        }
    }
}
