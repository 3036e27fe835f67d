import AmbleModel
import AmbleHardware

/// Why the laptop's side of the link stopped.
public enum SyncError: Error, Equatable, CustomStringConvertible {
    /// Nothing usable came back within the time allowed, even after asking again.
    case timedOut(peer: String, seconds: Double)
    case closed(peer: String)
    /// The band refused, in clear (before or instead of the secure channel).
    case refused(peer: String, Refusal)
    /// The band answered a request with a failure.
    case failed(peer: String, code: SyncMessage.FailureCode, message: String)
    /// The band's answer was not what the request asks for, or could not be read.
    case unexpected(peer: String, detail: String)
    /// The secure channel or the handshake failed: keys differ, or bytes were altered.
    case insecure(peer: String, detail: String)
    case stream(StreamError)
    /// The person asked the laptop to stop (`CompanionLink.isInterrupted`: Ctrl-C, SIGTERM).
    case interrupted(peer: String)

    public var description: String {
        switch self {
        case .timedOut(let peer, let seconds): return "\(peer): no answer within \(Int(seconds)) s"
        case .closed(let peer): return "\(peer): the band closed the connection"
        case .refused(let peer, let refusal): return "\(peer): the band refused: \(printableText(refusal.description, maximum: 200))"
        case .failed(let peer, let code, let message): return "\(peer): \(printableText(message, maximum: 200)) (\(code.name))"
        case .unexpected(let peer, let detail): return "\(peer): \(detail)"
        case .insecure(let peer, let detail): return "\(peer): \(detail)"
        case .stream(let error): return error.description
        case .interrupted(let peer): return "\(peer): stopped on request"
        }
    }
}

/// What the laptop learns from pairing: the band, and the key it will be known by.
public struct PairedBandKey: Equatable, Sendable {
    public var bandID: String
    public var bandName: String
    public var bandPublicKey: [UInt8]
}

/// What the wearer is asked during pairing.
public struct PairingOffer: Sendable {
    public var method: PairingMethod
    public var codes: PairingCodes
    public var bandName: String

    /// Whether digits typed by the wearer are the band's passkey (spaces ignored).
    public func passkeyMatches(_ typed: String) -> Bool {
        typed.filter { !$0.isWhitespace } == codes.passkeyDigits
    }
}

/// The laptop's side of the link over any `ByteStream`: blocking, one request at a time.
///
/// Each request gets a number; the band answers with it. A damaged answer (its CRC fails) or
/// silence for `resendSeconds` makes the link send the very same sealed request again, and
/// the band answers it with the very same frame, so a damaged frame costs a resend, not the
/// sync. Time is read through `clock` (monotonic seconds).
public final class CompanionLink {
    public let stream: any ByteStream
    public let laptopKeyPair: NoiseKeyPair
    /// How long a request may go without any byte arriving before the sync gives up.
    public var timeoutSeconds: Double
    /// Silence after which a request is sent again.
    public var resendSeconds: Double
    /// Most times one request is sent again.
    public var maximumResends = 6
    /// Asked at least every 0.05 s while the link waits for the band: true ends the wait with
    /// `SyncError.interrupted` (the person pressed Ctrl-C), so the caller can keep what came
    /// and say goodbye.
    public var isInterrupted: () -> Bool = { false }
    private let clock: any BandClock
    private var decoder = FrameDecoder()
    private var channel: SecureChannel?
    private var nextNumber: UInt32 = 1
    /// Requests sent again (after damage or silence), for the summary and tests.
    public private(set) var resentRequests = 0
    public private(set) var discardedBytes = 0
    /// Bytes read and written on the link.
    public private(set) var bytesIn = 0
    public private(set) var bytesOut = 0

    public var peer: String { stream.peerName }

    public init(stream: any ByteStream, laptopKeyPair: NoiseKeyPair, clock: any BandClock, timeoutSeconds: Double = 15, resendSeconds: Double = 3) {
        self.stream = stream
        self.laptopKeyPair = laptopKeyPair
        self.clock = clock
        self.timeoutSeconds = timeoutSeconds
        self.resendSeconds = resendSeconds
    }

    // MARK: Handshakes

    /// Connects to a paired band (Noise IK with its stored key). After this, `request` works.
    public func connect(bandPublicKey: [UInt8]) throws(SyncError) {
        var handshake: NoiseHandshakeState
        let first: [UInt8]
        do {
            handshake = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                                localStaticKey: laptopKeyPair, remoteStaticKey: bandPublicKey)
            first = try handshake.writeMessage(payload: []).message
        } catch {
            throw SyncError.insecure(peer: peer, detail: "cannot start the handshake: \(error); is the stored band key damaged? pair again")
        }
        try send(Framing.frame(.connect, first))
        let reply = try awaitFrame(.connect, resend: nil)
        do {
            guard let transport = try handshake.readMessage(reply).transport else {
                throw NoiseError.wrongState("the handshake did not complete")
            }
            channel = SecureChannel(transport)
        } catch {
            throw SyncError.insecure(peer: peer, detail: "handshake failed (\(error)): this is not the band paired under that key; pair again")
        }
    }

    /// Pairs with a band in pairing mode (Noise XX, then the codes). `confirm` shows the offer
    /// to the wearer and returns whether the codes agree (numeric comparison: the wearer says
    /// so; passkey: the typed digits matched); `waiting` is called while the band waits for the
    /// wearer's press. Returns the band's identity and key once both sides said yes.
    public func pair(laptopName: String, pairingSeconds: Double = 180,
                     confirm: (PairingOffer) throws -> Bool, waiting: () -> Void = {}) throws -> PairedBandKey {
        var handshake = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: laptopKeyPair)
        try send(Framing.frame(.pair, try handshake.writeMessage(payload: []).message))
        let second = try handshake.readMessage(try awaitFrame(.pair, resend: nil))
        guard second.payload.count == PairingCodes.nonceLength + 1, let method = PairingMethod(rawValue: second.payload[PairingCodes.nonceLength]) else {
            throw SyncError.unexpected(peer: peer, detail: "the band's pairing message is not one this amble reads; update the older side")
        }
        let commitment = Array(second.payload.prefix(PairingCodes.nonceLength))
        let nonce = PairingCodes.makeNonce()
        var third = BinaryWriter()
        third.raw(nonce)
        third.string(laptopName.prefixOfUTF8(SyncMessage.maximumNameLength))
        let written = try handshake.writeMessage(payload: third.bytes)
        try send(Framing.frame(.pair, written.message))
        guard let transport = written.transport, let bandKey = handshake.remoteStaticKey else {
            throw SyncError.insecure(peer: peer, detail: "the pairing handshake did not complete")
        }
        channel = SecureChannel(transport)
        guard case .pairingReveal(let bandNonce, let revealedID, let revealedName) = try receive(number: 0, resend: nil) else {
            throw SyncError.unexpected(peer: peer, detail: "the band did not reveal its pairing nonce")
        }
        let (bandID, bandName) = try checkedIdentity(id: revealedID, name: revealedName)
        let codes: PairingCodes
        do {
            codes = try PairingCodes(handshakeHash: transport.handshakeHash, initiatorNonce: nonce, responderNonce: bandNonce, responderCommitment: commitment)
        } catch {
            throw SyncError.insecure(peer: peer, detail: "the band revealed another nonce than it committed to: something sits between laptop and band; pairing stopped")
        }
        let accepted = try confirm(PairingOffer(method: method, codes: codes, bandName: bandName))
        var state = try pairingState(.pairingVerdict(accepted: accepted))
        let deadline = clock.nowSeconds + pairingSeconds
        while state == .awaitingWearer && clock.nowSeconds < deadline {
            waiting()
            sleepBriefly(0.5)
            state = try pairingState(.pairingStatus)
        }
        switch state {
        case .paired: return PairedBandKey(bandID: bandID, bandName: bandName, bandPublicKey: bandKey)
        case .declined, .awaitingWearer:
            throw SyncError.failed(peer: peer, code: .notPaired, message: accepted
                ? "the band did not confirm: the wearer pressed back, or did not press select in time"
                : "the codes did not match: nothing was paired (try again; if they differ again, something may sit between laptop and band)")
        }
    }

    private func pairingState(_ question: SyncMessage) throws(SyncError) -> SyncMessage.PairingState {
        guard case .pairingState(let state) = try request(question) else {
            throw SyncError.unexpected(peer: peer, detail: "the band answered the pairing with something else")
        }
        return state
    }

    // MARK: Requests

    /// What the band said to `hello`.
    public struct Welcome: Equatable, Sendable {
        public var version: Int
        public var bandID: String
        public var bandName: String
        public var bandUnixSeconds: Double
    }

    private var welcome: Welcome?

    /// Says hello (once per connection; the band answers nothing else before it) and checks
    /// the version the band chose. Returns the band's welcome.
    @discardableResult
    public func hello(clientName: String = "amble") throws(SyncError) -> Welcome {
        if let welcome { return welcome }
        guard case .welcome(let version, let id, let name, let unix) = try request(.hello(lowestVersion: SyncMessage.lowestVersion,
                                                                                         highestVersion: SyncMessage.highestVersion, client: clientName)) else {
            throw SyncError.unexpected(peer: peer, detail: "the band did not answer hello with welcome")
        }
        guard (SyncMessage.lowestVersion ... SyncMessage.highestVersion).contains(version) else {
            throw SyncError.unexpected(peer: peer, detail: "the band chose sync version \(version), this amble speaks \(SyncMessage.lowestVersion)...\(SyncMessage.highestVersion): update the older side")
        }
        let (bandID, bandName) = try checkedIdentity(id: id, name: name)
        let greeted = Welcome(version: version, bandID: bandID, bandName: bandName, bandUnixSeconds: unix)
        welcome = greeted
        return greeted
    }

    /// Pauses between tries when a paired band says it is busy: 3.7 to 5.6 s in all, jittered.
    ///
    /// A band takes a few laptops at once and pushes out connections that have not said who
    /// they are when newer ones arrive. A paired laptop whose first message was a little late
    /// (a loaded laptop, a flood of strangers on the band's port) is told "busy" although a
    /// moment later it would get in, so it tries again before it tells the person.
    public static let busyRetryPauses: [Double] = [0.2, 0.5, 1, 2]

    /// Opens a link with `open`, connects to the paired band with `bandPublicKey` and says
    /// hello. While the band answers "busy", closes and opens again after each of `pauses`
    /// (each lengthened by up to half, so laptops turned away together do not come back
    /// together); any other error ends it at once. `pause` sleeps that many seconds (and may
    /// end early when `isInterrupted`, which each link also asks while it waits).
    public static func connectToPairedBand(open: () throws -> any ByteStream, laptopKeyPair: NoiseKeyPair, bandPublicKey: [UInt8],
                                           clock: any BandClock, timeoutSeconds: Double,
                                           pauses: [Double] = CompanionLink.busyRetryPauses,
                                           isInterrupted: @escaping () -> Bool = { false },
                                           pause: (Double) -> Void) throws -> CompanionLink {
        var pausesLeft = pauses[...]
        while true {
            let link = CompanionLink(stream: try open(), laptopKeyPair: laptopKeyPair, clock: clock, timeoutSeconds: timeoutSeconds)
            link.isInterrupted = isInterrupted
            do {
                try link.connect(bandPublicKey: bandPublicKey)
                try link.hello()
                return link
            } catch .refused(_, let refusal) where refusal.code == .busy && !pausesLeft.isEmpty {
                link.stream.close()
                pause(pausesLeft.removeFirst() * Double.random(in: 1 ... 1.5))
                if isInterrupted() { throw SyncError.interrupted(peer: link.peer) }
            } catch {
                link.stream.close()
                throw error
            }
        }
    }

    /// The band's id and name as the laptop keeps and prints them: an id of letters, digits
    /// and `-` only (a band makes a UUID), a name without control characters.
    private func checkedIdentity(id: String, name: String) throws(SyncError) -> (id: String, name: String) {
        guard !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }) else {
            throw SyncError.unexpected(peer: peer, detail: "the band's id \"\(printableText(id, maximum: 40))\" is not one Amble makes (letters, digits and -)")
        }
        let shown = printableText(name, maximum: SyncMessage.maximumNameLength)
        return (id, shown.isEmpty ? "unnamed band" : shown)
    }

    /// Sends a request and returns the band's answer; a `failure` answer is thrown as `.failed`.
    public func request(_ message: SyncMessage) throws(SyncError) -> SyncMessage {
        guard var sealer = channel else { throw SyncError.unexpected(peer: peer, detail: "connect first") }
        let number = nextNumber
        nextNumber &+= 1
        let frame: [UInt8]
        do {
            frame = Framing.frame(.secure, try sealer.seal(message.encoded(number: number)))
        } catch {
            throw SyncError.insecure(peer: peer, detail: "\(error)")
        }
        channel = sealer
        try send(frame)
        let answer = try receive(number: number, resend: frame)
        if case .failure(let code, let text) = answer {
            throw SyncError.failed(peer: peer, code: code, message: text)
        }
        return answer
    }

    /// Says goodbye in clear so the band frees the connection at once, and closes the stream
    /// (unless `keepingStream`: a serial line stays open for the next connection).
    public func close(keepingStream: Bool = false) {
        _ = try? stream.writeAvailable(Refusal(code: .badRequest, message: "goodbye").frame[...])
        channel = nil
        welcome = nil
        if !keepingStream { stream.close() }
    }

    // MARK: Receiving

    /// Waits for the sealed answer numbered `number`, sending `resend` again after damage or
    /// silence. Answers with other numbers (an earlier answer sent twice) are passed over.
    private func receive(number: UInt32, resend: [UInt8]?) throws(SyncError) -> SyncMessage {
        while true {
            let sealed = try awaitFrame(.secure, resend: resend)
            guard var opener = channel else { throw SyncError.unexpected(peer: peer, detail: "no secure channel") }
            let plain: [UInt8]
            do {
                plain = try opener.open(sealed)
            } catch .replayed {
                continue   // the same answer again, after a resend crossed it
            } catch {
                throw SyncError.insecure(peer: peer, detail: "an answer failed its check (\(error)): the link was tampered with")
            }
            channel = opener
            let decoded: (number: UInt32, message: SyncMessage)
            do {
                decoded = try SyncMessage.decode(plain)
            } catch {
                throw SyncError.unexpected(peer: peer, detail: "the band's answer cannot be read (\(error)); update the older side")
            }
            if decoded.number == number { return decoded.message }
        }
    }

    /// Reads until a frame of `kind` arrives; a refusal is thrown. With `resend`, damage or
    /// `resendSeconds` of silence sends those bytes again (at most `maximumResends` times).
    private func awaitFrame(_ kind: FrameKind, resend: [UInt8]?) throws(SyncError) -> [UInt8] {
        var lastByteAt = clock.nowSeconds
        var lastSentAt = lastByteAt
        var resends = 0
        func again() throws(SyncError) {
            guard let resend, resends < maximumResends else { return }
            resends += 1
            resentRequests += 1
            lastSentAt = clock.nowSeconds
            try send(resend)
        }
        while true {
            if isInterrupted() { throw SyncError.interrupted(peer: peer) }
            while let event = decoder.next() {
                switch event {
                case .frame(let k, let payload):
                    if k == kind.rawValue { return payload }
                    if k == FrameKind.refusal.rawValue { throw SyncError.refused(peer: peer, Refusal(payload: payload)) }
                case .discarded(let count, let reason):
                    discardedBytes += count
                    if reason == .damaged { try again() }
                case .unsupportedVersion(let version):
                    throw SyncError.unexpected(peer: peer, detail: "the band speaks frame version \(version), this amble \(Framing.version): update the older side")
                }
            }
            let bytes: [UInt8]?
            do {
                bytes = try stream.read(maxCount: min(decoder.freeCapacity, 65536), timeoutSeconds: 0.05)
            } catch {
                throw SyncError.stream(error)
            }
            guard let bytes else { throw SyncError.closed(peer: peer) }
            let now = clock.nowSeconds
            if bytes.isEmpty {
                if now - lastByteAt >= timeoutSeconds { throw SyncError.timedOut(peer: peer, seconds: timeoutSeconds) }
                if resend != nil && now - max(lastByteAt, lastSentAt) >= resendSeconds {
                    guard resends < maximumResends else { throw SyncError.timedOut(peer: peer, seconds: now - lastByteAt) }
                    try again()
                }
                continue
            }
            bytesIn += bytes.count
            lastByteAt = now
            discardedBytes += decoder.append(bytes)
        }
    }

    private func send(_ bytes: [UInt8]) throws(SyncError) {
        do {
            try stream.write(bytes)
            bytesOut += bytes.count
        } catch {
            throw SyncError.stream(error)
        }
    }

    private func sleepBriefly(_ seconds: Double) {
        _ = try? stream.read(maxCount: 0, timeoutSeconds: 0)
        let until = clock.nowSeconds + seconds
        while clock.nowSeconds < until && !isInterrupted() {
            // Keep reading so nothing piles up; answers only come to requests, so this is idle.
            guard let bytes = try? stream.read(maxCount: min(decoder.freeCapacity, 4096), timeoutSeconds: min(0.1, until - clock.nowSeconds)) else { return }
            if !bytes.isEmpty { discardedBytes += decoder.append(bytes) }
        }
    }
}
