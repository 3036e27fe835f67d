/// The frames every sync message travels in, over TCP or a serial line:
///
///     "AM" | version 1 | length (u32, big-endian) | header check (u16) | payload | CRC-32 of payload (u32)
///
/// The magic and the checksums let a decoder on a noisy serial line drop garbage and find the
/// next frame; the header check keeps a corrupted length from making it wait for megabytes
/// that will never come. A secure channel (pairing, encryption) wraps payloads, not the stream.
public enum Framing {
    public static let magic: [UInt8] = [0x41, 0x4D]
    public static let version: UInt8 = 1
    static let headerLength = 9
    static let trailerLength = 4
    /// Frames larger than this are refused (a day of seconds is about 15 MB of JSON).
    public static let maximumPayloadLength = 32 << 20

    /// The bytes of one frame around `payload`.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes = magic
        bytes.append(version)
        let length = UInt32(payload.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let check = headerCheck(bytes[...])
        bytes += [UInt8(check >> 8), UInt8(check & 0xFF)]
        bytes += payload
        let crc = CRC32.checksum(payload)
        bytes += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return bytes
    }

    /// The low 16 bits of the CRC-32 of the first seven header bytes.
    static func headerCheck(_ header: ArraySlice<UInt8>) -> UInt16 {
        UInt16(truncatingIfNeeded: CRC32.checksum(Array(header)))
    }
}

/// Reassembles frames from bytes arriving in any pieces.
public struct FrameDecoder: Sendable {
    public enum Event: Equatable, Sendable {
        case frame([UInt8])
        /// Bytes that were not a valid frame were skipped (noise, a corrupted frame).
        case discarded(byteCount: Int, reason: String)
    }

    private var buffer: [UInt8] = []
    private var start = 0
    /// Larger frames are refused: the band takes only small requests.
    public let maximumPayloadLength: Int

    public init(maximumPayloadLength: Int = Framing.maximumPayloadLength) {
        self.maximumPayloadLength = maximumPayloadLength
    }

    /// Adds received bytes; returns the frames (and skipped garbage) they complete.
    public mutating func feed(_ bytes: [UInt8]) -> [Event] {
        buffer += bytes
        var events: [Event] = []
        while let event = next() { events.append(event) }
        if start > 4096 || start == buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return events
    }

    private mutating func next() -> Event? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        // Skip to the next possible frame start (a lone first magic byte at the end may be one).
        if buffer[start] != Framing.magic[0] || buffer[start + 1] != Framing.magic[1] {
            var next = start + 1
            while next < buffer.count && !(buffer[next] == Framing.magic[0] && (next + 1 == buffer.count || buffer[next + 1] == Framing.magic[1])) {
                next += 1
            }
            let skipped = next - start
            start = next
            return .discarded(byteCount: skipped, reason: "no frame start")
        }
        guard available >= Framing.headerLength else { return nil }
        guard buffer[start + 2] == Framing.version else {
            start += 1
            return .discarded(byteCount: 1, reason: "unknown frame version")
        }
        let check = UInt16(buffer[start + 7]) << 8 | UInt16(buffer[start + 8])
        guard check == Framing.headerCheck(buffer[start..<start + 7]) else {
            start += 1
            return .discarded(byteCount: 1, reason: "header check mismatch")
        }
        let length = Int(buffer[start + 3]) << 24 | Int(buffer[start + 4]) << 16 | Int(buffer[start + 5]) << 8 | Int(buffer[start + 6])
        guard length <= maximumPayloadLength else {
            start += 1
            return .discarded(byteCount: 1, reason: "frame length \(length) too large")
        }
        let total = Framing.headerLength + length + Framing.trailerLength
        guard available >= total else { return nil }
        let payloadStart = start + Framing.headerLength
        let payload = Array(buffer[payloadStart..<payloadStart + length])
        let c = payloadStart + length
        let crc = UInt32(buffer[c]) << 24 | UInt32(buffer[c + 1]) << 16 | UInt32(buffer[c + 2]) << 8 | UInt32(buffer[c + 3])
        guard crc == CRC32.checksum(payload) else {
            start += 1
            return .discarded(byteCount: 1, reason: "checksum mismatch")
        }
        start += total
        return .frame(payload)
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib computes it.
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
