import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleSync
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble pair`: pairs this laptop with a band in pairing mode, with the wearer's hands.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair this laptop with a band (choose Pair laptop in the band's menu first).",
        discussion: """
            A band with a display shows a 6-digit code: check that it is the one printed here, answer y, \
            and press select on the band. A band without a display buzzes a 4-digit code (n short pulses \
            for digit n, one long pulse for 0): type it here, then press select on the band. Codes that \
            differ mean something sits between laptop and band: nothing is paired.
            """
    )

    @ParentCommand var amble: AmbleCommand
    @OptionGroup var link: BandAddressOptions

    @Option(help: ArgumentHelp("The name the band shows for this laptop. Default: the host name.", valueName: "name"))
    var name: String?

    func validate() throws {
        guard link.isGiven else { throw ValidationError("give the band's address: --tcp HOST:PORT or --serial DEVICE") }
    }

    func run() throws {
        // A new store (and its folders) is made only once the band has paired: a pairing that
        // fails leaves nothing behind. Where it could not be made is said before pairing.
        let path = amble.storePath
        let existing = storeIsMissing(path) ? nil : try openCompanionStore(path: path)
        if existing == nil, let problem = PathProblem.writing(path, makingFolders: true) {
            throw CommandError("cannot make the store \(path): \(problem.sentence(orElse: "give --store a path you can write"))")
        }
        let keyPair = try existing.map(laptopKeyPair) ?? NoiseKeyPair.generate()
        let address = link.address!
        let stream = try BandAddressOptions.open(address, baud: link.baud, timeout: link.timeout)
        let pairing = CompanionLink(stream: stream, laptopKeyPair: keyPair, clock: SystemClock(), timeoutSeconds: link.timeout)
        // Goodbye in clear, so the band frees the line at once (a serial line especially).
        defer { pairing.close() }
        var waitingShown = false
        let paired: PairedBandKey
        do {
            paired = try pairing.pair(laptopName: name ?? laptopName(), confirm: { offer in
                switch offer.method {
                case .comparison:
                    let code = offer.codes.comparisonDigits
                    print("\(offer.bandName) shows a code. This laptop's code is:\n\n    \(code.prefix(3)) \(code.suffix(3))\n")
                    flushStandardOutput()
                    return ask("Does the band show the same code? [y/N] ").lowercased().hasPrefix("y")
                case .passkey:
                    print("\(offer.bandName) buzzes a 4-digit code: n short pulses for digit n, one long pulse for 0. It repeats.")
                    for attempt in 1 ... 3 {
                        let typed = ask("Code: ")
                        if offer.passkeyMatches(typed) { return true }
                        if attempt < 3 { print("That is not the code this laptop expects; count the pulses again.") }
                    }
                    return false
                }
            }, waiting: {
                if !waitingShown {
                    print("Now press select on the band.")
                    flushStandardOutput()
                    waitingShown = true
                }
            })
        } catch let error as SyncError {
            if case .refused(_, let refusal) = error, refusal.code == .notInPairingMode {
                throw CommandError("the band is not in pairing mode: choose Pair laptop in its menu, then run this again")
            }
            throw CommandError("pairing failed: \(error)")
        }
        do {
            let store = try existing ?? openCompanionStore(path: path, create: true)
            _ = try store.laptopPrivateKey { keyPair.privateKey }
            try store.pairBand(id: paired.bandID, name: paired.bandName, publicKey: paired.bandPublicKey, address: address,
                               nowUnixSeconds: Date().timeIntervalSince1970)
        } catch {
            throw CommandError("\(paired.bandName) paired, but this laptop could not keep the pairing: \(error); "
                               + "choose Forget laptops on the band, then pair again")
        }
        print("Paired with \(paired.bandName) (\(paired.bandID)). Sync with: amble sync")
    }

    /// Asks on standard output and reads a line from standard input (a terminal, or a script
    /// that plays the wearer, as scripts/demo does).
    private func ask(_ question: String) -> String {
        print(question, terminator: "")
        flushStandardOutput()
        return readLine(strippingNewline: true) ?? ""
    }
}

/// `amble bands`: the bands paired with this laptop.
struct BandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bands", abstract: "List the bands paired with this laptop.")

    @ParentCommand var amble: AmbleCommand

    @Flag(help: "Print a JSON array.")
    var json = false

    func run() throws {
        print(Self.render(try openCompanionStoreForReading(path: amble.storePath).pairedBands(), json: json))
    }

    /// The list: local times, as every other command shows them (`time`: the machine's zone
    /// unless a test passes another); JSON keeps UTC.
    static func render(_ bands: [PairedBand], json: Bool, time: LocalTime = .system) -> String {
        if json {
            return SessionJSON.array(bands.map { band in
                SessionJSON(text: "{" + [
                    ("id", SessionJSON.string(band.id)), ("name", SessionJSON.string(band.name)),
                    ("address", band.address.map(SessionJSON.string) ?? "null"),
                    ("paired", SessionJSON.string(isoDate(band.pairedUnixSeconds))),
                    ("last_sync", band.lastSyncUnixSeconds.map { SessionJSON.string(isoDate($0)) } ?? "null"),
                    ("sessions", String(band.sessionCount)),
                ].map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
            })
        }
        guard !bands.isEmpty else {
            return "No band is paired yet. Choose Pair laptop in the band's menu, then: amble pair --tcp HOST:PORT"
        }
        var lines = [SessionText.pad("NAME", 20) + SessionText.pad("ID", 10) + SessionText.pad("ADDRESS", 22) + SessionText.pad("LAST SYNC", 18) + "SESSIONS"]
        for band in bands {
            lines.append(SessionText.pad(band.name, 20) + SessionText.pad(String(band.id.prefix(8)), 10) + SessionText.pad(band.address ?? "-", 22)
                         + SessionText.pad(band.lastSyncUnixSeconds.map { localDateTime($0, in: time) } ?? "never", 18) + String(band.sessionCount))
        }
        if let synced = bands.compactMap(\.lastSyncUnixSeconds).max() {
            lines.append("Times in \(time.zoneLabel(synced)) (set TZ for another zone).")
        }
        return lines.joined(separator: "\n")
    }
}

/// `amble unpair BAND`: forgets a band's key here (its sessions stay).
struct UnpairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair",
        abstract: "Forget a paired band on this laptop; its sessions stay in the store.",
        discussion: "The band keeps this laptop's key until the wearer chooses Forget laptops on it."
    )

    @ParentCommand var amble: AmbleCommand

    @Argument(help: "The band's name or the start of its id (`amble bands`).")
    var band: String

    func run() throws {
        let store = try openCompanionStore(path: amble.storePath)
        guard let found = try store.band(matching: band) else {
            throw CommandError("no paired band matches \"\(band)\"; `amble bands` lists them")
        }
        _ = try store.unpair(bandID: found.id)
        print("Unpaired \(found.name) (\(found.id)); its \(found.sessionCount) session(s) stay here. To forget this laptop on the band too, choose Forget laptops in its menu.")
    }
}
