import AmbleBandStore
import AmbleModel
import AmbleSync

/// A finished session's data as the link sends it: encoded once (when it ends, or for older
/// sessions when first listed) and kept in the band's store.
enum SessionDataEncoding {
    @discardableResult
    static func encode(sessionID: Int64, in store: BandStore) throws -> (length: Int, crc32: UInt32)? {
        guard let record = try store.session(id: sessionID) else { return nil }
        let bytes = SessionCoding.encode(record)
        let crc = CRC32.checksum(bytes)
        try store.setSessionData(id: sessionID, bytes: bytes, crc32: crc)
        return (bytes.count, crc)
    }
}
