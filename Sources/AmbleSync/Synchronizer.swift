import AmbleModel

/// Where the laptop keeps what it pulls (its store, in practice; the conformance lives where
/// store and sync meet, in the CLI).
public protocol SessionSink: AnyObject {
    /// Every band session id up to this one is kept or was refused by the band.
    func syncCursor(bandID: String) throws -> Int64
    func setSyncCursor(bandID: String, _ cursor: Int64) throws
    func storedBandSessionIDs(bandID: String) throws -> Set<Int64>
    func partialDownload(bandID: String, bandSessionID: Int64) throws -> PartialDownload?
    func savePartialDownload(bandID: String, bandSessionID: Int64, _ partial: PartialDownload) throws
    func discardPartialDownload(bandID: String, bandSessionID: Int64) throws
    /// Keeps one session in one transaction (and drops its partial data); returns its local
    /// id, or nil when it was already kept. `data` is the session exactly as the band sent it
    /// (`SessionCoding`, checked by its CRC), for a study server that keeps what the band recorded.
    func store(bandID: String, bandName: String, bandSessionID: Int64, record: SessionRecord, data: [UInt8]) throws -> Int64?
    /// Notes a sync that ended well (the band's name, the time).
    func syncCompleted(bandID: String, bandName: String) throws
    /// What the band is recording as the sync ends (replacing what an earlier sync saw);
    /// nil when the band is too old to say.
    func bandRecording(bandID: String, _ recording: [SyncMessage.RecordingEntry]?) throws
}

/// How far a sync is, for a progress bar.
public struct SyncProgress: Equatable, Sendable {
    public var sessionsDone: Int
    public var sessionsTotal: Int
    public var bytesDone: Int
    public var bytesTotal: Int
}

/// One sync: hello, the sessions listed since the store's cursor, each one not kept fetched in
/// chunks from where an earlier cut left it, kept in one transaction, and only then
/// acknowledged (the band marks it synced). A session the band refuses is reported and passed
/// over; the ones after it still come.
public struct Synchronizer {
    public struct Pulled: Equatable, Sendable {
        public var localID: Int64
        public var bandSessionID: Int64
        public var summary: SessionSummary
        /// Bytes of its data taken from an earlier, interrupted sync.
        public var resumedBytes: Int
    }

    public struct Result: Equatable, Sendable {
        public var bandID = ""
        public var bandName = ""
        public var pulled: [Pulled] = []
        public var alreadyStored = 0
        /// Band session ids the band would not send, with its reason.
        public var refused: [RefusedSession] = []
        public var bytesReceived = 0
        public var resentRequests = 0
        /// Sessions the band is still recording: they come with a sync after they end. Nil
        /// when the band speaks a version without `getStatus`.
        public var recording: [SyncMessage.RecordingEntry]?
        /// How the band's store is (full, damaged), in its words. Nil when the band speaks a
        /// version without `getStorage`.
        public var storage: (condition: StoreCondition, message: String)?

        public static func == (a: Result, b: Result) -> Bool {
            a.bandID == b.bandID && a.bandName == b.bandName && a.pulled == b.pulled && a.alreadyStored == b.alreadyStored
                && a.refused == b.refused && a.bytesReceived == b.bytesReceived && a.resentRequests == b.resentRequests
                && a.recording == b.recording && a.storage?.condition == b.storage?.condition && a.storage?.message == b.storage?.message
        }
    }

    /// A session the band refused to send.
    public struct RefusedSession: Equatable, Sendable {
        public var bandSessionID: Int64
        public var reason: String
    }

    /// A sync cut short: what it kept before, and where the next one resumes.
    public struct Interrupted: Error, CustomStringConvertible {
        public var result: Result
        public var cause: SyncError
        /// The session being fetched when the cut came, with the bytes kept for the next sync.
        public var partial: (bandSessionID: Int64, bytes: Int, of: Int)?

        public var description: String { "sync interrupted: \(cause). \(kept)" }

        /// What this sync kept, and where the next one resumes.
        public var kept: String {
            var text = "Kept \(result.pulled.count) new session\(result.pulled.count == 1 ? "" : "s")"
            if let partial, partial.bytes > 0 {
                text += "; band session \(partial.bandSessionID): \(partial.bytes) of \(partial.of) bytes kept, the next sync resumes there"
            }
            return text + "."
        }
    }

    public let sink: any SessionSink
    public let link: CompanionLink
    public var clientName = "amble"
    /// Chunk size asked for, bytes.
    public var chunkLength = SyncMessage.maximumChunkLength
    /// Partial data is saved at least this often, bytes (and when a sync is cut).
    public var saveEveryBytes = 256 << 10

    public init(sink: any SessionSink, link: CompanionLink) {
        self.sink = sink
        self.link = link
    }

    public func run(progress: (SyncProgress) -> Void = { _ in }) throws -> Result {
        var result = Result()
        let welcome = try link.hello(clientName: clientName)
        let bandID = welcome.bandID, bandName = welcome.bandName
        result.bandID = bandID
        result.bandName = bandName
        var current: (id: Int64, bytes: Int, of: Int)?
        do {
            let entries = try listAll(after: try sink.syncCursor(bandID: bandID))
            let known = try sink.storedBandSessionIDs(bandID: bandID)
            let wanted = entries.filter { !known.contains($0.id) }
            var state = SyncProgress(sessionsDone: 0, sessionsTotal: wanted.count, bytesDone: 0, bytesTotal: wanted.reduce(0) { $0 + $1.dataLength })
            progress(state)
            // The cursor moves past a session once it is kept or refused for good; a session
            // that may come next time holds it.
            var cursorHeld = false
            for entry in entries {
                if known.contains(entry.id) {
                    result.alreadyStored += 1
                    if !entry.synced { _ = try link.request(.acknowledge(sessionID: entry.id)) }
                    if !cursorHeld { try sink.setSyncCursor(bandID: bandID, entry.id) }
                    continue
                }
                current = (entry.id, 0, entry.dataLength)
                do {
                    let (record, data, resumed) = try fetch(entry, bandID: bandID, current: &current) { done in
                        progress(SyncProgress(sessionsDone: state.sessionsDone, sessionsTotal: state.sessionsTotal,
                                              bytesDone: state.bytesDone + done, bytesTotal: state.bytesTotal))
                    }
                    if let id = try sink.store(bandID: bandID, bandName: bandName, bandSessionID: entry.id, record: record, data: data) {
                        result.pulled.append(Pulled(localID: id, bandSessionID: entry.id, summary: record.summary, resumedBytes: resumed))
                    } else {
                        result.alreadyStored += 1
                    }
                    current = nil
                    // Kept and committed: now the band may mark it synced.
                    _ = try link.request(.acknowledge(sessionID: entry.id))
                } catch let refused as SessionRefused {
                    result.refused.append(RefusedSession(bandSessionID: entry.id, reason: refused.reason))
                    current = nil
                    cursorHeld = cursorHeld || refused.transient
                }
                if !cursorHeld { try sink.setSyncCursor(bandID: bandID, entry.id) }
                state.sessionsDone += 1
                state.bytesDone += entry.dataLength
                progress(state)
            }
            if welcome.version >= SyncMessage.statusVersion {
                guard case .status(let recording) = try link.request(.getStatus) else {
                    throw SyncError.unexpected(peer: link.peer, detail: "the band did not answer the status request with its status")
                }
                result.recording = recording
            }
            if welcome.version >= SyncMessage.storageVersion {
                guard case .storage(let condition, let message) = try link.request(.getStorage) else {
                    throw SyncError.unexpected(peer: link.peer, detail: "the band did not answer the storage request with its storage")
                }
                result.storage = (condition, printableText(message, maximum: SyncMessage.maximumMessageLength))
            }
            try sink.bandRecording(bandID: bandID, result.recording)
            try sink.syncCompleted(bandID: bandID, bandName: bandName)
        } catch let error as SyncError {
            result.bytesReceived = link.bytesIn
            result.resentRequests = link.resentRequests
            throw Interrupted(result: result, cause: error, partial: current.map { ($0.id, $0.bytes, $0.of) })
        }
        result.bytesReceived = link.bytesIn
        result.resentRequests = link.resentRequests
        return result
    }

    private struct SessionRefused: Error {
        var reason: String
        /// Whether asking again later may work (then the cursor stays before it).
        var transient: Bool
    }

    /// Every finished session after `after`, page by page.
    private func listAll(after: Int64) throws(SyncError) -> [SyncMessage.SessionEntry] {
        var entries: [SyncMessage.SessionEntry] = []
        var cursor = after
        while true {
            guard case .sessionList(let page, let more) = try link.request(.listSessions(afterID: cursor)) else {
                throw SyncError.unexpected(peer: link.peer, detail: "the band did not answer the list request with a list")
            }
            entries += page
            guard more, let last = page.last, last.id > cursor else { return entries }
            cursor = last.id
        }
    }

    /// A session's data, from where an earlier sync left it, checked and decoded.
    private func fetch(_ entry: SyncMessage.SessionEntry, bandID: String, current: inout (id: Int64, bytes: Int, of: Int)?,
                       progress: (Int) -> Void) throws -> (SessionRecord, data: [UInt8], resumed: Int) {
        var bytes: [UInt8] = []
        if let partial = try sink.partialDownload(bandID: bandID, bandSessionID: entry.id) {
            if partial.totalLength == entry.dataLength && partial.crc32 == entry.dataCRC32 && partial.bytes.count <= entry.dataLength {
                bytes = partial.bytes
            } else {
                try sink.discardPartialDownload(bandID: bandID, bandSessionID: entry.id)
            }
        }
        let resumed = bytes.count
        current = (entry.id, bytes.count, entry.dataLength)
        var savedAt = bytes.count
        func keep() throws {
            guard bytes.count > savedAt else { return }
            try sink.savePartialDownload(bandID: bandID, bandSessionID: entry.id,
                                     PartialDownload(totalLength: entry.dataLength, crc32: entry.dataCRC32, bytes: bytes))
            savedAt = bytes.count
        }
        do {
            while bytes.count < entry.dataLength {
                let answer: SyncMessage
                do {
                    answer = try link.request(.getChunk(sessionID: entry.id, offset: bytes.count, maximumLength: chunkLength))
                } catch {
                    if case .failed(_, let code, let message) = error, code == .notFound || code == .internalError {
                        throw SessionRefused(reason: message, transient: code == .internalError)
                    }
                    throw error
                }
                guard case .chunk(let id, let offset, let total, let chunk) = answer, id == entry.id, offset == bytes.count,
                      total == entry.dataLength, !chunk.isEmpty, offset + chunk.count <= total else {
                    throw SyncError.unexpected(peer: link.peer, detail: "the band sent a chunk that does not fit session \(entry.id) at \(bytes.count)")
                }
                bytes += chunk
                current = (entry.id, bytes.count, entry.dataLength)
                progress(bytes.count)
                if bytes.count - savedAt >= saveEveryBytes { try keep() }
            }
        } catch let error as SyncError {
            try? keep()
            throw error
        }
        guard CRC32.checksum(bytes) == entry.dataCRC32 else {
            try sink.discardPartialDownload(bandID: bandID, bandSessionID: entry.id)
            throw SessionRefused(reason: "its data arrived damaged (CRC mismatch); the next sync fetches it again", transient: true)
        }
        do {
            return (try SessionCoding.decode(bytes), bytes, resumed)
        } catch {
            try sink.discardPartialDownload(bandID: bandID, bandSessionID: entry.id)
            throw SessionRefused(reason: "its data cannot be read (\(error)); update the older side", transient: true)
        }
    }
}
