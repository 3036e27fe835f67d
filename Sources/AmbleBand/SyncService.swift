import AmbleBandStore
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSync
import Logging

/// The band's store as the sync protocol reads it.
final class StoreSessionProvider: SessionProvider {
    let store: BandStore
    let identity: BandIdentity

    init(store: BandStore, identity: BandIdentity) {
        self.store = store
        self.identity = identity
    }

    func bandIdentity() throws -> (id: String, name: String) { (identity.id, identity.name) }

    func finishedSessions(afterID: Int64?) throws -> [SessionListing] {
        try store.finishedSessions(afterID: afterID).map { SessionListing(id: $0.id, summary: $0.summary) }
    }

    func session(id: Int64) throws -> SessionRecord? { try store.session(id: id) }
}

/// Serves sessions over TCP (any number of companions) and over a serial line.
final class SyncService {
    private let provider: StoreSessionProvider
    private let listener: TCPListener?
    private var connections: [SyncServerConnection] = []
    private var serial: SyncServerConnection?
    private let logger: Logger

    init(provider: StoreSessionProvider, listener: TCPListener?, serial: (any ByteStream)?, logger: Logger) {
        self.provider = provider
        self.listener = listener
        self.serial = serial.map { SyncServerConnection(stream: $0, provider: provider) }
        self.logger = logger
    }

    var pollDescriptors: [Int32] {
        [listener?.pollDescriptor].compactMap { $0 } + connections.map(\.pollDescriptor) + [serial?.pollDescriptor].compactMap { $0 }
    }

    /// Accepts new companions and answers every request that arrived.
    func service() {
        if let listener {
            do {
                while let connection = try listener.accept() {
                    logger.info("companion connected from \(connection.peerName)")
                    connections.append(SyncServerConnection(stream: connection, provider: provider))
                }
            } catch {
                logger.warning("accepting a companion failed: \(error)")
            }
        }
        connections.removeAll { connection in
            let alive = connection.service()
            if !alive { logger.info("companion \(connection.peerName) disconnected") }
            return !alive
        }
        if let serial, !serial.service() {
            logger.warning("serial link \(serial.peerName) closed; sync over serial stops until ambled restarts")
            self.serial = nil
        }
    }

    func close() {
        connections.forEach { $0.close() }
        connections.removeAll()
        serial?.close()
    }
}
