import AmbleBandStore
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSync
import Logging

/// Serves sessions over TCP (a few companions at once) and over a serial line, which is
/// reopened after a hang-up or an error (unplugging the cable ends a serial sync).
final class SyncService {
    /// Companions served at once over TCP; more wait in the listen backlog.
    static let maximumConnections = 4
    static let serialReopenSeconds = 5.0

    private let provider: BandStore
    private let listener: TCPListener?
    private var connections: [SyncServerConnection] = []
    private let serialPath: String?
    private let serialBaudRate: Int
    private var serial: SyncServerConnection?
    private var serialReopenAt = 0.0
    private var acceptPausedUntil = 0.0
    private let logger: Logger

    init(provider: BandStore, listener: TCPListener?, serialPath: String?, serialBaudRate: Int, serial: (any ByteStream)?, logger: Logger) {
        self.provider = provider
        self.listener = listener
        self.serialPath = serialPath
        self.serialBaudRate = serialBaudRate
        self.serial = serial.map { SyncServerConnection(stream: $0, provider: provider) }
        self.logger = logger
    }

    var pollDescriptors: [Int32] {
        var descriptors = connections.map(\.pollDescriptor)
        if let listener, connections.count < Self.maximumConnections { descriptors.append(listener.pollDescriptor) }
        if let serial { descriptors.append(serial.pollDescriptor) }
        return descriptors
    }

    /// Accepts new companions and answers every request that arrived; `now` in band seconds.
    func service(now: Double) {
        if let listener, connections.count < Self.maximumConnections, now >= acceptPausedUntil {
            do {
                while connections.count < Self.maximumConnections, let connection = try listener.accept() {
                    logger.info("companion connected from \(connection.peerName)")
                    connections.append(SyncServerConnection(stream: connection, provider: provider))
                }
            } catch {
                // Out of descriptors or memory: say so once a second, not once a tick.
                logger.warning("accepting a companion failed: \(error)")
                acceptPausedUntil = now + 1
            }
        }
        connections.removeAll { connection in
            let alive = connection.service()
            if !alive { logger.info("companion \(connection.peerName) disconnected") }
            return !alive
        }
        if let link = serial, !link.service() {
            logger.warning("serial link \(link.peerName) closed; reopening it every \(Int(Self.serialReopenSeconds)) s")
            serial = nil
            serialReopenAt = now + Self.serialReopenSeconds
        }
        if serial == nil, let serialPath, now >= serialReopenAt {
            do {
                serial = SyncServerConnection(stream: try LinuxSerialPort(path: serialPath, baudRate: serialBaudRate), provider: provider)
                logger.info("serial link \(serialPath) open again")
            } catch {
                serialReopenAt = now + Self.serialReopenSeconds
            }
        }
    }

    func close() {
        connections.forEach { $0.close() }
        connections.removeAll()
        serial?.close()
    }
}
