/// How the band asks its wearer to confirm a pairing.
public enum PairingMethod: UInt8, Equatable, Sendable {
    /// The band shows a 6-digit code; the laptop shows the same; the wearer presses select.
    case comparison = 1
    /// The band buzzes a 4-digit code; the wearer types it into `amble pair`, then presses select.
    case passkey = 2
}

/// What the band's side of the link asks of the band: its keys, who is paired, the wearer's
/// part in a pairing, and the answers to a paired laptop's requests. The band implements it
/// where the store, the link and the menu meet (AmbleBand).
public protocol BandLinkHost: AnyObject {
    /// The band's static key pair (its identity on the link).
    var staticKeyPair: NoiseKeyPair { get }
    /// The band's id and name.
    func bandIdentity() -> (id: String, name: String)
    /// Whether a laptop with this static public key is paired.
    func isPaired(laptopKey: [UInt8]) -> Bool
    /// How a pairing would be confirmed now, or nil when the band is not in pairing mode.
    func pairingMethod() -> PairingMethod?
    /// A laptop finished the pairing handshake on `connection`: the band shows or buzzes the
    /// codes and waits for the wearer.
    func pairingBegan(connection: Int, laptopKey: [UInt8], laptopName: String, codes: PairingCodes, method: PairingMethod)
    /// The laptop's side of the check (the wearer found the codes equal there, or not).
    func pairingVerdict(connection: Int, accepted: Bool) -> SyncMessage.PairingState
    /// How the pairing on `connection` stands.
    func pairingState(connection: Int) -> SyncMessage.PairingState
    /// The connection that was pairing is gone (closed, timed out).
    func pairingEnded(connection: Int)
    /// The answer to a paired laptop's request (never a pairing message).
    func answer(_ request: SyncMessage, laptopKey: [UInt8]) -> SyncMessage
    /// Asked before the key work of a handshake's first message on `connection` (`kind`: pair
    /// or connect; `message`: its payload) at `now`: nil to go on, else the refusal to send
    /// (too many handshakes, a replay). A refused handshake costs the band no key work.
    func admitHandshake(connection: Int, kind: FrameKind, message: [UInt8], now: Double) -> Refusal?
    /// The IK message 1 of a paired laptop was read on `connection`: the same message again is
    /// a recording replayed.
    func pairedLaptopConnected(connection: Int, message: [UInt8])
}

/// Time limits of one connection on the band, seconds.
public struct BandLinkLimits: Equatable, Sendable {
    /// From the first byte to a completed handshake.
    public var handshakeSeconds: Double = 10
    /// A connection that sends nothing at all is closed after this (nil: wait; a serial line
    /// is always there and speaks when a laptop is plugged in).
    public var silentSeconds: Double? = 10
    /// From a completed pairing handshake to the wearer's press.
    public var pairingSeconds: Double = 180
    /// A secure connection with no request for this long is closed.
    public var idleSeconds: Double = 60
    /// A frame that started arriving and stopped is dropped after this long (its bytes would
    /// otherwise hold the link). On a serial line at least twice the longest frame's time.
    public var partialFrameSeconds: Double = 5
    /// Whether the first message of a new handshake ends a connection past its own and starts
    /// a fresh one with it. On a serial line, where there is one connection and no hang-up: a
    /// laptop that went away without its goodbye (Ctrl-C, a crash) and connects again is let
    /// in at once. Anyone on the line can end a connection anyway (a bad frame does).
    public var handshakeStartsOver = false

    public init() {}

    /// Limits for a serial line at `baudRate` (10 bits a byte on the wire).
    public static func serial(baudRate: Int) -> BandLinkLimits {
        var limits = BandLinkLimits()
        limits.silentSeconds = nil
        limits.handshakeStartsOver = true
        let frameSeconds = Double(Framing.maximumFrameLength * 10) / Double(max(baudRate, 300))
        limits.partialFrameSeconds = max(limits.partialFrameSeconds, 2 * frameSeconds)
        return limits
    }
}

/// The band's side of one connection, as a state machine: bytes and the time in, bytes out.
/// No I/O: the owner reads from the link only while `wantsInput` (at most
/// `freeInputCapacity`), writes `output`, and calls `tick` now and then. So one request is in
/// flight at a time, the output holds one answer, and the memory a peer can make the band hold
/// is bounded by two frames in and one out, whatever it sends.
///
/// Nothing but the handshake is answered before it completes; an unpaired or wrongly keyed
/// peer, a bad frame or a timeout gets one refusal frame and the connection ends.
public final class BandLinkConnection {
    enum State {
        case awaitingHandshake
        case pairingHandshake(NoiseHandshakeState, bandNonce: [UInt8], method: PairingMethod)
        case pairing(SecureChannel, laptopKey: [UInt8])
        case secure(SecureChannel, laptopKey: [UInt8])
        /// A refusal or a goodbye is being written; then the connection ends.
        case closing
    }

    /// Both sides put this in the handshake hash; a peer of another protocol fails the handshake.
    public static let prologue = Array("Amble sync 2".utf8)

    public let id: Int
    private unowned let host: any BandLinkHost
    public let limits: BandLinkLimits
    private var state = State.awaitingHandshake
    private var decoder = FrameDecoder()
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private let openedAt: Double
    private var firstFrameAt: Double?
    /// When the handshake completed; the first request must follow within `handshakeSeconds`.
    private var secureSince: Double?
    /// A genuine request arrived: the peer holds a paired key (not a replayed handshake).
    private var hasSpoken = false
    /// `hello` came first, as it must.
    private var greeted = false
    private var pairingSince = 0.0
    private var lastRequestAt: Double
    private var partialSince: Double?
    /// The last request's sealed bytes and the frame that answered it: a request sent again
    /// (its answer was lost or damaged) gets the same frame again, byte for byte.
    private var lastRequest: [UInt8] = []
    private var lastAnswerFrame: [UInt8] = []
    /// Why the connection ended, for the band's log.
    public private(set) var endReason: String?
    /// A new handshake's first message that ended this connection, for the next one (a
    /// serial line: `BandLinkLimits.handshakeStartsOver`).
    private var carriedOver: [UInt8] = []
    /// Bytes skipped as noise or damaged frames.
    public private(set) var discardedBytes = 0
    /// Requests answered again from the last answer.
    public private(set) var resentAnswers = 0
    /// Handshake messages whose key work (X25519) this connection did: the cost a peer can
    /// make the band pay, which `BandLinkHost.admitHandshake` bounds.
    public private(set) var handshakeKeyWork = 0

    public init(id: Int, host: any BandLinkHost, limits: BandLinkLimits = .init(), now: Double) {
        self.id = id
        self.host = host
        self.limits = limits
        openedAt = now
        lastRequestAt = now
    }

    /// The laptop's static key once the handshake proved it.
    public var laptopKey: [UInt8]? {
        switch state {
        case .pairing(_, let key), .secure(_, let key): return key
        default: return nil
        }
    }

    public var isSecure: Bool {
        if case .secure = state { return true }
        return false
    }

    /// Whether the peer has not proved who it is yet: no handshake completed, or none of its
    /// requests opened (a recorded handshake replayed completes, but cannot go on).
    public var isUnproven: Bool {
        switch state {
        case .awaitingHandshake, .pairingHandshake: return true
        case .secure: return !hasSpoken
        default: return false
        }
    }

    /// When the connection opened, band seconds.
    public var openedSeconds: Double { openedAt }

    /// Bytes to write to the link, in order.
    public var output: ArraySlice<UInt8> { pending[pendingStart...] }

    /// The owner wrote `count` bytes of `output`.
    public func wrote(_ count: Int) {
        pendingStart = min(pending.count, pendingStart + count)
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 32 << 10)
            pendingStart = 0
        }
    }

    /// Whether the owner should read from the link: the last answer is written and the
    /// connection is not ending.
    public var wantsInput: Bool {
        if case .closing = state { return false }
        return pendingStart == pending.count && decoder.freeCapacity > 0
    }

    /// How many bytes the owner may read now.
    public var freeInputCapacity: Int { wantsInput ? decoder.freeCapacity : 0 }

    /// Whether the connection has ended (after `output` is written, the owner closes the link).
    public var isFinished: Bool {
        if case .closing = state { return true }
        return false
    }

    /// Takes bytes read from the link and answers what they complete.
    public func receive<Bytes: Collection>(_ bytes: Bytes, now: Double) where Bytes.Element == UInt8 {
        guard !isFinished else { return }
        discardedBytes += decoder.append(bytes)
        process(now: now)
    }

    /// Lets time pass: answers frames held while the last answer was written, and ends the
    /// connection when a limit is reached.
    public func tick(now: Double) {
        guard !isFinished else { return }
        process(now: now)
        guard !isFinished else { return }
        switch state {
        case .awaitingHandshake, .pairingHandshake:
            if let first = firstFrameAt {
                if now - first > limits.handshakeSeconds {
                    refuse(.timedOut, "no handshake within \(Int(limits.handshakeSeconds)) s")
                }
            } else if let silent = limits.silentSeconds, now - openedAt > silent {
                end("said nothing for \(Int(silent)) s")
            }
        case .pairing:
            if now - pairingSince > limits.pairingSeconds {
                refuse(.timedOut, "the wearer did not confirm the pairing within \(Int(limits.pairingSeconds)) s")
            }
        case .secure:
            if !hasSpoken, let since = secureSince, now - since > limits.handshakeSeconds {
                // A handshake replayed from a recording completes, but its sender cannot speak.
                refuse(.timedOut, "no request within \(Int(limits.handshakeSeconds)) s of the handshake")
            } else if now - lastRequestAt > limits.idleSeconds {
                refuse(.timedOut, "idle for \(Int(limits.idleSeconds)) s; connect again to sync")
            }
        case .closing:
            break
        }
        if let since = partialSince, now - since > limits.partialFrameSeconds, pendingStart == pending.count {
            discardedBytes += decoder.dropBuffered()
            partialSince = nil
        }
    }

    /// Ends the connection now (the band is stopping, or the wearer forgot the laptop).
    public func close(reason: String) {
        end(reason)
    }

    // MARK: Frames

    private func process(now: Double) {
        while !isFinished, pendingStart == pending.count, let event = decoder.next() {
            if firstFrameAt == nil, case .frame = event { firstFrameAt = now }
            switch event {
            case .frame(let kind, let payload):
                handle(kind: FrameKind(rawValue: kind), payload: payload, now: now)
            case .discarded(let count, _):
                discardedBytes += count
            case .unsupportedVersion(let version):
                if version == 1 {
                    // An amble from before pairing: answered in its own framing and words.
                    pending += Framing.versionOneFailure("this band speaks sync protocol 2 (paired and encrypted): update amble, then pair with amble pair")
                    end("refused a sync protocol 1 companion")
                } else {
                    refuse(.unsupportedVersion, "this band speaks frame version \(Framing.version), not \(version): update the older side")
                }
            }
        }
        partialSince = decoder.bufferedByteCount == 0 ? nil : (partialSince ?? now)
    }

    private func handle(kind: FrameKind?, payload: [UInt8], now: Double) {
        if let kind, startsOver(kind, payload) {
            carriedOver = Framing.frame(kind, payload)
            end("a new handshake on the line: the laptop started again")
            return
        }
        switch (state, kind) {
        case (.awaitingHandshake, .pair?):
            beginPairing(payload, now: now)
        case (.awaitingHandshake, .connect?):
            connect(payload, now: now)
        case (.pairingHandshake(var handshake, let nonce, let method), .pair?):
            finishPairingHandshake(&handshake, payload, bandNonce: nonce, method: method, now: now)
        case (.pairing(var channel, let key), .secure?):
            answerPairing(&channel, laptopKey: key, payload, now: now)
        case (.secure(var channel, let key), .secure?):
            answer(&channel, laptopKey: key, payload, now: now)
        case (_, .refusal?):
            end("the laptop gave up")
        case (.awaitingHandshake, _), (.pairingHandshake, _):
            refuse(.badRequest, "handshake first: nothing is answered before it completes")
        default:
            refuse(.badRequest, "a frame of kind \(kind.map { "\($0)" } ?? "unknown") does not belong here")
        }
    }

    /// XX message 1 as the laptop sends it: its ephemeral key and an empty payload. Message 3
    /// is longer (an encrypted key, a nonce, a name and two tags).
    static let pairingFirstMessageLength = 32

    /// Whether a frame is the first message of a new handshake on a connection past its own,
    /// where `limits.handshakeStartsOver` lets it begin again.
    private func startsOver(_ kind: FrameKind, _ payload: [UInt8]) -> Bool {
        guard limits.handshakeStartsOver else { return false }
        switch (state, kind) {
        case (.awaitingHandshake, _), (.closing, _): return false
        case (.pairingHandshake, .pair): return payload.count == Self.pairingFirstMessageLength
        case (_, .pair), (_, .connect): return true
        default: return false
        }
    }

    private func beginPairing(_ message: [UInt8], now: Double) {
        guard let method = host.pairingMethod() else {
            refuse(.notInPairingMode, "the band is not in pairing mode: choose Pair laptop in its menu, then run amble pair again")
            return
        }
        if let refusal = host.admitHandshake(connection: id, kind: .pair, message: message, now: now) {
            refuse(refusal.code, refusal.message)
            return
        }
        handshakeKeyWork += 1
        do throws(NoiseError) {
            var handshake = try NoiseHandshakeState(pattern: .xx, role: .responder, prologue: Self.prologue, localStaticKey: host.staticKeyPair)
            _ = try handshake.readMessage(message)
            let nonce = PairingCodes.makeNonce()
            // Message 2 carries the commitment to the band's nonce and how it confirms codes.
            guard let commitment = try? PairingCodes.commitment(toResponderNonce: nonce) else {
                refuse(.internalError, "the band could not make its pairing commitment")
                return
            }
            let written = try handshake.writeMessage(payload: commitment + [method.rawValue])
            send(.pair, written.message)
            state = .pairingHandshake(handshake, bandNonce: nonce, method: method)
        } catch {
            refuse(.handshakeFailed, "pairing handshake failed: \(error)")
        }
    }

    private func finishPairingHandshake(_ handshake: inout NoiseHandshakeState, _ message: [UInt8], bandNonce: [UInt8], method: PairingMethod, now: Double) {
        handshakeKeyWork += 1
        do {
            let read = try handshake.readMessage(message)
            guard let transport = read.transport, let laptopKey = handshake.remoteStaticKey else {
                refuse(.handshakeFailed, "pairing handshake did not complete")
                return
            }
            // Message 3 carries the laptop's nonce and its name.
            var reader = BinaryReader(read.payload)
            let laptopNonce = try reader.raw(PairingCodes.nonceLength)
            let laptopName = try reader.string(limit: 64)
            try reader.finish()
            let codes = try PairingCodes(handshakeHash: transport.handshakeHash, initiatorNonce: laptopNonce, responderNonce: bandNonce)
            var channel = SecureChannel(transport)
            let identity = host.bandIdentity()
            try sendSealed(&channel, .pairingReveal(nonce: bandNonce, bandID: identity.id, bandName: identity.name), number: 0)
            state = .pairing(channel, laptopKey: laptopKey)
            pairingSince = now
            host.pairingBegan(connection: id, laptopKey: laptopKey, laptopName: laptopName, codes: codes, method: method)
        } catch {
            refuse(.handshakeFailed, "pairing handshake failed: \(error)")
        }
    }

    private func connect(_ message: [UInt8], now: Double) {
        if let refusal = host.admitHandshake(connection: id, kind: .connect, message: message, now: now) {
            refuse(refusal.code, refusal.message)
            return
        }
        handshakeKeyWork += 1
        do throws(NoiseError) {
            var handshake = try NoiseHandshakeState(pattern: .ik, role: .responder, prologue: Self.prologue, localStaticKey: host.staticKeyPair)
            _ = try handshake.readMessage(message)
            guard let laptopKey = handshake.remoteStaticKey, host.isPaired(laptopKey: laptopKey) else {
                refuse(.notPaired, "this laptop is not paired with the band: put the band in pairing mode and run amble pair")
                return
            }
            host.pairedLaptopConnected(connection: id, message: message)
            let written = try handshake.writeMessage(payload: [])
            guard let transport = written.transport else {
                refuse(.handshakeFailed, "handshake did not complete")
                return
            }
            send(.connect, written.message)
            state = .secure(SecureChannel(transport), laptopKey: laptopKey)
            lastRequestAt = now
            secureSince = now
        } catch .decryptionFailed {
            refuse(.handshakeFailed, "handshake failed: the laptop holds another key for this band (was it wiped or replaced?): pair again")
        } catch {
            refuse(.handshakeFailed, "handshake failed: \(error)")
        }
    }

    private func answerPairing(_ channel: inout SecureChannel, laptopKey: [UInt8], _ sealed: [UInt8], now: Double) {
        guard let (number, request) = open(&channel, sealed, now: now) else { return }
        let answer: SyncMessage
        switch request {
        case .pairingVerdict(let accepted): answer = .pairingState(host.pairingVerdict(connection: id, accepted: accepted))
        case .pairingStatus: answer = .pairingState(host.pairingState(connection: id))
        default: answer = .failure(code: .notPaired, message: "finish pairing first, then connect again")
        }
        reply(&channel, answer, number: number, request: sealed)
        state = .pairing(channel, laptopKey: laptopKey)
    }

    private func answer(_ channel: inout SecureChannel, laptopKey: [UInt8], _ sealed: [UInt8], now: Double) {
        // Whether the laptop is still paired is the host's to say with each answer (after a
        // wipe the laptop that asked for it still hears that it is done).
        guard let (number, request) = open(&channel, sealed, now: now) else { return }
        let answer: SyncMessage
        switch request {
        case .pairingVerdict, .pairingStatus:
            answer = .failure(code: .badRequest, message: "already paired")
        case .hello:
            greeted = true
            answer = host.answer(request, laptopKey: laptopKey)
        default:
            if !request.isRequest {
                answer = .failure(code: .badRequest, message: "that is an answer, not a request")
            } else if !greeted {
                answer = .failure(code: .badRequest, message: "say hello first: it settles the protocol version")
            } else {
                answer = host.answer(request, laptopKey: laptopKey)
            }
        }
        reply(&channel, answer, number: number, request: sealed)
        state = .secure(channel, laptopKey: laptopKey)
    }

    /// Opens a sealed request. A request sent again gets its answer again; a frame that fails
    /// its check ends the connection; a message this side cannot read gets a failure.
    private func open(_ channel: inout SecureChannel, _ sealed: [UInt8], now: Double) -> (UInt32, SyncMessage)? {
        if !lastRequest.isEmpty && sealed == lastRequest {
            resentAnswers += 1
            lastRequestAt = now
            pending += lastAnswerFrame
            return nil
        }
        let plain: [UInt8]
        do {
            plain = try channel.open(sealed)
        } catch {
            refuse(.badFrame, "\(error)")
            return nil
        }
        lastRequestAt = now
        hasSpoken = true
        do {
            let (number, message) = try SyncMessage.decode(plain)
            return (number, message)
        } catch {
            // The frame was genuine (it opened) but holds a message this band does not know.
            let number = (try? BinaryReader(plain).peekVarint()).map { UInt32(truncatingIfNeeded: $0) } ?? 0
            reply(&channel, .failure(code: .badRequest, message: "the band cannot read that request (\(error)); update the older side"),
                  number: number, request: sealed)
            return nil
        }
    }

    private func reply(_ channel: inout SecureChannel, _ answer: SyncMessage, number: UInt32, request: [UInt8]) {
        let before = pending.count
        do {
            try sendSealed(&channel, answer, number: number)
        } catch {
            refuse(.internalError, "the band could not seal its answer: \(error)")
            return
        }
        lastRequest = request
        lastAnswerFrame = Array(pending[before...])
    }

    private func sendSealed(_ channel: inout SecureChannel, _ message: SyncMessage, number: UInt32) throws(SecureChannelError) {
        send(.secure, try channel.seal(message.encoded(number: number)))
    }

    private func send(_ kind: FrameKind, _ payload: [UInt8]) {
        pending += Framing.frame(kind, payload)
    }

    private func refuse(_ code: SyncMessage.FailureCode, _ message: String) {
        send(.refusal, Refusal(code: code, message: message).payload)
        end("refused (\(code.name)): \(message)")
    }

    private func end(_ reason: String) {
        if case .pairing = state { host.pairingEnded(connection: id) }
        state = .closing
        if endReason == nil { endReason = reason }
    }

    /// Bytes that arrived after the connection ended (on a serial line, the start of the next
    /// connection: a laptop that says goodbye, or starts a new handshake, and connects again at
    /// once). Taken once.
    public func takeUnreadInput() -> [UInt8] {
        var bytes = carriedOver
        carriedOver = []
        while let event = decoder.nextRaw() { bytes += event }
        return bytes
    }
}

extension BinaryReader {
    /// The varint at the start, without moving.
    func peekVarint() throws(CodingError) -> UInt64 {
        var copy = self
        return try copy.varint()
    }
}

/// A refusal frame's payload: `code (u8) | message (string)`.
public struct Refusal: Equatable, Sendable, CustomStringConvertible {
    public var code: SyncMessage.FailureCode
    public var message: String

    public init(code: SyncMessage.FailureCode, message: String) {
        self.code = code
        self.message = message
    }

    public init(payload: [UInt8]) {
        var r = BinaryReader(payload)
        let raw = (try? r.byte()) ?? SyncMessage.FailureCode.internalError.rawValue
        code = SyncMessage.FailureCode(rawValue: raw) ?? .internalError
        message = (try? r.string(limit: SyncMessage.maximumMessageLength)) ?? "(no reason given)"
    }

    public var payload: [UInt8] {
        var w = BinaryWriter()
        w.byte(code.rawValue)
        w.string(message.prefixOfUTF8(SyncMessage.maximumMessageLength))
        return w.bytes
    }

    /// The frame that says it.
    public var frame: [UInt8] { Framing.frame(.refusal, payload) }

    public var description: String { "\(message) (\(code.name))" }
}
