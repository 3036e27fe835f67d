/// A token bucket: up to `burst` tokens, refilled at `perSecond`; taking one spends it.
public struct TokenBucket: Equatable, Sendable {
    public let burst: Double
    public let perSecond: Double
    private var tokens: Double
    private var updatedAt: Double

    /// Starts full at `now`.
    public init(burst: Int, perSecond: Double, now: Double) {
        self.burst = Double(burst)
        self.perSecond = perSecond
        tokens = Double(burst)
        updatedAt = now
    }

    /// The tokens there are at `now` (time running backwards adds none).
    public func tokens(now: Double) -> Double {
        min(burst, tokens + max(0, now - updatedAt) * perSecond)
    }

    /// Whether a token is there at `now`.
    public func canTake(now: Double) -> Bool { tokens(now: now) >= 1 }

    /// Spends a token at `now`; false (and nothing spent) when there is none.
    public mutating func take(now: Double) -> Bool {
        let available = tokens(now: now)
        updatedAt = max(updatedAt, now)
        tokens = available
        guard available >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// How much key work (X25519, the bulk of a handshake's cost) the band does for handshakes,
/// whatever peers send. Figures and reasons: docs/protocol.md, "Handshake limits".
public struct HandshakeLimits: Equatable, Sendable {
    /// Handshakes taken at once from one address (a laptop's commands in a row, its tries
    /// again after "busy"), then `addressPerSecond`.
    public var addressBurst = 10
    public var addressPerSecond = 1.0
    /// Handshakes taken at once from all addresses that no paired laptop proved itself from,
    /// then `sharedPerSecond`.
    public var sharedBurst = 20
    public var sharedPerSecond = 5.0
    /// Addresses with a bucket of their own; past this, a full bucket (it remembers nothing),
    /// else the fullest, is dropped.
    public var addressesTracked = 64
    /// Addresses remembered as a paired laptop's (they skip the shared bucket); the least
    /// recently proven goes first.
    public var trustedAddresses = 16
    /// Paired laptops' IK first messages remembered, so that one replayed is refused unread.
    public var rememberedHandshakes = 256

    public init() {}
}

/// Decides, before any key work, whether the band takes up the first message of a handshake:
/// an IK message 1 it has already read from a paired laptop is a recording replayed; each peer
/// address has a token bucket, and addresses no paired laptop has proved itself from share one
/// more. Refused handshakes cost a look-up and a refusal, no key work. Pure: addresses,
/// messages and the time in, verdicts out; its memory is bounded by `limits`.
public struct HandshakeGate {
    public enum Verdict: Hashable, Sendable {
        case admitted
        /// The same IK message 1 was read before: a recording replayed.
        case replayed
        /// This address used its handshakes.
        case addressLimited
        /// Addresses not known as a paired laptop's used the shared handshakes.
        case sharedLimited
    }

    public let limits: HandshakeLimits
    private var buckets: [String: TokenBucket] = [:]
    private var shared: TokenBucket
    /// Address → when a paired laptop last proved itself from it.
    private var trusted: [String: Double] = [:]
    private var remembered: Set<[UInt8]> = []
    private var rememberedOrder: [[UInt8]] = []
    private var nextToForget = 0
    /// Verdicts given, by kind.
    public private(set) var counts: [Verdict: Int] = [:]

    public init(limits: HandshakeLimits = .init(), now: Double) {
        self.limits = limits
        shared = TokenBucket(burst: limits.sharedBurst, perSecond: limits.sharedPerSecond, now: now)
    }

    /// The part of an IK message 1 that makes it unique: the laptop's ephemeral key.
    public static func replayKey(connectMessage: [UInt8]) -> [UInt8]? {
        connectMessage.count >= NoiseKeyPair.keyLength ? Array(connectMessage.prefix(NoiseKeyPair.keyLength)) : nil
    }

    /// Whether the band may do the key work of a handshake's first message (`kind`: pair or
    /// connect; `message`: its payload) from `address` now; a token is spent if so.
    public mutating func admit(address: String, kind: FrameKind, message: [UInt8], now: Double) -> Verdict {
        let verdict = decide(address: address, connectMessage: kind == .connect ? message : nil, now: now)
        counts[verdict, default: 0] += 1
        return verdict
    }

    /// `admit`, as the refusal to send (nil: go on).
    public mutating func refusal(address: String, kind: FrameKind, message: [UInt8], now: Double) -> Refusal? {
        refusal(for: admit(address: address, kind: kind, message: message, now: now), address: address)
    }

    private mutating func decide(address: String, connectMessage: [UInt8]?, now: Double) -> Verdict {
        if let key = connectMessage.flatMap(Self.replayKey), remembered.contains(key) { return .replayed }
        var bucket = buckets[address] ?? TokenBucket(burst: limits.addressBurst, perSecond: limits.addressPerSecond, now: now)
        guard bucket.canTake(now: now) else { return .addressLimited }
        if trusted[address] == nil {
            guard shared.take(now: now) else { return .sharedLimited }
        }
        _ = bucket.take(now: now)
        if buckets[address] == nil { makeRoomForAnAddress(now: now) }
        buckets[address] = bucket
        return .admitted
    }

    private mutating func makeRoomForAnAddress(now: Double) {
        guard buckets.count >= limits.addressesTracked else { return }
        if let full = buckets.first(where: { $0.value.tokens(now: now) >= $0.value.burst }) {
            buckets[full.key] = nil
        } else if let fullest = buckets.max(by: { $0.value.tokens(now: now) < $1.value.tokens(now: now) }) {
            buckets[fullest.key] = nil
        }
    }

    /// A paired laptop's IK message 1 was read: the same bytes again are a replay.
    public mutating func remember(connectMessage: [UInt8]) {
        guard let key = Self.replayKey(connectMessage: connectMessage), !remembered.contains(key), limits.rememberedHandshakes > 0 else { return }
        if rememberedOrder.count < limits.rememberedHandshakes {
            rememberedOrder.append(key)
        } else {
            remembered.remove(rememberedOrder[nextToForget])
            rememberedOrder[nextToForget] = key
            nextToForget = (nextToForget + 1) % limits.rememberedHandshakes
        }
        remembered.insert(key)
    }

    /// A paired laptop proved itself (a request of its opened) on a connection from `address`:
    /// its next handshakes from there do not wait for the shared bucket.
    public mutating func trust(address: String, now: Double) {
        if trusted[address] == nil, trusted.count >= limits.trustedAddresses,
           let oldest = trusted.min(by: { $0.value < $1.value }) {
            trusted[oldest.key] = nil
        }
        trusted[address] = now
    }

    /// What it holds now: addresses with a bucket, addresses trusted, messages remembered
    /// (bounded by `limits`).
    public var sizes: (addresses: Int, trusted: Int, remembered: Int) { (buckets.count, trusted.count, remembered.count) }

    /// The refusal for a verdict other than `admitted`.
    public func refusal(for verdict: Verdict, address: String) -> Refusal? {
        switch verdict {
        case .admitted:
            return nil
        case .replayed:
            return Refusal(code: .handshakeFailed, message: "this handshake was used before (a recording replayed)")
        case .addressLimited:
            return Refusal(code: .busy, message: "too many handshakes from \(address): \(limits.addressBurst) at once, then \(Self.rate(limits.addressPerSecond)); try again in a few seconds")
        case .sharedLimited:
            return Refusal(code: .busy, message: "too many handshakes from new addresses: \(limits.sharedBurst) at once, then \(Self.rate(limits.sharedPerSecond)); try again in a few seconds")
        }
    }

    private static func rate(_ perSecond: Double) -> String {
        perSecond >= 1 ? "\(Int(perSecond)) a second" : "one every \(Int((1 / perSecond).rounded())) s"
    }
}
