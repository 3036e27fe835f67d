import AmbleBandStore
import AmbleModel
import AmbleStoreSupport
import AmbleSync
import Logging

/// A finished session's data as the link sends it: encoded once (when it ends, or for older
/// sessions when first listed) and kept in the band's store; checked against the CRC-32 kept
/// with it before it is sent, and encoded again from the session's rows when the card changed
/// it. A full store cannot keep an encoding: it is then made in memory whenever it is asked for
/// (the same rows give the same bytes, so the length and CRC-32 listed still hold).
enum SessionDataEncoding {
    struct Encoded: Equatable {
        var bytes: [UInt8]
        var crc32: UInt32
    }

    /// What became of a session's data.
    struct Outcome {
        var data: Encoded
        /// The store is full: the encoding was not kept.
        var storeFull = false
        /// The stored data no longer matched the CRC-32 kept with it (this one, the one the
        /// laptop was listed) and was encoded again.
        var damagedCRC32: UInt32?
    }

    /// A session whose data cannot be made: its rows cannot be read. What the laptop is told.
    struct Unreadable: Error, CustomStringConvertible {
        var sessionID: Int64
        var reason: String

        var description: String {
            "session \(sessionID) cannot be read on the band: \(reason). The band keeps it and syncs the others; "
                + "copying the band's store (band.sqlite) off its card and running `sqlite3 band.sqlite .recover` on the copy may save it"
        }
    }

    /// How a session whose data cannot be made is listed (length, CRC-32): with one byte, so
    /// that the laptop asks for it, hears why (`Unreadable`) and holds its place before it.
    static let unreadableListing = (length: 1, crc32: UInt32(0))

    /// Encodes a finished session from its rows and keeps the encoding in the store (in memory
    /// only, when the store is full). Nil when there is no finished session `sessionID`.
    @discardableResult
    static func encode(sessionID: Int64, in store: BandStore, logger: Logger) throws(Unreadable) -> Outcome? {
        let record: SessionRecord?
        do {
            record = try store.session(id: sessionID)
        } catch {
            let unreadable = Unreadable(sessionID: sessionID, reason: isStoreDamagedError(error) ? "its stored seconds are damaged" : errorSentence(error))
            logger.error("\(unreadable)")
            throw unreadable
        }
        guard let record else { return nil }
        let bytes = SessionCoding.encode(record)
        var outcome = Outcome(data: Encoded(bytes: bytes, crc32: CRC32.checksum(bytes)))
        do {
            try store.setSessionData(id: sessionID, bytes: bytes, crc32: outcome.data.crc32)
        } catch {
            outcome.storeFull = isStoreFullError(error)
            if !outcome.storeFull {
                logger.error("cannot keep the sync data of session \(sessionID): \(errorSentence(error)); it is encoded again when a laptop asks")
            }
        }
        return outcome
    }

    /// What the link sends for a finished session: its stored data when that still matches the
    /// CRC-32 kept with it; else (changed on the card, or never kept by a full store) encoded
    /// again from its rows. Nil when there is no finished session `sessionID`.
    static func checked(sessionID: Int64, in store: BandStore, logger: Logger) throws(Unreadable) -> Outcome? {
        let kept: (bytes: [UInt8], crc32: UInt32)?
        let changed: Bool
        do {
            kept = try store.sessionData(id: sessionID)
            if let kept, CRC32.checksum(kept.bytes) == kept.crc32 {
                return Outcome(data: Encoded(bytes: kept.bytes, crc32: kept.crc32))
            }
            changed = kept != nil
        } catch {
            kept = nil   // unreadable where it is kept: changed, with no CRC-32 known
            changed = true
        }
        guard var outcome = try encode(sessionID: sessionID, in: store, logger: logger) else { return nil }
        if changed {
            outcome.damagedCRC32 = kept?.crc32
            let same = outcome.data.crc32 == kept?.crc32 ? ", the same as before" : ""
            logger.warning("session \(sessionID): its sync data had changed on the band's card (it no longer matched its CRC-32); encoded again from its stored seconds\(same)")
        }
        return outcome
    }
}
