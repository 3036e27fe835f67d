/// The frames everything on the sync link travels in, over TCP or a serial line
/// (docs/protocol.md, "Frames"):
///
///     "AM" | version (2) | kind | length (u16, big-endian) | header check (u16) | payload | CRC-32 of payload (u32)
///
/// The magic and the checksums let a decoder on a noisy serial line drop garbage and find the
/// next frame; the header check keeps a corrupted length from making it wait for bytes that
/// will never come, and no frame is longer than `maximumPayloadLength`, so one bad header can
/// hold a link for at most one frame's time.
public enum Framing {
    public static let magic: [UInt8] = [0x41, 0x4D]
    /// The frame layout's version. A band answers a frame of another version with a refusal
    /// (`unsupportedVersion`) rather than silence.
    public static let version: UInt8 = 2
    public static let headerLength = 8
    public static let trailerLength = 4
    /// The longest payload, bytes: a sealed chunk of session data and its message fields.
    public static let maximumPayloadLength = 16 << 10
    /// The longest frame, bytes.
    public static let maximumFrameLength = headerLength + maximumPayloadLength + trailerLength

    /// The bytes of one frame of `kind` around `payload` (at most `maximumPayloadLength` bytes).
    public static func frame(_ kind: FrameKind, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= maximumPayloadLength, "frame payloads are cut to size by their senders")
        var bytes = magic
        bytes.reserveCapacity(headerLength + payload.count + trailerLength)
        bytes.append(version)
        bytes.append(kind.rawValue)
        bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        let check = headerCheck(bytes[...])
        bytes += [UInt8(check >> 8), UInt8(check & 0xFF)]
        bytes += payload
        let crc = CRC32.checksum(payload)
        bytes += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return bytes
    }

    /// A failure in the framing and JSON of sync protocol 1 (Amble before pairing), so that an
    /// old companion prints why it is refused: `the band refused (unsupported-version): ...`.
    public static func versionOneFailure(_ message: String) -> [UInt8] {
        let escaped = message.unicodeScalars.filter { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }
        let payload = Array("{\"failure\":{\"code\":\"unsupported-version\",\"message\":\"\(String(String.UnicodeScalarView(escaped)))\"}}".utf8)
        var bytes = magic + [1]
        let length = UInt32(payload.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let check = UInt16(truncatingIfNeeded: CRC32.checksum(bytes))
        bytes += [UInt8(check >> 8), UInt8(check & 0xFF)]
        bytes += payload
        let crc = CRC32.checksum(payload)
        bytes += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return bytes
    }

    /// The low 16 bits of the CRC-32 of the first six header bytes.
    static func headerCheck(_ header: ArraySlice<UInt8>) -> UInt16 {
        UInt16(truncatingIfNeeded: CRC32.checksum(header.prefix(6)))
    }
}

/// What a frame carries (docs/protocol.md, "Frame kinds").
public enum FrameKind: UInt8, Equatable, Sendable, CaseIterable {
    /// A Noise XX handshake message: pairing a laptop with the band.
    case pair = 0x01
    /// A Noise IK handshake message: a paired laptop connecting.
    case connect = 0x02
    /// A message sealed by the secure channel the handshake set up.
    case secure = 0x03
    /// The band says no, in clear, and closes: `FailureCode` and a sentence.
    case refusal = 0x04
}

/// Reassembles frames from bytes arriving in any pieces, holding at most `capacity` bytes.
///
/// Bytes go in with `append` (never more than `freeCapacity`: the owner reads only that much
/// from the link, so a peer that sends without reading fills its own socket, not the band's
/// memory); frames come out, one at a time, from `next()`.
public struct FrameDecoder: Sendable {
    public enum Event: Equatable, Sendable {
        case frame(kind: UInt8, payload: [UInt8])
        /// Bytes that were not a valid frame were skipped (noise, a damaged frame).
        case discarded(byteCount: Int, reason: DiscardReason)
        /// A frame header of another layout version (an older or newer companion).
        case unsupportedVersion(UInt8)
    }

    public enum DiscardReason: Equatable, Sendable {
        case noFrameStart
        case headerCheck
        case tooLong(Int)
        /// The header was sound but the payload's CRC was not: a frame damaged on the way.
        case damaged
    }

    private var buffer: [UInt8] = []
    private var start = 0
    /// Most bytes held at once: two frames.
    public let capacity: Int

    public init(capacity: Int = 2 * Framing.maximumFrameLength) {
        self.capacity = max(capacity, Framing.maximumFrameLength)
        buffer.reserveCapacity(min(self.capacity, 4096))
    }

    /// Bytes held: the start of a frame not yet complete, or frames not yet taken.
    public var bufferedByteCount: Int { buffer.count - start }
    /// How many more bytes `append` takes now.
    public var freeCapacity: Int { capacity - bufferedByteCount }

    /// Adds received bytes: at most `freeCapacity` of them are kept, the rest dropped (and
    /// counted in the return value, which is 0 when the owner kept to `freeCapacity`).
    @discardableResult
    public mutating func append<Bytes: Collection>(_ bytes: Bytes) -> Int where Bytes.Element == UInt8 {
        if start > 0 && (start == buffer.count || start >= 4096 || buffer.count + bytes.count > capacity) {
            buffer.removeFirst(start)
            start = 0
        }
        let kept = min(bytes.count, freeCapacity)
        buffer.append(contentsOf: bytes.prefix(kept))
        return bytes.count - kept
    }

    /// Drops every byte held (a partial frame that stopped arriving); returns how many.
    @discardableResult
    public mutating func dropBuffered() -> Int {
        let dropped = bufferedByteCount
        buffer.removeAll(keepingCapacity: buffer.capacity <= 4096)
        start = 0
        return dropped
    }

    /// Every byte held, removed (to hand them to another decoder).
    mutating func nextRaw() -> [UInt8]? {
        guard bufferedByteCount > 0 else { return nil }
        let bytes = Array(buffer[start...])
        dropBuffered()
        return bytes
    }

    /// Adds bytes and returns every event they complete (for a reader with nothing to pace).
    public mutating func feed(_ bytes: [UInt8]) -> [Event] {
        var events: [Event] = []
        var rest = bytes[...]
        repeat {
            let room = freeCapacity
            append(rest.prefix(room))
            rest = rest.dropFirst(room)
            while let event = next() { events.append(event) }
        } while !rest.isEmpty
        return events
    }

    /// The next frame or skipped stretch the held bytes give, or nil when more bytes are needed.
    public mutating func next() -> Event? {
        let available = buffer.count - start
        guard available >= 1 else { return nil }
        // Skip to the next possible frame start (a lone first magic byte at the end may be one).
        if buffer[start] != Framing.magic[0] || (available >= 2 && buffer[start + 1] != Framing.magic[1]) {
            var next = start + 1
            while next < buffer.count && !(buffer[next] == Framing.magic[0] && (next + 1 == buffer.count || buffer[next + 1] == Framing.magic[1])) {
                next += 1
            }
            let skipped = next - start
            start = next
            return .discarded(byteCount: skipped, reason: .noFrameStart)
        }
        // Version 1 (until Amble 0.1) had a 9-byte header: magic, version, u32 length, and the
        // check over the first seven bytes. Recognised so that an old companion hears why.
        if available >= 3 && buffer[start + 2] == 1 {
            guard available >= 9 else { return nil }
            let check = UInt16(buffer[start + 7]) << 8 | UInt16(buffer[start + 8])
            if check == UInt16(truncatingIfNeeded: CRC32.checksum(buffer[start ..< start + 7])) {
                start += 9
                return .unsupportedVersion(1)
            }
        }
        guard available >= Framing.headerLength else { return nil }
        let check = UInt16(buffer[start + 6]) << 8 | UInt16(buffer[start + 7])
        guard check == Framing.headerCheck(buffer[start ..< start + 6]) else {
            start += 1
            return .discarded(byteCount: 1, reason: .headerCheck)
        }
        // Later versions keep the first eight bytes as they are here.
        guard buffer[start + 2] == Framing.version else {
            let version = buffer[start + 2]
            start += Framing.headerLength
            return .unsupportedVersion(version)
        }
        let length = Int(buffer[start + 4]) << 8 | Int(buffer[start + 5])
        guard length <= Framing.maximumPayloadLength else {
            start += 1
            return .discarded(byteCount: 1, reason: .tooLong(length))
        }
        let total = Framing.headerLength + length + Framing.trailerLength
        guard available >= total else { return nil }
        let payloadStart = start + Framing.headerLength
        let c = payloadStart + length
        let crc = UInt32(buffer[c]) << 24 | UInt32(buffer[c + 1]) << 16 | UInt32(buffer[c + 2]) << 8 | UInt32(buffer[c + 3])
        guard crc == CRC32.checksum(buffer[payloadStart ..< c]) else {
            start += 1
            return .discarded(byteCount: 1, reason: .damaged)
        }
        let kind = buffer[start + 3]
        let payload = Array(buffer[payloadStart ..< c])
        start += total
        return .frame(kind: kind, payload: payload)
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib computes it.
public enum CRC32 {
    static let table: [UInt32] = (0 ..< 256).map { n in
        var c = UInt32(n)
        for _ in 0 ..< 8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func checksum<Bytes: Collection>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
