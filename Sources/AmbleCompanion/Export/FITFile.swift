/// FIT's binary layer, as Garmin's FIT protocol document lays it out (FIT SDK, "FIT
/// Protocol"): a 14-byte file header with its own CRC, then records, each a definition
/// message (the layout of a kind of data message: its global message number and fields, under
/// a local message type 0-15) or a data message (a local type's values), then the CRC of all
/// that. Numbers are little-endian (the definitions say so); a field with no value holds its
/// type's invalid value. Amble writes FIT and never reads it.
struct FITWriter {
    /// The base types Amble writes, with their codes in a definition.
    enum BaseType: UInt8 {
        case enumeration = 0x00
        case uint8 = 0x02
        case uint16 = 0x84
        case uint32 = 0x86
        case string = 0x07
        /// uint32 whose invalid value is 0 (serial numbers).
        case uint32z = 0x8C

        var size: Int {
            switch self {
            case .enumeration, .uint8, .string: 1
            case .uint16: 2
            case .uint32, .uint32z: 4
            }
        }

        /// The value that means "no value".
        var invalid: UInt64 {
            switch self {
            case .enumeration, .uint8, .string: 0xFF
            case .uint16: 0xFFFF
            case .uint32: 0xFFFF_FFFF
            case .uint32z: 0
            }
        }
    }

    /// A field of a message: its number in the FIT profile, its base type, and its size in
    /// bytes (a string's is fixed when it is defined, its terminating zero included).
    struct Field: Hashable {
        var number: UInt8
        var type: BaseType
        var size: Int

        init(_ number: UInt8, _ type: BaseType, size: Int? = nil) {
            self.number = number
            self.type = type
            self.size = size ?? type.size
        }
    }

    /// A field's value: a whole number in the field's units (its scale applied: centimetres
    /// for a distance in metres at scale 100), or nil for none; or text.
    enum Value {
        case number(Int?)
        case text(String)
    }

    /// Seconds from 1970-01-01T00:00:00Z to FIT's epoch, 1989-12-31T00:00:00Z.
    static let epochUnixSeconds = 631_065_600
    /// FIT protocol 1.0 (Amble uses nothing of 2.0: no developer fields, no 64-bit types) and
    /// the profile its message and field numbers were checked against, 21.218 (written as
    /// major x 1000 + minor, as Garmin's SDK writes it).
    static let protocolVersion: UInt8 = 0x10
    static let profileVersion: UInt16 = 21_218

    private struct Layout: Hashable {
        var message: UInt16
        var fields: [Field]
    }

    private var records: [UInt8] = []
    /// What each local message type is defined as now.
    private var locals: [Layout?] = Array(repeating: nil, count: 16)
    private var nextLocal = 0

    /// A date as FIT writes it: whole seconds since FIT's epoch (the second it falls in).
    static func time(_ unixSeconds: Double) -> Int {
        Int(unixSeconds.rounded(.down)) - epochUnixSeconds
    }

    /// Appends a data message `message` (its global number) with `fields`, defined first when
    /// no local type holds its layout.
    mutating func write(_ message: UInt16, _ fields: [(Field, Value)]) {
        let layout = Layout(message: message, fields: fields.map(\.0))
        let local: Int
        if let defined = locals.firstIndex(where: { $0 == layout }) {
            local = defined
        } else {
            local = nextLocal
            nextLocal = (nextLocal + 1) % locals.count
            locals[local] = layout
            records.append(0x40 | UInt8(local))   // a definition message's header
            records += [0, 0]                      // reserved; little-endian
            append(UInt64(message), size: 2)
            records.append(UInt8(fields.count))
            for (field, _) in fields { records += [field.number, UInt8(field.size), field.type.rawValue] }
        }
        records.append(UInt8(local))                // a data message's header
        for (field, value) in fields {
            switch value {
            case .number(let number): append(Self.encoded(number, field.type), size: field.size)
            case .text(let text): appendText(text, size: field.size)
            }
        }
    }

    /// The whole file: header, records and CRC.
    var bytes: [UInt8] {
        var header: [UInt8] = [14, Self.protocolVersion]
        header += Self.littleEndian(UInt64(Self.profileVersion), size: 2)
        header += Self.littleEndian(UInt64(records.count), size: 4)
        header += Array(".FIT".utf8)
        header += Self.littleEndian(UInt64(Self.crc(header)), size: 2)
        let body = header + records
        return body + Self.littleEndian(UInt64(Self.crc(body)), size: 2)
    }

    /// FIT's CRC-16 (polynomial 0x8005 reflected, starting at 0: CRC-16/ARC), a nibble at a
    /// time as the protocol document gives it.
    static func crc(_ bytes: [UInt8]) -> UInt16 {
        let table: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                               0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
        var crc: UInt16 = 0
        for byte in bytes {
            for nibble in [byte & 0x0F, byte >> 4] {
                let low = table[Int(crc & 0x0F)]
                crc = (crc >> 4) & 0x0FFF
                crc = crc ^ low ^ table[Int(nibble)]
            }
        }
        return crc
    }

    /// A number as the field stores it: clamped to the type's valid values; nil is invalid.
    private static func encoded(_ number: Int?, _ type: BaseType) -> UInt64 {
        guard let number else { return type.invalid }
        if type == .uint32z { return UInt64(min(max(number, 1), 0xFFFF_FFFF)) }
        return UInt64(min(max(number, 0), Int(type.invalid) - 1))
    }

    private mutating func append(_ value: UInt64, size: Int) {
        records += Self.littleEndian(value, size: size)
    }

    /// UTF-8, cut at a character so that it fits with its terminating zero, padded with zeros.
    private mutating func appendText(_ text: String, size: Int) {
        var utf8: [UInt8] = []
        for character in text {
            let next = Array(String(character).utf8)
            guard utf8.count + next.count < size else { break }
            utf8 += next
        }
        records += utf8 + Array(repeating: 0, count: size - utf8.count)
    }

    private static func littleEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) }
    }
}
