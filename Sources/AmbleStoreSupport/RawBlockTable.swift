import AmbleModel
import AmbleSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `session_raw_block` table both stores share (made by each store's own frozen
/// migration): a session's raw sensor samples, one row per block, deleted with the session.
///
/// Values are fixed point and fixed width, little-endian: accelerometer blocks as signed 16-bit
/// mg (6 bytes a sample), PPG blocks as unsigned 32-bit counts (4 bytes a value), so that a
/// row's length always equals samples × channels × width, which the schema checks.
public enum RawBlockTable {
    /// Appends blocks to a session, after those it has. Invalid blocks are refused.
    public static func insert(_ db: Database, sessionID: Int64, _ blocks: [RawBlock]) throws {
        guard !blocks.isEmpty else { return }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO "session_raw_block" ("session_id", "sensor", "start_ms", "rate_mhz", "channels", "samples", "data")
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for block in blocks {
            guard block.isValid else { throw RawBlockError.invalid(sessionID: sessionID, startMilliseconds: block.startMilliseconds) }
            try statement.execute(arguments: [sessionID, block.sensor.rawValue, block.startMilliseconds, block.rateMillihertz,
                                              block.channels, block.sampleCount, pack(block)])
        }
    }

    /// A session's blocks in the order they were added.
    public static func blocks(_ db: Database, sessionID: Int64) throws -> [RawBlock] {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT "sensor", "start_ms", "rate_mhz", "channels", "data" FROM "session_raw_block" WHERE "session_id" = ? ORDER BY "id"
            """, arguments: [sessionID])
        var blocks: [RawBlock] = []
        while let row = try rows.next() {
            guard let sensor = RawSensor(rawValue: row["sensor"]) else { continue }
            let block = RawBlock(sensor: sensor, startMilliseconds: row["start_ms"], rateMillihertz: row["rate_mhz"], channels: row["channels"],
                                 values: unpack(row["data"] as Data, sensor: sensor))
            if block.isValid { blocks.append(block) }
        }
        return blocks
    }

    /// Samples per sensor a session holds, and the bytes its blocks take.
    public static func counts(_ db: Database, sessionID: Int64) throws -> (samples: [RawSensor: Int], bytes: Int) {
        var samples: [RawSensor: Int] = [:]
        var bytes = 0
        let rows = try Row.fetchCursor(db, sql: """
            SELECT "sensor", SUM("samples") AS "samples", SUM(length("data")) AS "bytes" FROM "session_raw_block" WHERE "session_id" = ? GROUP BY "sensor"
            """, arguments: [sessionID])
        while let row = try rows.next() {
            if let sensor = RawSensor(rawValue: row["sensor"]) { samples[sensor] = row["samples"] }
            bytes += row["bytes"] as Int
        }
        return (samples, bytes)
    }

    /// The values as stored: little-endian int16 (accelerometer) or uint32 (PPG).
    public static func pack(_ block: RawBlock) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(block.values.count * block.storedBytesPerValue)
        for value in block.values {
            let bits = UInt32(bitPattern: value)
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
            if block.sensor == .ppg {
                bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
            }
        }
        return Data(bytes)
    }

    static func unpack(_ data: Data, sensor: RawSensor) -> [Int32] {
        let bytes = [UInt8](data)
        if sensor == .accelerometer {
            return stride(from: 0, to: bytes.count - 1, by: 2).map { Int32(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) }
        }
        return stride(from: 0, to: bytes.count - 3, by: 4).map { (i: Int) -> Int32 in
            let low = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8
            let high = UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            return Int32(bitPattern: low | high)
        }
    }
}

public enum RawBlockError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A block outside what the stores keep (`RawBlock.isValid`).
    case invalid(sessionID: Int64, startMilliseconds: Int)

    public var description: String {
        switch self {
        case let .invalid(id, start):
            return "session \(id): a raw block at \(start) ms is not valid (channels, sample count, rate, start or values out of range)"
        }
    }
}
