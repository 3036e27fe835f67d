import AmbleModel

/// Everything said on the sync link once it is secure, in both directions, with its binary
/// coding (docs/protocol.md, "Messages"). Each message travels in one encrypted frame as
/// `number (varint) | type (byte) | fields`: the laptop numbers its requests, the band answers
/// with the request's number, so an answer to a request asked again is recognised.
public enum SyncMessage: Equatable, Sendable {
    // Laptop -> band
    /// First request on a secure link: the versions the laptop speaks (lowest, highest) and
    /// its name.
    case hello(lowestVersion: Int, highestVersion: Int, client: String)
    /// Finished sessions with a band id above `afterID` (0: all), oldest first, at most 256.
    case listSessions(afterID: Int64)
    /// Up to `maximumLength` bytes of a session's data from `offset` (a cut sync resumes here).
    case getChunk(sessionID: Int64, offset: Int, maximumLength: Int)
    /// The laptop has committed the session: the band may mark it synced.
    case acknowledge(sessionID: Int64)
    case getSettings
    case setSetting(key: String, value: String)
    /// Sets the band's clock, seconds since 1970-01-01T00:00:00Z.
    case setClock(unixSeconds: Double)
    /// Step 1 asks the band to wipe everything (the wearer must confirm on the band); later
    /// calls ask how it stands.
    case deleteAll(DeleteAllStep)
    /// Since version 4: what the band is doing now (the session it is recording, if any).
    case getStatus
    /// Since version 5: how the band's store is (full, damaged).
    case getStorage
    /// Pairing only: whether the wearer found the codes equal on the laptop (numeric
    /// comparison answered yes, or the typed passkey matched).
    case pairingVerdict(accepted: Bool)
    /// Pairing only: how the pairing stands on the band.
    case pairingStatus

    // Band -> laptop
    case welcome(version: Int, bandID: String, bandName: String, bandUnixSeconds: Double)
    /// Finished sessions, oldest first; `more` says that sessions after the last one listed
    /// did not fit (ask again after it).
    case sessionList([SessionEntry], more: Bool)
    case chunk(sessionID: Int64, offset: Int, totalLength: Int, bytes: [UInt8])
    case acknowledged(sessionID: Int64)
    case settings([SettingValue])
    /// The band's clock moved by this many seconds.
    case clockSet(offsetSeconds: Double)
    case deleteAllState(DeleteAllState)
    /// Since version 4: the sessions the band is recording now (none, or one; a list so that
    /// a band recording two at once, which this build never does, can still say so).
    case status(recording: [RecordingEntry])
    /// Since version 5: how the band's store is, and what the band says about it (empty when
    /// it is sound).
    case storage(StoreCondition, message: String)
    /// Pairing only, the band's first sealed message (number 0): the nonce it committed to in
    /// the handshake, and who it is.
    case pairingReveal(nonce: [UInt8], bandID: String, bandName: String)
    case pairingState(PairingState)
    case failure(code: FailureCode, message: String)

    public enum DeleteAllStep: UInt8, Equatable, Sendable {
        case request = 1
        case status = 2
    }

    public enum DeleteAllState: UInt8, Equatable, Sendable {
        /// Nothing asked.
        case none = 0
        /// The band asks the wearer to confirm (select on the band; back declines).
        case awaitingWearer = 1
        /// The wearer declined, or did not confirm within two minutes.
        case declined = 2
        /// The band is wiped.
        case done = 3
    }

    public enum PairingState: UInt8, Equatable, Sendable {
        /// The band waits for the wearer's press (select: yes, back: no).
        case awaitingWearer = 1
        /// Both sides said yes: the band keeps the laptop's key.
        case paired = 2
        /// The wearer or the laptop said no, or the time ran out.
        case declined = 3
    }

    public struct SessionEntry: Equatable, Sendable {
        /// The band's id for the session.
        public var id: Int64
        public var summary: SessionSummary
        /// Length of its data (`SessionCoding`), bytes: what `getChunk` reads.
        public var dataLength: Int
        /// CRC-32 of its data: a resumed download is checked against it.
        public var dataCRC32: UInt32
        /// Already acknowledged by a laptop.
        public var synced: Bool

        public init(id: Int64, summary: SessionSummary, dataLength: Int, dataCRC32: UInt32, synced: Bool) {
            self.id = id
            self.summary = summary
            self.dataLength = dataLength
            self.dataCRC32 = dataCRC32
            self.synced = synced
        }
    }

    /// A session the band is still recording: not listed by `listSessions` until it ends.
    public struct RecordingEntry: Equatable, Sendable {
        /// The band's id for the session.
        public var id: Int64
        /// Its kind, as `SessionKind` spells it (kept as text so a newer kind still reads).
        public var kind: String
        public var startUnixSeconds: Double
        /// Seconds recorded so far.
        public var recordedSeconds: Int

        public init(id: Int64, kind: String, startUnixSeconds: Double, recordedSeconds: Int) {
            self.id = id
            self.kind = kind
            self.startUnixSeconds = startUnixSeconds
            self.recordedSeconds = recordedSeconds
        }
    }

    public struct SettingValue: Equatable, Sendable {
        public var key: String
        public var value: String
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    public enum FailureCode: UInt8, Equatable, Sendable {
        case unsupportedVersion = 1
        case notFound = 2
        case badRequest = 3
        case internalError = 4
        case badValue = 5
        case busy = 6
        case notPaired = 7
        case notInPairingMode = 8
        /// The handshake failed: the laptop holds another key for this band, or bytes were altered.
        case handshakeFailed = 9
        /// A sealed frame failed its check, was replayed or came out of order.
        case badFrame = 10
        /// The link waited too long (a handshake, a pairing, an idle connection).
        case timedOut = 11

        public var name: String {
            switch self {
            case .unsupportedVersion: return "unsupported-version"
            case .notFound: return "not-found"
            case .badRequest: return "bad-request"
            case .internalError: return "internal-error"
            case .badValue: return "bad-value"
            case .busy: return "busy"
            case .notPaired: return "not-paired"
            case .notInPairingMode: return "not-in-pairing-mode"
            case .handshakeFailed: return "handshake-failed"
            case .badFrame: return "bad-frame"
            case .timedOut: return "timed-out"
            }
        }
    }

    /// The versions of this message set this build speaks.
    /// Version 3 (Amble with pauses) carries the session summary of session data version 2;
    /// version 4 adds `getStatus` (the session being recorded), version 5 `getStorage` (the
    /// band's store full or damaged). An older peer is still served: the laptop asks for the
    /// status only when the band chose 4 or later, for the storage when it chose 5.
    public static let lowestVersion = 3
    public static let highestVersion = 5
    /// The lowest version with `getStatus`.
    public static let statusVersion = 4
    /// The lowest version with `getStorage`.
    public static let storageVersion = 5
    /// Most sessions in one `status` answer.
    public static let maximumRecordingCount = 8
    /// Largest chunk of session data in one answer, bytes (a frame stays under 16 KB).
    public static let maximumChunkLength = 12 << 10
    /// Most sessions in one list answer (fewer when their summaries would not fit a frame).
    public static let maximumListLength = 256
    /// Longest failure sentence sent, UTF-8 bytes (longer ones are cut).
    public static let maximumMessageLength = 400
    /// Longest band or laptop name, UTF-8 bytes.
    public static let maximumNameLength = 64

    var type: UInt8 {
        switch self {
        case .hello: return 0x01
        case .listSessions: return 0x02
        case .getChunk: return 0x03
        case .acknowledge: return 0x04
        case .getSettings: return 0x05
        case .setSetting: return 0x06
        case .setClock: return 0x07
        case .deleteAll: return 0x08
        case .getStatus: return 0x09
        case .getStorage: return 0x0A
        case .pairingVerdict: return 0x10
        case .pairingStatus: return 0x11
        case .welcome: return 0x81
        case .sessionList: return 0x82
        case .chunk: return 0x83
        case .acknowledged: return 0x84
        case .settings: return 0x85
        case .clockSet: return 0x87
        case .deleteAllState: return 0x88
        case .status: return 0x89
        case .storage: return 0x8A
        case .pairingReveal: return 0x90
        case .pairingState: return 0x91
        case .failure: return 0xFF
        }
    }

    /// Whether the laptop sends it (else the band does).
    public var isRequest: Bool { type < 0x80 }

    public func encoded(number: UInt32) -> [UInt8] {
        var w = BinaryWriter()
        w.varint(UInt64(number))
        w.byte(type)
        switch self {
        case .hello(let low, let high, let client):
            w.varint(low); w.varint(high); w.string(client)
        case .listSessions(let after):
            w.signed(after)
        case .getChunk(let id, let offset, let length):
            w.signed(id); w.varint(offset); w.varint(length)
        case .acknowledge(let id), .acknowledged(let id):
            w.signed(id)
        case .getSettings, .pairingStatus, .getStatus, .getStorage:
            break
        case .pairingVerdict(let accepted):
            w.bool(accepted)
        case .pairingReveal(let nonce, let id, let name):
            w.data(nonce); w.string(id); w.string(name)
        case .pairingState(let state):
            w.byte(state.rawValue)
        case .setSetting(let key, let value):
            w.string(key); w.string(value)
        case .setClock(let unix):
            w.double(unix)
        case .deleteAll(let step):
            w.byte(step.rawValue)
        case .welcome(let version, let id, let name, let unix):
            w.varint(version); w.string(id); w.string(name); w.double(unix)
        case .sessionList(let entries, let more):
            w.bool(more)
            w.varint(entries.count)
            for e in entries {
                w.signed(e.id); SessionCoding.writeSummary(e.summary, into: &w); w.varint(e.dataLength); w.uint32(e.dataCRC32); w.bool(e.synced)
            }
        case .chunk(let id, let offset, let total, let bytes):
            w.signed(id); w.varint(offset); w.varint(total); w.data(bytes)
        case .settings(let values):
            w.varint(values.count)
            for v in values { w.string(v.key); w.string(v.value) }
        case .clockSet(let offset):
            w.double(offset)
        case .deleteAllState(let state):
            w.byte(state.rawValue)
        case .status(let recording):
            w.varint(recording.count)
            for e in recording {
                w.signed(e.id); w.string(e.kind); w.double(e.startUnixSeconds); w.varint(e.recordedSeconds)
            }
        case .storage(let condition, let message):
            w.byte(condition.rawValue); w.string(message.prefixOfUTF8(Self.maximumMessageLength))
        case .failure(let code, let message):
            w.byte(code.rawValue); w.string(message.prefixOfUTF8(Self.maximumMessageLength))
        }
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(CodingError) -> (number: UInt32, message: SyncMessage) {
        var r = BinaryReader(bytes)
        let number = UInt32(try r.count(limit: Int(UInt32.max)))
        let type = try r.byte()
        let message: SyncMessage
        if let laptops = try decodeLaptopMessage(type, &r) {
            message = laptops
        } else if let bands = try decodeBandMessage(type, &r) {
            message = bands
        } else {
            throw .unknownType(type)
        }
        try r.finish()
        return (number, message)
    }

    /// A message the laptop sends (types 0x01-0x11); nil for any other type.
    private static func decodeLaptopMessage(_ type: UInt8, _ r: inout BinaryReader) throws(CodingError) -> SyncMessage? {
        switch type {
        case 0x01:
            return .hello(lowestVersion: try r.count(limit: 1000), highestVersion: try r.count(limit: 1000), client: try r.string(limit: 64))
        case 0x02:
            return .listSessions(afterID: try r.signed())
        case 0x03:
            return .getChunk(sessionID: try r.signed(), offset: try r.count(limit: SessionCoding.maximumRawLength),
                             maximumLength: try r.count(limit: maximumChunkLength))
        case 0x04:
            return .acknowledge(sessionID: try r.signed())
        case 0x05:
            return .getSettings
        case 0x06:
            return .setSetting(key: try r.string(limit: 64), value: try r.string(limit: 256))
        case 0x07:
            return .setClock(unixSeconds: try r.finiteDouble())
        case 0x08:
            guard let step = DeleteAllStep(rawValue: try r.byte()) else { throw .malformed("unknown delete-all step", at: r.position - 1) }
            return .deleteAll(step)
        case 0x09:
            return .getStatus
        case 0x0A:
            return .getStorage
        case 0x10:
            return .pairingVerdict(accepted: try r.bool())
        case 0x11:
            return .pairingStatus
        default:
            return nil
        }
    }

    /// A message the band sends (types 0x81-0x8A, 0x90, 0x91 and 0xFF); nil for any other type.
    private static func decodeBandMessage(_ type: UInt8, _ r: inout BinaryReader) throws(CodingError) -> SyncMessage? {
        switch type {
        case 0x90:
            return .pairingReveal(nonce: try r.data(limit: 64), bandID: try r.string(limit: 64), bandName: try r.string(limit: 64))
        case 0x91:
            guard let state = PairingState(rawValue: try r.byte()) else { throw .malformed("unknown pairing state", at: r.position - 1) }
            return .pairingState(state)
        case 0x81:
            return .welcome(version: try r.count(limit: 1000), bandID: try r.string(limit: 64), bandName: try r.string(limit: 64),
                            bandUnixSeconds: try r.finiteDouble())
        case 0x82:
            let more = try r.bool()
            let n = try r.count(limit: maximumListLength)
            var entries: [SessionEntry] = []
            entries.reserveCapacity(n)
            for _ in 0 ..< n {
                entries.append(SessionEntry(id: try r.signed(), summary: try SessionCoding.readSummary(&r),
                                            dataLength: try r.count(limit: SessionCoding.maximumRawLength), dataCRC32: try r.uint32(),
                                            synced: try r.bool()))
            }
            return .sessionList(entries, more: more)
        case 0x83:
            return .chunk(sessionID: try r.signed(), offset: try r.count(limit: SessionCoding.maximumRawLength),
                          totalLength: try r.count(limit: SessionCoding.maximumRawLength), bytes: try r.data(limit: maximumChunkLength))
        case 0x84:
            return .acknowledged(sessionID: try r.signed())
        case 0x85:
            let n = try r.count(limit: 64)
            var values: [SettingValue] = []
            for _ in 0 ..< n { values.append(SettingValue(key: try r.string(limit: 64), value: try r.string(limit: 256))) }
            return .settings(values)
        case 0x87:
            return .clockSet(offsetSeconds: try r.finiteDouble())
        case 0x88:
            guard let state = DeleteAllState(rawValue: try r.byte()) else { throw .malformed("unknown delete-all state", at: r.position - 1) }
            return .deleteAllState(state)
        case 0x89:
            let n = try r.count(limit: maximumRecordingCount)
            var recording: [RecordingEntry] = []
            for _ in 0 ..< n {
                recording.append(RecordingEntry(id: try r.signed(), kind: try r.string(limit: 32), startUnixSeconds: try r.finiteDouble(),
                                                recordedSeconds: try r.count(limit: 100 * 86_400)))
            }
            return .status(recording: recording)
        case 0x8A:
            guard let condition = StoreCondition(rawValue: try r.byte()) else { throw .malformed("unknown storage condition", at: r.position - 1) }
            return .storage(condition, message: try r.string(limit: maximumMessageLength))
        case 0xFF:
            let raw = try r.byte()
            return .failure(code: FailureCode(rawValue: raw) ?? .internalError, message: try r.string(limit: maximumMessageLength))
        default:
            return nil
        }
    }
}

extension String {
    /// The longest prefix of at most `maximumBytes` UTF-8 bytes that ends on a character.
    public func prefixOfUTF8(_ maximumBytes: Int) -> String {
        guard utf8.count > maximumBytes else { return self }
        var result = ""
        var bytes = 0
        for character in self {
            let size = character.utf8.count
            guard bytes + size <= maximumBytes else { break }
            result.append(character)
            bytes += size
        }
        return result
    }
}
