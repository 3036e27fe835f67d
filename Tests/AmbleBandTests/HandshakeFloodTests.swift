@testable import AmbleBand
import AmbleCompanionStore
import AmbleLinux
import AmbleSync
import Foundation
import Synchronization
import Testing

/// The band's handshake limits over TCP, with the band's own service: a flood of handshakes
/// costs it no key work past its limits, and a paired laptop still gets in.
struct HandshakeFloodTests {
    /// Sends `frame` on new connections from `source` until `running` is false; counts the
    /// refusals that came back, by code.
    final class Flood: @unchecked Sendable {
        let refusals = Mutex<[SyncMessage.FailureCode: Int]>([:])

        init(to address: HostPort, from source: String, running: @escaping @Sendable () -> Bool, frame: @escaping @Sendable () throws -> [UInt8]) {
            Thread { [self] in
                while running() {
                    guard let socket = try? TCPConnection.connect(to: address, timeoutSeconds: 1, from: source) else { continue }
                    defer { socket.close() }
                    guard let bytes = try? frame(), (try? socket.write(bytes)) != nil,
                          let answer = try? socket.read(maxCount: 4096, timeoutSeconds: 0.5) else { continue }
                    var decoder = FrameDecoder()
                    for case .frame(FrameKind.refusal.rawValue, let payload) in decoder.feed(answer) {
                        refusals.withLock { $0[Refusal(payload: payload).code, default: 0] += 1 }
                    }
                }
            }.start()
        }

        var count: Int { refusals.withLock { $0.values.reduce(0, +) } }
    }

    @Test func aPairedLaptopSyncsDuringAReplayFloodFromItsOwnAddressAndForgedHandshakesFromAnother() throws {
        let run = try ScenarioRun(script: calibrationScript, options: { $0.listen = HostPort(host: "127.0.0.1", port: 0) })
        run.run(seconds: 45)
        let service = try #require(run.band.link)
        let limits = HandshakeLimits()
        let laptopStore = try CompanionStore(path: nil)
        let (laptopKey, band) = try pairDirectly(run.band.store, laptopStore)
        let address = try listenAddress(run)
        // What an eavesdropper recorded of a sync: the laptop's IK message 1.
        var recording = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                                localStaticKey: laptopKey, remoteStaticKey: band.publicKey)
        let recorded = Framing.frame(.connect, try recording.writeMessage(payload: []).message)
        let running = Atomic(true)
        let replay = Flood(to: address, from: "127.0.0.1", running: { running.load(ordering: .relaxed) }) { recorded }
        let forged = Flood(to: address, from: "127.0.0.2", running: { running.load(ordering: .relaxed) }) {
            var handshake = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                                    localStaticKey: .generate(), remoteStaticKey: band.publicKey)
            return Framing.frame(.connect, try handshake.writeMessage(payload: []).message)
        }
        defer { running.store(false, ordering: .relaxed) }
        let bandStart = run.clock.nowSeconds
        let deadline = Date().addingTimeInterval(60)
        while replay.count < 20 && Date() < deadline { run.run(seconds: 0.01); usleep(300) }
        let pulled = try LaptopThread { () throws -> Int in
            let link = try CompanionLink.connectToPairedBand(open: { try TCPConnection.connect(to: address) }, laptopKeyPair: laptopKey,
                                                             bandPublicKey: band.publicKey, clock: SystemClock(), timeoutSeconds: 15) { usleep(useconds_t($0 * 1e6)) }
            defer { link.close() }
            return try Synchronizer(sink: laptopStore, link: link).run().pulled.count
        }.wait(ticking: run) { _ in }
        while (replay.count < 100 || forged.count < 50) && Date() < deadline { run.run(seconds: 0.01); usleep(300) }
        running.store(false, ordering: .relaxed)
        #expect(pulled == 1, "the paired laptop synced during the flood")
        let seconds = run.clock.nowSeconds - bandStart
        // Key work: the recording read once, the forged ones within their address's limit, the laptop's own.
        let bound = 1 + limits.addressBurst + Int(seconds * limits.addressPerSecond) + 1 + CompanionLink.busyRetryPauses.count
        #expect(service.handshakeKeyWork <= bound, "\(service.handshakeKeyWork) handshakes worked on in \(seconds) band seconds")
        #expect(replay.refusals.withLock { $0[.handshakeFailed] ?? 0 } >= 100, "the replays refused unread: \(replay.refusals.withLock { $0 })")
        #expect(forged.refusals.withLock { $0[.busy] ?? 0 } >= 50 - bound, "the forged ones over their limit: \(forged.refusals.withLock { $0 })")
        #expect(service.handshakeVerdicts[.replayed] ?? 0 >= 100)
    }
}
