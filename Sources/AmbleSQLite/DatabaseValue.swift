#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One value as SQLite stores it: its five storage classes.
public enum DatabaseValue: Equatable, Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type that binds to a statement's parameter and reads from a column. Reading is
/// strict where a conversion would lose information: a REAL reads as an integer only when it
/// is whole and in range; text and blobs never read as numbers.
public protocol DatabaseValueConvertible: Sendable {
    var databaseValue: DatabaseValue { get }
    /// Nil when the value cannot be read as this type (NULL included).
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let integer): return integer
        case .real(let real): return Int64(exactly: real)
        default: return nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? { Int64.fromDatabaseValue(value).flatMap { Int(exactly: $0) } }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int32? { Int64.fromDatabaseValue(value).flatMap { Int32(exactly: $0) } }
}

extension UInt32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UInt32? { Int64.fromDatabaseValue(value).flatMap { UInt32(exactly: $0) } }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .integer(let integer): return Double(integer)
        case .real(let real): return real
        default: return nil
        }
    }
}

/// Stored as the integers 0 and 1 (SQLite has no boolean class); any non-zero number reads true.
extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .integer(let integer): return integer != 0
        case .real(let real): return real != 0
        default: return nil
        }
    }
}

/// Text; a blob reads as text when it is valid UTF-8.
extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        switch value {
        case .text(let text): return text
        case .blob(let bytes): return String(validating: bytes, as: UTF8.self)
        default: return nil
        }
    }
}

/// A blob; text reads as its UTF-8 bytes.
extension [UInt8]: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        switch value {
        case .blob(let bytes): return bytes
        case .text(let text): return Array(text.utf8)
        default: return nil
        }
    }
}

/// A blob, as `[UInt8]`.
extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob([UInt8](self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? { [UInt8].fromDatabaseValue(value).map { Data($0) } }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

/// The values bound to a statement's `?` parameters, in order; nil binds NULL.
public struct StatementArguments: ExpressibleByArrayLiteral, Sendable {
    public var values: [DatabaseValue]

    public init(_ values: [(any DatabaseValueConvertible)?]) {
        self.values = values.map { $0?.databaseValue ?? .null }
    }

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }
}
