import AmbleStudyAPI
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Where the server is: `http://127.0.0.1:PORT` (a server run with `--insecure-loopback`) or
/// `https://HOST:PORT#sha256=HEX`, its certificate pinned by that fingerprint as the laptop pins it.
struct Target: Sendable {
    var secure: Bool
    var host: String
    var port: Int
    var fingerprint: String?

    init(parsing text: String) throws {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            let fragment = rest[rest.index(after: hash)...]
            guard fragment.hasPrefix("sha256=") else { throw LoadError("\(text): after # comes sha256=HEX, the certificate's fingerprint") }
            fingerprint = String(fragment.dropFirst(7)).lowercased()
            rest = rest[..<hash]
        }
        if rest.hasPrefix("https://") { secure = true; rest = rest.dropFirst(8) }
        else if rest.hasPrefix("http://") { secure = false; rest = rest.dropFirst(7) }
        else { throw LoadError("\(text): give http://127.0.0.1:PORT or https://HOST:PORT#sha256=HEX") }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]) else {
            throw LoadError("\(text): the port is missing")
        }
        host = String(rest[..<colon])
        self.port = port
        guard !secure || fingerprint != nil else { throw LoadError("\(text): an https server needs its certificate's fingerprint (#sha256=HEX)") }
    }
}

struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One request as the generator sends it.
struct Request: Sendable {
    var method: HTTPMethod
    var path: String
    var headers: [(String, String)] = []
    var body: [UInt8] = []
}

struct Response: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
}

/// Why a request got no answer.
enum ExchangeFailure: Error {
    /// Closed by the generator at a chosen byte of the body (a cut).
    case cutOnPurpose
    /// The connection could not be made or ended before the answer was whole.
    case connection(String)
    case timedOut
}

/// One HTTP/1.1 keep-alive connection (TLS with the pinned certificate when the target is https),
/// one request at a time; reopened after a failure.
final class Connection: @unchecked Sendable {
    let target: Target
    let group: EventLoopGroup
    let sslContext: NIOSSLContext?
    private var channel: Channel?
    private var collector: Collector?
    /// Seconds for one whole exchange before it is given up.
    var timeoutSeconds: Int64 = 30
    private(set) var opened = 0

    init(target: Target, group: EventLoopGroup, sslContext: NIOSSLContext?) {
        self.target = target
        self.group = group
        self.sslContext = sslContext
    }

    static func sslContext(for target: Target) throws -> NIOSSLContext? {
        guard target.secure else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .noHostnameVerification
        return try NIOSSLContext(configuration: configuration)
    }

    /// Sends `request`; with `cutAfter`, only that many bytes of its body are sent before the
    /// connection is closed (the answer is then `cutOnPurpose`).
    func send(_ request: Request, cutAfter: Int? = nil) async throws(ExchangeFailure) -> Response {
        do {
            let channel = try await open()
            let promise = channel.eventLoop.makePromise(of: Response.self)
            let collector = self.collector!
            var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.path)
            head.headers.add(name: "Host", value: "\(target.host):\(target.port)")
            head.headers.add(name: "Content-Length", value: String(request.body.count))
            for (name, value) in request.headers { head.headers.add(name: name, value: value) }
            let sent = cutAfter.map { min($0, request.body.count) } ?? request.body.count
            let body = ByteBuffer(bytes: request.body[0 ..< sent])
            let cut = cutAfter != nil
            // The collector and the channel are touched on their event loop only.
            try await channel.eventLoop.submit {
                if !cut { collector.pending = promise }
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                if sent > 0 { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
                if cut {
                    channel.flush()
                    channel.close(promise: nil)
                } else {
                    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                }
            }.get()
            if cut {
                promise.fail(ExchangeFailure.cutOnPurpose)
                self.channel = nil
                throw ExchangeFailure.cutOnPurpose
            }
            let deadline = channel.eventLoop.scheduleTask(in: .seconds(timeoutSeconds)) { promise.fail(ExchangeFailure.timedOut) }
            defer { deadline.cancel() }
            let response = try await promise.futureResult.get()
            if response.headers["connection"].contains(where: { $0.lowercased() == "close" }) { close() }
            return response
        } catch let failure as ExchangeFailure {
            close()
            throw failure
        } catch {
            close()
            throw .connection("\(error)")
        }
    }

    func close() {
        channel?.close(promise: nil)
        channel = nil
        collector = nil
    }

    private func open() async throws -> Channel {
        if let channel, channel.isActive { return channel }
        let collector = Collector()
        let target = target, sslContext = sslContext
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let sslContext, let expected = target.fingerprint {
                        try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: nil) { certificates, verified in
                            let found = certificates.first.flatMap { try? $0.toDERBytes() }.map { Digest.sha256Hex($0) }
                            verified.succeed(found == expected ? .certificateVerified : .failed)
                        })
                    }
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(collector)
                }
            }
            .connect(host: target.host, port: target.port).get()
        self.channel = channel
        self.collector = collector
        opened += 1
        return channel
    }

    /// Collects one response at a time into the pending promise.
    final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPClientResponsePart
        var pending: EventLoopPromise<Response>?
        var head: HTTPResponseHead?
        var body: [UInt8] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let received):
                head = received
                body = []
            case .body(let buffer):
                body += buffer.readableBytesView
            case .end:
                if let head { pending?.succeed(Response(status: Int(head.status.code), headers: head.headers, body: body)) }
                pending = nil
                head = nil
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            pending?.fail(ExchangeFailure.connection("\(error)"))
            pending = nil
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            pending?.fail(ExchangeFailure.connection("the server closed the connection before its answer"))
            pending = nil
            context.fireChannelInactive()
        }
    }
}
