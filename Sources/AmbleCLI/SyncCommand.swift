import AmbleCompanionStore
import AmbleHardware
import AmbleLinux
import AmbleSync
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble sync`: pulls the band's new sessions into the store, never twice.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull the sessions this store does not have yet from a band.",
        discussion: "Sessions already stored (by band and band session id) are never pulled twice."
    )

    @ParentCommand var amble: AmbleCommand

    @Option(help: ArgumentHelp("The band's address (ambled --listen).", valueName: "host:port"))
    var tcp: String?

    @Option(help: ArgumentHelp("The serial device the band is on (ambled --serial).", valueName: "device"))
    var serial: String?

    @Option(help: ArgumentHelp("Baud rate of --serial.", valueName: "rate"))
    var baud: Int = 115_200

    @Option(help: ArgumentHelp("Seconds to wait for each answer.", valueName: "seconds"))
    var timeout: Double = 15

    func validate() throws {
        guard (tcp == nil) != (serial == nil) else { throw ValidationError("give either --tcp HOST:PORT or --serial DEVICE") }
        if let tcp, HostPort(parsing: tcp) == nil { throw ValidationError("--tcp must be HOST:PORT, e.g. 127.0.0.1:7070") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() throws {
        let store = try openCompanionStore(path: amble.storePath)
        let stream: any ByteStream
        do {
            if let tcp, let target = HostPort(parsing: tcp) {
                stream = try TCPConnection.connect(to: target, timeoutSeconds: timeout)
            } else {
                stream = try LinuxSerialPort(path: serial!, baudRate: baud)
            }
        } catch {
            throw ValidationError("cannot reach the band: \(error)")
        }
        defer { stream.close() }
        let result = try Synchronizer(store: store, client: SyncClient(stream: stream, timeoutSeconds: timeout)).run()
        print("band \(result.bandName) (\(result.bandID)): \(result.pulled.count) new session\(result.pulled.count == 1 ? "" : "s"), \(result.alreadyStored) already here")
        for id in result.pulled {
            if let (session, _) = try store.session(id: id) {
                print("  #\(id) \(session.summary.kind.rawValue) \(isoDate(session.summary.startUnixSeconds)) \(session.summary.steps) steps")
            }
        }
    }
}

/// One sync: list the band's finished sessions, fetch those not stored, store each in a
/// transaction. Interrupted half-way, the next sync fetches what is missing.
struct Synchronizer {
    struct Result {
        var bandID: String
        var bandName: String
        /// Local ids of the sessions stored by this sync.
        var pulled: [Int64]
        var alreadyStored: Int
    }

    let store: CompanionStore
    let client: SyncClient

    func run() throws -> Result {
        let band = try client.hello(client: "amble")
        let known = try store.storedBandSessionIDs(bandID: band.id)
        let listing = try client.listSessions()
        var pulled: [Int64] = []
        for item in listing where !known.contains(item.id) {
            let record = try client.session(id: item.id)
            if let id = try store.insert(bandID: band.id, bandName: band.name, bandSessionID: item.id, record: record,
                                         syncedAtUnixSeconds: Date().timeIntervalSince1970) {
                pulled.append(id)
            }
        }
        return Result(bandID: band.id, bandName: band.name, pulled: pulled, alreadyStored: listing.count - pulled.count)
    }
}
