@testable import AmbleSync
import Testing

/// The band's handshake limits as values: addresses, messages and the time in, verdicts out.
struct HandshakeGateTests {
    var limits: HandshakeLimits {
        var limits = HandshakeLimits()
        (limits.addressBurst, limits.addressPerSecond, limits.sharedBurst, limits.sharedPerSecond) = (3, 1, 5, 2)
        return limits
    }

    /// The verdicts for `count` handshakes from `address` at `now`.
    func admit(_ gate: inout HandshakeGate, _ count: Int, from address: String, at now: Double) -> [HandshakeGate.Verdict] {
        (0 ..< count).map { _ in gate.admit(address: address, kind: .pair, message: [], now: now) }
    }

    @Test func eachAddressHasItsBurstThenItsRate() {
        var gate = HandshakeGate(limits: limits, now: 0)
        #expect(admit(&gate, 4, from: "10.0.0.9", at: 0) == [.admitted, .admitted, .admitted, .addressLimited])
        #expect(admit(&gate, 1, from: "10.0.0.9", at: 0.9) == [.addressLimited], "refused ones spend nothing, and 0.9 s is not a token")
        #expect(admit(&gate, 2, from: "10.0.0.9", at: 1.0) == [.admitted, .addressLimited], "one a second")
        #expect(admit(&gate, 1, from: "10.0.0.7", at: 1.0) == [.admitted], "another address has its own")
        #expect(admit(&gate, 4, from: "10.0.0.9", at: 100) == [.admitted, .admitted, .admitted, .addressLimited], "refilled to the burst, no more")
        #expect(gate.counts == [.admitted: 8, .addressLimited: 4])
    }

    @Test func newAddressesShareABucketThatAPairedLaptopsAddressSkips() {
        var gate = HandshakeGate(limits: limits, now: 0)
        gate.trust(address: "10.0.0.2", now: 0)   // a paired laptop's request opened from there
        let strangers = (0 ..< 7).map { gate.admit(address: "10.1.0.\($0)", kind: .pair, message: [], now: 0) }
        #expect(strangers == Array(repeating: .admitted, count: 5) + [.sharedLimited, .sharedLimited])
        #expect(admit(&gate, 4, from: "10.0.0.2", at: 0) == [.admitted, .admitted, .admitted, .addressLimited], "only its own limit")
        #expect(gate.admit(address: "10.1.0.9", kind: .pair, message: [], now: 0.5) == .admitted, "2 a second")
    }

    @Test func aConnectMessageReadBeforeIsRefusedAsAReplayWithoutSpendingATokenAndAnyOtherPasses() {
        var gate = HandshakeGate(limits: limits, now: 0)
        let recorded = Array(repeating: UInt8(7), count: 96)
        #expect(gate.admit(address: "10.0.0.9", kind: .connect, message: recorded, now: 0) == .admitted)
        gate.remember(connectMessage: recorded)
        for _ in 0 ..< 100 { #expect(gate.admit(address: "10.0.0.9", kind: .connect, message: recorded, now: 0) == .replayed) }
        var fresh = recorded
        fresh[0] = 8   // another ephemeral key: a new handshake
        #expect(gate.admit(address: "10.0.0.9", kind: .connect, message: fresh, now: 0) == .admitted, "the replays spent none of the address's tokens")
        #expect(gate.refusal(for: .replayed, address: "10.0.0.9")?.code == .handshakeFailed)
        #expect(gate.refusal(for: .addressLimited, address: "10.0.0.9")?.code == .busy, "a laptop told busy tries again")
    }

    @Test func itsMemoryIsBoundedWhateverPeersSend() {
        var small = limits
        (small.addressesTracked, small.trustedAddresses, small.rememberedHandshakes) = (8, 2, 4)
        var gate = HandshakeGate(limits: small, now: 0)
        for i in 0 ..< 1000 {
            _ = gate.admit(address: "10.2.\(i / 256).\(i % 256)", kind: .pair, message: [], now: Double(i))
            gate.trust(address: "10.3.0.\(i % 256)", now: Double(i))
            gate.remember(connectMessage: Array(repeating: UInt8(i % 256), count: 32) + [UInt8(i / 256)])
        }
        #expect(gate.sizes == (addresses: 8, trusted: 2, remembered: 4))
        let oldest = Array(repeating: UInt8(0), count: 32)
        #expect(gate.admit(address: "10.9.9.9", kind: .connect, message: oldest, now: 2000) == .admitted, "forgotten after four newer ones")
    }
}
