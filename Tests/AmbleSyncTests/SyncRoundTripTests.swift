import AmbleBandStore
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync
import Foundation
import Testing

/// Runs a sync server on loopback in a thread of its own until told to stop. Only that
/// thread touches the listener and the connections.
final class LoopbackBand: @unchecked Sendable {
    let listener: TCPListener
    let provider: BandStore
    private var connections: [SyncServerConnection] = []
    private let lock = NSLock()
    private var running = true

    init(store: BandStore) throws {
        listener = try TCPListener(bindingTo: HostPort(host: "127.0.0.1", port: 0))
        provider = store
        Thread { [self] in serve() }.start()
    }

    private func serve() {
        while isRunning {
            if let connection = try? listener.accept() {
                connections.append(SyncServerConnection(stream: connection, provider: provider))
            }
            connections.removeAll { !$0.service() }
            _ = waitForReadable([listener.pollDescriptor] + connections.map(\.pollDescriptor), timeoutSeconds: 0.01)
        }
        connections.forEach { $0.close() }
    }

    var isRunning: Bool { lock.withLock { running } }
    func stop() { lock.withLock { running = false } }
    var address: HostPort { listener.boundAddress }
}

func fill(_ store: BandStore, sessions: Int, secondsEach: Int) throws {
    for n in 0..<sessions {
        let start = 10_000.0 + Double(n) * 1000
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        let id = try store.beginSession(kind: .mindfulWalk, startUnixSeconds: start, parameters: parameters)
        var tally = SessionTally()
        for i in 0..<secondsEach {
            let row = SessionSecond(offsetSeconds: i, steps: 2, cadenceStepsPerMinute: 95, heartRateBPM: 90, heartRateConfidence: 0.9, overLimit: true, alerts: i % 10 == 2 ? 1 : 0)
            try store.appendSecond(sessionID: id, row)
            tally.add(row)
        }
        try store.endSession(sessionID: id, summary: tally.summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(secondsEach), parameters: parameters))
    }
}

struct SyncRoundTripTests {
    @Test func pullsEverySessionOverLoopbackTCPAndNeverTwice() throws {
        let bandStore = try BandStore(path: nil)
        try fill(bandStore, sessions: 3, secondsEach: 1800)  // three half-hour walks
        let band = try LoopbackBand(store: bandStore)
        defer { band.stop() }
        let laptop = try CompanionStore(path: nil)

        func syncOnce() throws -> Int {
            let client = SyncClient(stream: try TCPConnection.connect(to: band.address), timeoutSeconds: 10)
            defer { client.channel.stream.close() }
            let result = try Synchronizer(sink: laptop, client: client).run()
            #expect(result.refused.isEmpty)
            return result.pulled.count
        }

        #expect(try syncOnce() == 3)
        #expect(try syncOnce() == 0)
        try fill(bandStore, sessions: 1, secondsEach: 60)
        #expect(try syncOnce() == 1)

        let stored = try laptop.sessions()
        #expect(stored.count == 4)
        for session in stored {
            let original = try #require(try bandStore.session(id: session.bandSessionID))
            #expect(session.summary == original.summary)
            let (_, seconds) = try #require(try laptop.session(id: session.id))
            #expect(seconds == original.seconds)
        }
    }

    @Test func unknownSessionIsARefusalNotACrash() throws {
        let band = try LoopbackBand(store: try BandStore(path: nil))
        defer { band.stop() }
        let client = SyncClient(stream: try TCPConnection.connect(to: band.address), timeoutSeconds: 5)
        _ = try client.hello(client: "test")
        #expect(throws: SyncError.refused(peer: band.address.description, code: .notFound, message: "no finished session 99 on this band")) {
            try client.session(id: 99)
        }
        // The link still works after the refusal.
        #expect(try client.listSessions().isEmpty)
    }

    @Test func answersWithoutBlockingWhenTheCompanionIsSlowToRead() throws {
        let bandStore = try BandStore(path: nil)
        try fill(bandStore, sessions: 1, secondsEach: 3600)  // an hour: about 0.7 MB of JSON
        let pair = try PseudoTerminalPair.open()
        let companion = try LinuxSerialPort(path: pair.subordinatePath, baudRate: 115_200)
        let server = SyncServerConnection(stream: pair.controller, provider: bandStore)
        let client = SyncClient(stream: companion)
        try client.channel.send(.getSession(id: 1))
        // The companion reads nothing yet: each service() returns at once with data still queued.
        var calls = 0
        while calls < 50 {
            let start = Date()
            #expect(server.service())
            #expect(Date().timeIntervalSince(start) < 0.5, "service() must not wait for the reader")
            calls += 1
            usleep(1000)
        }
        #expect(server.isSending, "a line buffer cannot hold an hour of seconds")
        // Now the companion reads while the band keeps servicing.
        let box = ServerBox(server)
        Thread { box.serve() }.start()
        defer { box.stop() }
        let answer = try client.channel.receive(timeoutSeconds: 30)
        guard case .session(1, let record) = answer else { Issue.record("expected session 1"); return }
        #expect(record.seconds.count == 3600)
    }

    @Test func anUnknownRequestIsAnsweredNotDropped() throws {
        let band = try LoopbackBand(store: try BandStore(path: nil))
        defer { band.stop() }
        let connection = try TCPConnection.connect(to: band.address)
        try connection.write(Framing.frame(Array("{\"fromTheFuture\":{}}".utf8)))
        let client = SyncClient(stream: connection, timeoutSeconds: 5)
        let error = #expect(throws: SyncError.self) { try client.channel.receive(timeoutSeconds: 5).throwingFailure() }
        guard case .refused(_, .badRequest, _)? = error else { Issue.record("expected badRequest, got \(String(describing: error))"); return }
        #expect(try client.listSessions().isEmpty, "the link still works")
    }

    @Test func refusesAnotherProtocolVersion() throws {
        let band = try LoopbackBand(store: try BandStore(path: nil))
        defer { band.stop() }
        let client = SyncClient(stream: try TCPConnection.connect(to: band.address), timeoutSeconds: 5)
        let error = #expect(throws: SyncError.self) { try client.request(.hello(protocolVersion: 99, client: "future")) }
        guard case .refused(_, .unsupportedVersion, _)? = error else { Issue.record("expected a version refusal, got \(String(describing: error))"); return }
    }

    @Test func syncsOverASerialLine() throws {
        // A pseudo-terminal pair is a real serial line: the band serves on one side.
        let bandStore = try BandStore(path: nil)
        try fill(bandStore, sessions: 2, secondsEach: 120)
        let pair = try PseudoTerminalPair.open()
        let server = SyncServerConnection(stream: pair.controller, provider: bandStore)
        let port = try LinuxSerialPort(path: pair.subordinatePath, baudRate: 115_200)
        let box = ServerBox(server)
        Thread { box.serve() }.start()
        defer { box.stop() }
        let client = SyncClient(stream: port, timeoutSeconds: 10)
        _ = try client.hello(client: "serial-test")
        let listing = try client.listSessions()
        #expect(listing.count == 2)
        let record = try client.session(id: listing[1].id)
        #expect(record.seconds.count == 120)
    }
}

final class ServerBox: @unchecked Sendable {
    let server: SyncServerConnection
    private let lock = NSLock()
    private var flag = false
    init(_ server: SyncServerConnection) { self.server = server }
    var stopped: Bool { lock.withLock { flag } }
    func stop() { lock.withLock { flag = true } }
    func serve() {
        while !stopped {
            server.service()
            _ = waitForReadable([server.pollDescriptor], timeoutSeconds: 0.01)
        }
    }
}

extension SyncMessage {
    /// The message, or the refusal it carries as an error.
    func throwingFailure() throws -> SyncMessage {
        if case .failure(let code, let message) = self { throw SyncError.refused(peer: "test", code: code, message: message) }
        return self
    }
}
