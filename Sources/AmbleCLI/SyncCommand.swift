import AmbleCompanionStore
import AmbleHardware
import AmbleLinux
import AmbleModel
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
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
        if serial == nil && baud != 115_200 { throw ValidationError("--baud is for --serial") }
        guard LinuxSerialPort.standardBaudRates[baud] != nil else {
            throw ValidationError("--baud \(baud) is not a standard rate (9600, 19200, 38400, 57600, 115200, 230400, ...)")
        }
    }

    func run() throws {
        let store = try openCompanionStore(path: amble.storePath, create: true)
        let stream: any ByteStream
        do {
            if let tcp, let target = HostPort(parsing: tcp) {
                stream = try TCPConnection.connect(to: target, timeoutSeconds: timeout)
            } else {
                stream = try LinuxSerialPort(path: serial!, baudRate: baud)
            }
        } catch {
            throw CommandError("cannot reach the band: \(error)")
        }
        defer { stream.close() }
        let result = try Synchronizer(sink: store, client: SyncClient(stream: stream, timeoutSeconds: timeout)).run()
        print("band \(result.bandName) (\(result.bandID)): \(result.pulled.count) new session\(result.pulled.count == 1 ? "" : "s"), \(result.alreadyStored) already here")
        for (id, reason) in result.refused {
            print("  band session \(id) not pulled: \(reason)")
        }
        for (id, summary) in result.pulled {
            print("  #\(id) \(summary.kind.rawValue) \(isoDate(summary.startUnixSeconds)) \(summary.steps) steps")
        }
    }
}
