import AmbleStoreSupport
import AmbleBandStore
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleStateMachines
import AmbleSync
import Logging

/// The band's side of sync: serves paired laptops over TCP (a few at once) and a serial line
/// (reopened after a hang-up or an error), and pairs new ones with the wearer's hands.
///
/// Each connection is a `BandLinkConnection` (the protocol, pure); this class does the
/// non-blocking I/O around it and answers the requests from the band's store. Per pass of the
/// band's loop, each connection reads at most one frame's room and writes what the link takes,
/// so the link never holds the loop for long, and never holds more than a few frames of
/// memory per connection, whatever a peer sends. What the band must then do (ask the wearer,
/// move its date, apply a setting) comes back from the pass as `LinkEvent`s; the link holds no
/// reference to the band.
final class SyncService: BandLinkHost {
    /// TCP connections that have not completed a handshake yet. A new one beyond this pushes
    /// out the oldest (told "busy"), so peers that connect and say nothing cannot keep a paired
    /// laptop out: its handshake completes in one exchange, and then it has a slot of its own.
    static let maximumHandshaking = 4
    /// TCP connections in all; one more is told "busy" and closed.
    static let maximumConnections = 8
    /// New TCP connections taken per pass of the loop.
    static let acceptsPerPass = 4
    static let serialReopenSeconds = 5.0
    /// A connection that ended but whose peer does not read its last frame is closed after this.
    static let lingerSeconds = 2.0

    private struct Link {
        var connection: BandLinkConnection
        let stream: any ByteStream
        let isSerial: Bool
        var endedAt: Double?
        /// The stream failed or hung up (a serial line is then reopened).
        var failed = false
        /// A paired laptop proved itself on it, and the handshake limits know its address.
        var trusted = false
    }

    private struct Pairing {
        var laptopKey: [UInt8]
        var laptopName: String
        var laptop: Bool?
        var wearer: Bool?
        var resolved: SyncMessage.PairingState?
    }

    let store: BandStore
    /// The band's store keeper, shared with the band: a full store, the reserve, the store's condition.
    private let recorder: BandRecorder
    let staticKeyPair: NoiseKeyPair
    private let hasDisplay: Bool
    /// The band as it was at the start of this pass (its date moves when a laptop sets it).
    private var band = LinkBandState(unixSeconds: 0, isWearerBusy: false)
    /// What the band is to carry out, returned by the next `service(now:band:)`.
    private var events: [LinkEvent] = []
    private let listener: TCPListener?
    private let serialPath: String?
    private let serialBaudRate: Int
    private var links: [Link] = []
    private var serialReopenAt = 0.0
    private var acceptPausedUntil = 0.0
    private var nextConnectionID = 1
    private let logger: Logger
    private var now = 0.0
    /// Bounds the key work handshakes cost (docs/protocol.md, Handshake limits).
    private var gate: HandshakeGate
    /// Each connection's peer, as the handshake limits count it.
    private var connectionAddresses: [Int: String] = [:]
    /// Key work of the connections that ended, and the refusals not yet in the log.
    private var endedKeyWork = 0
    private var unloggedRefusals: [HandshakeGate.Verdict: Int] = [:]
    private var refusalsLoggedAt = -Double.infinity

    /// Pairing mode, opened and closed by the wearer's prompt.
    var isPairingModeOpen = false
    private var pairings: [Int: Pairing] = [:]
    private(set) var deleteAllState = SyncMessage.DeleteAllState.none
    private var deleteAllRequester: [UInt8]?
    /// The last session data read, for the chunks that follow.
    private var cachedData: (id: Int64, bytes: [UInt8])?
    /// Length and CRC-32 of session data a full store could not keep, once encoded for a list
    /// (the same rows give the same bytes): a list does not encode them again.
    private var unkeptSizes: [Int64: (length: Int, crc32: UInt32)] = [:]

    init(recorder: BandRecorder, staticKeyPair: NoiseKeyPair, hasDisplay: Bool, listener: TCPListener?, serialPath: String?,
         serialBaudRate: Int, serial: (any ByteStream)?, limits: HandshakeLimits = .init(), logger: Logger, now: Double) {
        self.recorder = recorder
        store = recorder.store
        self.staticKeyPair = staticKeyPair
        self.hasDisplay = hasDisplay
        self.listener = listener
        self.serialPath = serialPath
        self.serialBaudRate = serialBaudRate
        self.logger = logger
        self.now = now
        gate = HandshakeGate(limits: limits, now: now)
        if let serial { addLink(stream: serial, isSerial: true) }
    }

    /// Handshake messages whose key work the band did, over every connection so far.
    var handshakeKeyWork: Int { endedKeyWork + links.reduce(0) { $0 + $1.connection.handshakeKeyWork } }

    /// The handshake limits' verdicts so far, by kind.
    var handshakeVerdicts: [HandshakeGate.Verdict: Int] { gate.counts }

    var pollDescriptors: [Int32] {
        var descriptors = links.filter { $0.connection.wantsInput }.map(\.stream.pollDescriptor)
        if let listener { descriptors.append(listener.pollDescriptor) }
        return descriptors
    }

    /// Whether a connection still has bytes to write (the loop then comes back soon).
    var isSending: Bool { links.contains { !$0.connection.output.isEmpty } }

    /// Accepts new laptops, reads, answers and writes on every connection; `now` in the link's
    /// seconds, `band` as the band is now. Returns what the band is to carry out, in order (with
    /// what the wearer's answers settled since the last pass).
    func service(now: Double, band: LinkBandState) -> [LinkEvent] {
        self.now = now
        self.band = band
        defer { events.removeAll() }
        // Existing connections first: a laptop's handshake that has arrived completes before
        // newer connections may push handshaking ones out.
        for index in links.indices {
            serviceLink(index, now: now)
            if !links[index].trusted, links[index].connection.isSecure, !links[index].connection.isUnproven {
                // A request of a paired laptop opened: its address is a paired laptop's.
                gate.trust(address: links[index].stream.peerHost, now: now)
                links[index].trusted = true
            }
        }
        accept(now: now)
        logHandshakeRefusals(now: now)
        var kept: [Link] = []
        for var link in links {
            guard let ended = link.endedAt, link.failed || link.connection.output.isEmpty || now - ended > Self.lingerSeconds else {
                kept.append(link)
                continue
            }
            let reason = link.connection.endReason ?? "closed"
            if link.isSerial && !link.failed {
                // The line stays open; the next laptop starts a new connection on it.
                logger.info("serial link: \(reason); ready for the next connection")
                let unread = link.connection.takeUnreadInput()
                retire(link.connection)
                link.connection = makeConnection(stream: link.stream, serial: true)
                link.endedAt = nil
                link.trusted = false
                if !unread.isEmpty { link.connection.receive(unread, now: now) }
                kept.append(link)
            } else {
                if link.connection.laptopKey != nil || link.isSerial {
                    logger.info("\(link.isSerial ? "serial link" : "laptop") \(link.stream.peerName) disconnected: \(reason)")
                } else {
                    logger.debug("\(link.stream.peerName) disconnected before a handshake: \(reason)")
                }
                link.stream.close()
                retire(link.connection)
                if link.isSerial {
                    logger.warning("serial link \(link.stream.peerName) closed; reopening it every \(Int(Self.serialReopenSeconds)) s")
                    serialReopenAt = now + Self.serialReopenSeconds
                }
            }
        }
        links = kept
        reopenSerialIfDue(now: now)
        return events
    }

    func close() {
        let verdicts = gate.counts
        let refused = verdicts.filter { $0.key != .admitted }.values.reduce(0, +)
        if handshakeKeyWork > 0 || refused > 0 {
            let counts = "\(verdicts[.admitted] ?? 0) taken up (\(handshakeKeyWork) messages of key work), \(refused) refused unread "
                + "(\(verdicts[.replayed] ?? 0) replays, \(verdicts[.addressLimited] ?? 0) over an address's limit, \(verdicts[.sharedLimited] ?? 0) over the shared limit)"
            logger.info("handshakes: \(counts)")
        }
        for link in links {
            link.connection.close(reason: "the band is stopping")
            _ = try? link.stream.writeAvailable(link.connection.output)
            link.stream.close()
        }
        links.removeAll()
    }

    // MARK: I/O

    private func accept(now: Double) {
        guard let listener, now >= acceptPausedUntil else { return }
        do {
            for _ in 0 ..< Self.acceptsPerPass {
                guard let stream = try listener.accept() else { break }
                let tcp = links.indices.filter { !links[$0].isSerial && links[$0].endedAt == nil }
                let handshaking = tcp.filter { links[$0].connection.isUnproven }
                if tcp.count >= Self.maximumConnections && handshaking.isEmpty {
                    refuseBusy(stream)
                    continue
                }
                // Pushed out first: the oldest that has not even completed a handshake. One whose
                // handshake proved a paired laptop's key (only its first request is missing) goes
                // only when every unproven one has; else a peer opening connections fast enough
                // would push out every paired laptop in the middle of its handshake.
                let bare = handshaking.filter { !links[$0].connection.isSecure }
                let candidates = bare.isEmpty ? handshaking : bare
                if handshaking.count >= Self.maximumHandshaking || tcp.count >= Self.maximumConnections,
                   let oldest = candidates.min(by: { links[$0].connection.openedSeconds < links[$1].connection.openedSeconds }) {
                    links[oldest].connection.close(reason: "pushed out by a newer connection while it had not said who it is")
                    _ = try? links[oldest].stream.writeAvailable(busyRefusal.frame[...])
                    links[oldest].endedAt = now
                    links[oldest].failed = true
                }
                logger.debug("laptop connected from \(stream.peerName)")
                addLink(stream: stream, isSerial: false)
            }
        } catch {
            // Out of descriptors or memory: say so once a second, not once a pass.
            logger.warning("accepting a laptop failed: \(error)")
            acceptPausedUntil = now + 1
        }
    }

    private var busyRefusal: Refusal {
        Refusal(code: .busy, message: "the band serves \(Self.maximumConnections) connections at once; try again in a minute")
    }

    private func refuseBusy(_ stream: any ByteStream) {
        _ = try? stream.writeAvailable(busyRefusal.frame[...])
        stream.close()
        logger.debug("refused \(stream.peerName): all \(Self.maximumConnections) connections are in use")
    }

    private func addLink(stream: any ByteStream, isSerial: Bool) {
        links.append(Link(connection: makeConnection(stream: stream, serial: isSerial), stream: stream, isSerial: isSerial))
    }

    private func makeConnection(stream: any ByteStream, serial: Bool) -> BandLinkConnection {
        defer { nextConnectionID += 1 }
        connectionAddresses[nextConnectionID] = stream.peerHost
        return BandLinkConnection(id: nextConnectionID, host: self, limits: serial ? .serial(baudRate: serialBaudRate) : .init(), now: now)
    }

    /// A connection that ended: its key work is counted, its address forgotten.
    private func retire(_ connection: BandLinkConnection) {
        endedKeyWork += connection.handshakeKeyWork
        connectionAddresses[connection.id] = nil
    }

    /// Refused handshakes in the log: at most a line a minute, so a flood does not fill it.
    private func logHandshakeRefusals(now: Double) {
        guard !unloggedRefusals.isEmpty, now - refusalsLoggedAt >= 60 else { return }
        let words: [(HandshakeGate.Verdict, String)] = [(.replayed, "replays"), (.addressLimited, "over an address's limit"), (.sharedLimited, "over the shared limit")]
        let parts = words.compactMap { verdict, word in unloggedRefusals[verdict].map { "\($0) \(word)" } }
        logger.notice("refused handshakes without key work: \(parts.joined(separator: ", ")) (docs/protocol.md, Handshake limits)")
        unloggedRefusals = [:]
        refusalsLoggedAt = now
    }

    private func serviceLink(_ index: Int, now: Double) {
        let link = links[index]
        let connection = link.connection
        do {
            if link.endedAt == nil, connection.wantsInput {
                guard let bytes = try link.stream.read(maxCount: min(connection.freeInputCapacity, Framing.maximumFrameLength), timeoutSeconds: 0) else {
                    connection.close(reason: link.isSerial ? "the serial line hung up" : "the laptop closed the connection")
                    links[index].endedAt = now
                    links[index].failed = true
                    return
                }
                if !bytes.isEmpty { connection.receive(bytes, now: now) }
            }
            connection.tick(now: now)
            if !connection.output.isEmpty {
                connection.wrote(try link.stream.writeAvailable(connection.output))
            }
            if connection.isFinished && links[index].endedAt == nil { links[index].endedAt = now }
        } catch {
            connection.close(reason: "\(error)")
            links[index].endedAt = now
            links[index].failed = true
        }
    }

    private func reopenSerialIfDue(now: Double) {
        guard let serialPath, !links.contains(where: \.isSerial), now >= serialReopenAt else { return }
        do {
            addLink(stream: try LinuxSerialPort(path: serialPath, baudRate: serialBaudRate), isSerial: true)
            logger.info("serial link \(serialPath) open again")
        } catch {
            serialReopenAt = now + Self.serialReopenSeconds
        }
    }

    /// Ends the secure connections of laptops no longer paired (the wearer forgot them, or the
    /// band was wiped), except `keeping`.
    func dropUnpairedConnections(keeping: [UInt8]? = nil) {
        for index in links.indices {
            guard let key = links[index].connection.laptopKey, key != keeping, links[index].connection.isSecure, !isPaired(laptopKey: key) else { continue }
            links[index].connection.close(reason: "the laptop is no longer paired")
        }
    }

    // MARK: BandLinkHost

    func bandIdentity() -> (id: String, name: String) {
        let identity = (try? store.identity(defaultName: "Amble band")) ?? BandIdentity(id: "unknown", name: "Amble band")
        return (identity.id, identity.name.prefixOfUTF8(SyncMessage.maximumNameLength))
    }

    func isPaired(laptopKey: [UInt8]) -> Bool {
        ((try? store.pairedLaptops()) ?? []).contains { $0.publicKey == laptopKey }
    }

    func admitHandshake(connection: Int, kind: FrameKind, message: [UInt8], now: Double) -> Refusal? {
        let address = connectionAddresses[connection] ?? "an unknown peer"
        let verdict = gate.admit(address: address, kind: kind, message: message, now: now)
        guard let refusal = gate.refusal(for: verdict, address: address) else { return nil }
        unloggedRefusals[verdict, default: 0] += 1
        logger.debug("\(address): handshake refused unread: \(refusal.message)")
        return refusal
    }

    func pairedLaptopConnected(connection: Int, message: [UInt8]) {
        gate.remember(connectMessage: message)
    }

    func pairingMethod() -> PairingMethod? {
        guard isPairingModeOpen, pairings.isEmpty else { return nil }
        return hasDisplay ? .comparison : .passkey
    }

    func pairingBegan(connection: Int, laptopKey: [UInt8], laptopName: String, codes: PairingCodes, method: PairingMethod) {
        pairings[connection] = Pairing(laptopKey: laptopKey, laptopName: laptopName)
        logger.notice("laptop \"\(laptopName)\" wants to pair; waiting for the wearer")
        events.append(.prompt(.confirmPairing(connection: connection, laptopName: laptopName,
                                              code: method == .comparison ? codes.comparisonDigits : nil,
                                              buzz: method == .passkey ? .passkey(codes.passkeyDigits) : nil)))
    }

    func pairingVerdict(connection: Int, accepted: Bool) -> SyncMessage.PairingState {
        guard pairings[connection] != nil else { return .declined }
        if pairings[connection]!.laptop == nil { pairings[connection]!.laptop = accepted }
        return resolve(connection, unixSeconds: band.unixSeconds)
    }

    func pairingState(connection: Int) -> SyncMessage.PairingState {
        pairings[connection] == nil ? .declined : resolve(connection, unixSeconds: band.unixSeconds)
    }

    func pairingEnded(connection: Int) {
        guard let pairing = pairings.removeValue(forKey: connection) else { return }
        if pairing.resolved == nil { events.append(.prompt(.pairingEnded(connection: connection))) }
    }

    /// The wearer's press on the pairing question, or no when it timed out on the band (a
    /// later no overrides an earlier yes while nothing is settled), at the band's date `unixSeconds`.
    func wearerAnswered(pairing connection: Int, accepted: Bool, unixSeconds: Double) {
        guard let pairing = pairings[connection], pairing.resolved == nil else { return }
        if pairing.wearer == nil || !accepted { pairings[connection]!.wearer = accepted }
        _ = resolve(connection, unixSeconds: unixSeconds)
    }

    /// Settles a pairing both sides answered (stored as paired at the band's date `unixSeconds`).
    private func resolve(_ connection: Int, unixSeconds: Double) -> SyncMessage.PairingState {
        guard let pairing = pairings[connection] else { return .declined }
        if let resolved = pairing.resolved { return resolved }
        let state: SyncMessage.PairingState
        if pairing.laptop == false || pairing.wearer == false {
            state = .declined
        } else if pairing.laptop == true && pairing.wearer == true {
            do {
                try store.addPairedLaptop(PairedLaptop(publicKey: pairing.laptopKey, name: pairing.laptopName, pairedUnixSeconds: unixSeconds))
                state = .paired
                logger.notice("paired with laptop \"\(pairing.laptopName)\"")
            } catch {
                logger.error("cannot store the paired laptop: \(error)")
                state = .declined
            }
        } else {
            return .awaitingWearer
        }
        pairings[connection]!.resolved = state
        events.append(.prompt(.pairingResolved(connection: connection, paired: state == .paired)))
        return state
    }

    /// The wearer's answer to a laptop's delete-all request (after the band wiped itself, if yes).
    func deleteAllAnswered(accepted: Bool) {
        guard deleteAllState == .awaitingWearer else { return }
        deleteAllState = accepted ? .done : .declined
        if accepted {
            cachedData = nil
            unkeptSizes = [:]
            dropUnpairedConnections(keeping: deleteAllRequester)
        }
    }

    func answer(_ request: SyncMessage, laptopKey: [UInt8]) -> SyncMessage {
        if case .deleteAll(.status) = request, laptopKey == deleteAllRequester {
            return .deleteAllState(deleteAllState)
        }
        guard isPaired(laptopKey: laptopKey) else {
            return .failure(code: .notPaired, message: "this laptop is no longer paired with the band: pair again")
        }
        do {
            return try answerPaired(request, laptopKey: laptopKey)
        } catch {
            logger.error("sync: the band's store failed: \(errorSentence(error))")
            return .failure(code: .internalError, message: "the band's store failed: \(errorSentence(error))")
        }
    }

    private func answerPaired(_ request: SyncMessage, laptopKey: [UInt8]) throws -> SyncMessage {
        switch request {
        case .hello(let lowest, let highest, _):
            let version = min(highest, SyncMessage.highestVersion)
            guard version >= max(lowest, SyncMessage.lowestVersion) else {
                return .failure(code: .unsupportedVersion, message: "this band speaks sync \(SyncMessage.lowestVersion)...\(SyncMessage.highestVersion), the laptop \(lowest)...\(highest): update the older side")
            }
            let identity = bandIdentity()
            return .welcome(version: version, bandID: identity.id, bandName: identity.name, bandUnixSeconds: band.unixSeconds)
        case .listSessions(let after):
            return try sessionList(afterID: after)
        case .getChunk(let id, let offset, let maximumLength):
            return chunk(sessionID: id, offset: offset, maximumLength: maximumLength)
        case .acknowledge(let id):
            return try acknowledge(sessionID: id)
        case .getSettings:
            // The wearer's settings and the laptop's own (never another laptop's).
            let shared = try store.settings().map { SyncMessage.SettingValue(key: $0.0.rawValue, value: $0.1) }
            return .settings(shared + (try store.laptopSettings(laptopKey: laptopKey).map { SyncMessage.SettingValue(key: $0.0.rawValue, value: $0.1) }))
        case .setSetting(let key, let value):
            if let setting = LaptopSetting(rawValue: key) {
                do {
                    let stored = try store.setLaptopSetting(setting, to: value, laptopKey: laptopKey)
                    events.append(.laptopSettingChanged(setting, value: stored))
                    return .settings([SyncMessage.SettingValue(key: key, value: stored)])
                } catch let error as LaptopSettingError {
                    return .failure(code: .badValue, message: error.description)
                }
            }
            guard let setting = BandSetting(rawValue: key) else {
                let keys = BandSetting.allCases.map(\.rawValue) + LaptopSetting.allCases.map(\.rawValue)
                return .failure(code: .badValue, message: "no setting \"\(key)\"; the band has \(keys.joined(separator: ", "))")
            }
            do {
                let stored = try store.set(setting, to: value)
                events.append(.settingChanged(setting, value: stored))
                return .settings([SyncMessage.SettingValue(key: key, value: stored)])
            } catch let error as BandSettingError {
                return .failure(code: .badValue, message: error.description)
            }
        case .setClock(let target):
            return setDate(toUnixSeconds: target)
        case .deleteAll(.request):
            if band.isWearerBusy {
                return .failure(code: .busy, message: "the band's wearer is busy (a walk, a calibration or another question); ask again when the band shows its menu")
            }
            if deleteAllState == .awaitingWearer {
                return .failure(code: .busy, message: "the band already asks its wearer about a wipe")
            }
            deleteAllState = .awaitingWearer
            deleteAllRequester = laptopKey
            events.append(.prompt(.confirmDeleteAll))
            return .deleteAllState(.awaitingWearer)
        case .deleteAll(.status):
            return .deleteAllState(laptopKey == deleteAllRequester ? deleteAllState : .none)
        case .getStorage:
            return .storage(recorder.condition, message: recorder.conditionText)
        case .getStatus:
            let open = try store.openSessions(limit: SyncMessage.maximumRecordingCount)
            return .status(recording: open.map {
                SyncMessage.RecordingEntry(id: $0.id, kind: $0.kind, startUnixSeconds: $0.startUnixSeconds, recordedSeconds: $0.recordedSeconds)
            })
        default:
            return .failure(code: .badRequest, message: "not a request this band answers")
        }
    }

    /// The finished sessions after `afterID`, as many as fit one frame, with their data's size.
    private func sessionList(afterID after: Int64) throws -> SyncMessage {
        let sessions = try store.finishedSessions(afterID: after, limit: SyncMessage.maximumListLength)
        var sizes = try store.sessionDataSizes(ids: sessions.map(\.id)).merging(unkeptSizes) { kept, _ in kept }
        for session in sessions where sizes[session.id] == nil {
            // Made before this build, closed by crash recovery, or not kept by a full store:
            // encoded now (and kept, when there is room). One whose rows cannot be read is
            // listed all the same: the laptop asks for it, hears why, and holds its place.
            do {
                guard let outcome = try SessionDataEncoding.encode(sessionID: session.id, in: store, logger: logger) else { continue }
                sizes[session.id] = (outcome.data.bytes.count, outcome.data.crc32)
                if outcome.storeFull {
                    unkeptSizes[session.id] = sizes[session.id]
                    recorder.storeFilled()
                }
            } catch {
                sizes[session.id] = SessionDataEncoding.unreadableListing
            }
        }
        // As many as fit one frame (a summary is about 100 bytes); `more` sends the laptop back.
        var entries: [SyncMessage.SessionEntry] = []
        var size = 16
        var more = sessions.count == SyncMessage.maximumListLength
        for session in sessions {
            guard let data = sizes[session.id] else { continue }
            let entry = SyncMessage.SessionEntry(id: session.id, summary: session.summary, dataLength: data.length,
                                                 dataCRC32: data.crc32, synced: session.syncedUnixSeconds != nil)
            let entrySize = SyncMessage.sessionList([entry], more: false).encoded(number: 0).count
            if size + entrySize > SyncMessage.maximumChunkLength && !entries.isEmpty {
                more = true
                break
            }
            entries.append(entry)
            size += entrySize
        }
        return .sessionList(entries, more: more)
    }

    /// A chunk of session `id`'s data.
    private func chunk(sessionID id: Int64, offset: Int, maximumLength: Int) -> SyncMessage {
        let bytes: [UInt8]
        if let cached = cachedData, cached.id == id {
            bytes = cached.bytes
        } else {
            // Checked against its CRC-32 before it is sent; encoded again when the card
            // changed it, or when a full store could not keep it.
            let outcome: SessionDataEncoding.Outcome?
            do {
                outcome = try SessionDataEncoding.checked(sessionID: id, in: store, logger: logger)
            } catch {
                return .failure(code: .internalError, message: error.description)
            }
            guard let outcome else {
                return .failure(code: .notFound, message: "no finished session \(id) on this band")
            }
            if outcome.storeFull { recorder.storeFilled() }
            if let listed = outcome.damagedCRC32, listed != outcome.data.crc32 {
                return .failure(code: .internalError, message: "session \(id)'s data had changed on the band's card and was encoded again: the next sync fetches it")
            }
            bytes = outcome.data.bytes
            cachedData = (id, bytes)
        }
        guard offset < bytes.count, maximumLength > 0 else {
            return .failure(code: .badRequest, message: "session \(id) has \(bytes.count) bytes; offset \(offset) is past them")
        }
        let end = min(bytes.count, offset + min(maximumLength, SyncMessage.maximumChunkLength))
        return .chunk(sessionID: id, offset: offset, totalLength: bytes.count, bytes: Array(bytes[offset ..< end]))
    }

    /// The laptop has session `id`: noted synced.
    private func acknowledge(sessionID id: Int64) throws -> SyncMessage {
        do {
            let marked = try recorder.usingReserve { try store.markSynced(id: id, atUnixSeconds: band.unixSeconds) }
            guard marked else {
                return .failure(code: .notFound, message: "no finished session \(id) on this band")
            }
        } catch where isStoreFullError(error) {
            // A card full to its last byte, its reserve spent, cannot take even this change.
            // The laptop has the session all the same: the band says yes, and lists it
            // unsynced until a later acknowledgement can be written (it is only removed once
            // that is).
            logger.notice("session \(id) is on a laptop, but the full store cannot note it synced yet")
            recorder.storeFilled()
        }
        return .acknowledged(sessionID: id)
    }

    /// A laptop gives the band's date: `clockSet` (how far it moved, the band moves it after the
    /// pass) or `bad-value` when the band refuses it (`LaptopDate`).
    private func setDate(toUnixSeconds target: Double) -> SyncMessage {
        let verdict = LaptopDate.check(laptopUnixSeconds: target, bandUnixSeconds: band.unixSeconds)
        if let refusal = LaptopDate.refusal(verdict) {
            logger.warning("a laptop's date was refused: \(refusal)")
            return .failure(code: .badValue, message: refusal)
        }
        let moved = target - band.unixSeconds
        band.unixSeconds = target
        events.append(.dateSet(movedBySeconds: moved, toUnixSeconds: target))
        return .clockSet(offsetSeconds: moved)
    }
}
