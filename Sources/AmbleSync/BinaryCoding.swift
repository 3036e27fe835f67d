/// The binary coding of sync messages and session data: unsigned LEB128 varints, zigzag for
/// signed values, UTF-8 strings and byte strings behind a varint length, IEEE 754 doubles as
/// 8 big-endian bytes. docs/protocol.md, "Coding", describes it for other implementations.
public struct BinaryWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    public mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    public mutating func varint(_ value: Int) { varint(UInt64(max(0, value))) }

    /// A signed value, zigzag-coded (small magnitudes, either sign, take one byte).
    public mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    public mutating func double(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Four big-endian bytes (checksums).
    public mutating func uint32(_ value: UInt32) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    public mutating func string(_ value: String) { data(Array(value.utf8)) }

    public mutating func data(_ value: [UInt8]) {
        varint(value.count)
        bytes += value
    }

    /// Fixed-length bytes with no length in front (keys, hashes).
    public mutating func raw(_ value: [UInt8]) { bytes += value }

    /// An optional: a presence byte, then the value.
    public mutating func optional<T>(_ value: T?, _ write: (inout BinaryWriter, T) -> Void) {
        if let value {
            bool(true)
            write(&self, value)
        } else {
            bool(false)
        }
    }
}

/// Reads what `BinaryWriter` wrote. Every read checks the bytes left: truncated or hostile input
/// is a `CodingError`, never a crash, and lengths are bounded so that a peer cannot make the band
/// allocate more than it sent.
public struct BinaryReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position == bytes.count }

    public mutating func byte() throws(CodingError) -> UInt8 {
        guard position < bytes.count else { throw .truncated(at: position) }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func varint() throws(CodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64, !(shift == 63 && b > 1) else { throw .malformed("a varint longer than 64 bits", at: position) }
            value |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A varint that must fit `0 ... limit`.
    public mutating func count(limit: Int) throws(CodingError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw .malformed("\(value) is above the limit \(limit)", at: position) }
        return Int(value)
    }

    public mutating func signed() throws(CodingError) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    public mutating func double() throws(CodingError) -> Double {
        var bits: UInt64 = 0
        for _ in 0 ..< 8 { bits = bits << 8 | UInt64(try byte()) }
        return Double(bitPattern: bits)
    }

    /// A double that must be finite.
    public mutating func finiteDouble() throws(CodingError) -> Double {
        let value = try double()
        guard value.isFinite else { throw .malformed("a number that is not finite", at: position) }
        return value
    }

    public mutating func uint32() throws(CodingError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0 ..< 4 { value = value << 8 | UInt32(try byte()) }
        return value
    }

    public mutating func bool() throws(CodingError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw .malformed("\(other) is not a boolean", at: position - 1)
        }
    }

    public mutating func string(limit: Int = 1024) throws(CodingError) -> String {
        let raw = try data(limit: limit)
        guard let text = String(validating: raw, as: UTF8.self) else { throw .malformed("a string that is not UTF-8", at: position) }
        return text
    }

    public mutating func data(limit: Int) throws(CodingError) -> [UInt8] {
        let n = try count(limit: limit)
        return try raw(n)
    }

    public mutating func raw(_ n: Int) throws(CodingError) -> [UInt8] {
        guard n >= 0, n <= remaining else { throw .truncated(at: position) }
        defer { position += n }
        return Array(bytes[position ..< position + n])
    }

    public mutating func optional<T>(_ read: (inout BinaryReader) throws(CodingError) -> T) throws(CodingError) -> T? {
        try bool() ? try read(&self) : nil
    }

    /// Refuses bytes left over after a message (a confused or hostile peer).
    public func finish() throws(CodingError) {
        guard isAtEnd else { throw .malformed("\(remaining) bytes after the end", at: position) }
    }
}

public enum CodingError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(at: Int)
    case malformed(String, at: Int)
    case unknownType(UInt8)
    case compression(String)

    public var description: String {
        switch self {
        case .truncated(let at): return "the message ends early (byte \(at))"
        case .malformed(let what, let at): return "\(what) (byte \(at))"
        case .unknownType(let type): return "unknown message type 0x\(String(type, radix: 16))"
        case .compression(let detail): return "compressed data: \(detail)"
        }
    }
}
