import AmbleCompanion
import AmbleStoreSupport
import AmbleCompanionStore
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleStudyAPI
import AmbleSync
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the band is: `--tcp HOST:PORT` or `--serial DEVICE`, shared by every command that
/// talks to a band.
struct BandAddressOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The band's address (ambled --listen).", valueName: "host:port"))
    var tcp: String?

    @Option(help: ArgumentHelp("The serial device the band is on (ambled --serial).", valueName: "device"),
            completion: .shellCommand("ls -d /dev/tty* 2>/dev/null"))
    var serial: String?

    @Option(help: ArgumentHelp("Baud rate of --serial.", valueName: "rate"))
    var baud: Int = 115_200

    @Option(help: ArgumentHelp("Seconds without an answer before giving up.", valueName: "seconds"))
    var timeout: Double = 15

    /// Whether an address was given (commands that can find one in the store allow none).
    var isGiven: Bool { tcp != nil || serial != nil }

    func validate() throws {
        guard tcp == nil || serial == nil else { throw ValidationError("give either --tcp HOST:PORT or --serial DEVICE, not both") }
        if let tcp, HostPort(parsing: tcp) == nil { throw ValidationError("--tcp must be HOST:PORT, e.g. 127.0.0.1:7070") }
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
        if serial == nil && baud != 115_200 { throw ValidationError("--baud is for --serial") }
        guard LinuxSerialPort.standardBaudRates[baud] != nil else {
            throw ValidationError("--baud \(baud) is not a standard rate (9600, 19200, 38400, 57600, 115200, 230400, ...)")
        }
    }

    /// The address as the store keeps it (`127.0.0.1:7070`, `/dev/ttyUSB0`).
    var address: String? { tcp ?? serial }

    /// Opens the link to `address`.
    static func open(_ address: String, baud: Int, timeout: Double) throws -> any ByteStream {
        do {
            if let target = HostPort(parsing: address), !address.hasPrefix("/") {
                return try TCPConnection.connect(to: target, timeoutSeconds: timeout)
            }
            return try LinuxSerialPort(path: address, baudRate: baud)
        } catch {
            throw CommandError("cannot reach the band: \(error)")
        }
    }
}

/// A paired band to talk to: which one (`--band`, or the one last seen at the address, or the
/// only one paired) and where.
struct PairedBandOptions: ParsableArguments {
    @OptionGroup var link: BandAddressOptions

    @Option(help: ArgumentHelp("Which paired band (`amble bands`): its name or the start of its id. Needed when several are paired and the address does not tell.", valueName: "band"))
    var band: String?

    /// Picks the band and its address.
    func target(in store: CompanionStore) throws -> (band: PairedBand, address: String) {
        let bands = try store.pairedBands()
        guard !bands.isEmpty else {
            throw CommandError("no band is paired with this laptop yet: put the band in pairing mode (menu: Pair laptop) and run amble pair --tcp HOST:PORT")
        }
        let chosen: PairedBand
        if let band {
            guard let found = try store.band(matching: band) else {
                throw CommandError("no paired band matches \"\(band)\"; `amble bands` lists them")
            }
            chosen = found
        } else if let address = link.address, let found = bands.first(where: { $0.address == address }) {
            chosen = found
        } else if bands.count == 1 {
            chosen = bands[0]
        } else {
            throw CommandError("\(bands.count) bands are paired (\(bands.map(\.name).joined(separator: ", "))); say which with --band NAME")
        }
        guard let address = link.address ?? chosen.address else {
            throw CommandError("where is \(chosen.name)? give --tcp HOST:PORT or --serial DEVICE")
        }
        return (chosen, address)
    }

    /// Connects to the paired band over a secure channel, trying again for a few seconds
    /// while the band says it is busy. With `stop`, a signal ends the pauses and the link's
    /// waits (`SyncError.interrupted`, thrown as it is).
    func connect(store: CompanionStore, stop: StopSignals? = nil) throws -> (link: CompanionLink, band: PairedBand) {
        let (band, address) = try target(in: store)
        // The key first: a connection's first message should follow it at once.
        let keyPair = try laptopKeyPair(store)
        let link: CompanionLink
        do {
            link = try CompanionLink.connectToPairedBand(open: { try BandAddressOptions.open(address, baud: self.link.baud, timeout: self.link.timeout) },
                                                         laptopKeyPair: keyPair, bandPublicKey: band.publicKey, clock: SystemClock(),
                                                         timeoutSeconds: self.link.timeout,
                                                         isInterrupted: { stop?.isStopRequested ?? false }) { seconds in
                writeStandardError("\(band.name) is busy; trying again in \(String(format: "%.1f", seconds)) s\n")
                if let stop { stop.pause(seconds) } else { sleepSeconds(seconds) }
            }
        } catch let error as CommandError {
            throw error
        } catch SyncError.interrupted(let peer) {
            throw SyncError.interrupted(peer: peer)
        } catch SyncError.refused(_, let refusal) where refusal.code == .busy {
            let tries = CompanionLink.busyRetryPauses.count + 1
            throw CommandError("\(band.name) is busy serving other laptops (\(tries) tries in about 5 s); try again in a minute")
        } catch {
            throw CommandError(explain(error, band: band.name))
        }
        do {
            try store.setAddress(bandID: band.id, address: address)
        } catch {
            link.close()
            throw error
        }
        return (link, band)
    }
}

/// The laptop's static key pair, made on first use and kept in the store (0600).
func laptopKeyPair(_ store: CompanionStore) throws -> NoiseKeyPair {
    do {
        return try NoiseKeyPair(privateKey: try store.laptopPrivateKey { NoiseKeyPair.generate().privateKey })
    } catch {
        throw CommandError("cannot read or make this laptop's key in the store: \(errorSentence(error))")
    }
}

/// A link error in words that say what to do.
func explain(_ error: any Error, band: String) -> String {
    guard let error = error as? SyncError else { return "\(error)" }
    switch error {
    case .refused(_, let refusal) where refusal.code == .notPaired:
        return "\(band) does not know this laptop (it was wiped, or its laptops were forgotten): pair again with amble pair"
    case .refused(_, let refusal) where refusal.code == .busy:
        return "\(band) is busy serving other laptops; try again in a minute"
    default:
        return error.description
    }
}

/// The laptop's name as the band shows it: the host name.
func laptopName() -> String {
    hostName().map { String($0.prefix(32)) } ?? "laptop"
}

// MARK: Where the store and the link meet

extension CompanionStore: SessionSink {
    /// Keeps a session pulled by `Synchronizer`, stamped with the time now.
    /// A server study joined here gets the band's bytes in its outbox in the same transaction.
    public func store(bandID: String, bandName: String, bandSessionID: Int64, record: SessionRecord, data: [UInt8]) throws -> Int64? {
        try insert(bandID: bandID, bandName: bandName, bandSessionID: bandSessionID, record: record, syncedAtUnixSeconds: Date().timeIntervalSince1970,
                   outbox: OutboxSessionItem(itemID: newItemID(), body: data, sha256: Digest.sha256Hex(data)))
    }

    public func syncCompleted(bandID: String, bandName: String) throws {
        try markSynced(bandID: bandID, bandName: bandName, nowUnixSeconds: Date().timeIntervalSince1970)
    }

    public func bandRecording(bandID: String, _ recording: [SyncMessage.RecordingEntry]?) throws {
        try setBandRecording(bandID: bandID, recording?.map { ($0.id, $0.kind, $0.startUnixSeconds, $0.recordedSeconds) },
                             seenUnixSeconds: Date().timeIntervalSince1970)
    }
}
