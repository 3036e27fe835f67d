import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a command asks its questions: the terminal in use, or a script in the tests.
struct Console {
    /// Standard input is a terminal, so a person can answer.
    var isInteractive: Bool
    /// Shows the prompt and returns the line answered (nil at end of input).
    var ask: (String) -> String?
    var say: (String) -> Void

    static var standard: Console {
        Console(isInteractive: standardInputIsTerminal(),
                ask: { prompt in
                    print(prompt, terminator: "")
                    return readLine()
                },
                say: { print($0) })
    }

    /// Asks a yes/no question whose default is no: true only for `y` or `yes` (any case).
    func confirm(_ question: String) -> Bool {
        guard let answer = ask(question + " [y/N] ") else { return false }
        let word = answer.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined().lowercased()
        return word == "y" || word == "yes"
    }
}

/// `amble sessions delete ID…`: removes sessions from this laptop's store.
struct DeleteSessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete sessions from this laptop's store (the band's copy is not touched).",
        discussion: """
            Asks first; --yes does not (needed without a terminal). When an id is not in the store, nothing is deleted. \
            A deleted session is not pulled again by a later sync. To wipe the band, use amble band delete-all.
            """
    )

    @ParentCommand var amble: AmbleCommand

    @Argument(help: "Session ids from `amble sessions list`.")
    var ids: [Int64]

    @Flag(help: "Delete without asking.")
    var yes = false

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("give the ids of the sessions to delete (`amble sessions list` shows them)") }
    }

    func run() throws {
        try Self.delete(ids: ids, yes: yes, store: openCompanionStore(path: amble.storePath), console: .standard)
    }

    /// Deletes the sessions once confirmed (or with `yes`); returns what was deleted, empty
    /// when the person said no.
    @discardableResult
    static func delete(ids: [Int64], yes: Bool, store: CompanionStore, console: Console, time: LocalTime = .system) throws -> [CompanionSession] {
        let sessions: [CompanionSession]
        do {
            sessions = try store.sessions(ids: ids)
        } catch let error as CompanionStoreError {
            throw CommandError("\(error); nothing deleted. `amble sessions list` shows the ids")
        }
        let labels = SessionText.bandLabels(try store.sessions())
        let described = sessions.map { describe($0, labels: labels, time: time) }
        if !yes {
            guard console.isInteractive else {
                throw CommandError("not deleting without a terminal to ask on; pass --yes to delete \(sessions.count == 1 ? "it" : "them") anyway")
            }
            described.forEach { console.say("  " + $0) }
            guard console.confirm("Delete \(sessions.count == 1 ? "this session" : "these \(sessions.count) sessions") from this laptop?") else {
                console.say("Nothing deleted.")
                return []
            }
        }
        let deleted: [CompanionSession]
        do {
            deleted = try store.deleteSessions(ids: sessions.map(\.id))
        } catch let error as CompanionStoreError {
            throw CommandError("\(error); nothing deleted")
        }
        for session in deleted { console.say("Deleted " + describe(session, labels: labels, time: time)) }
        console.say("From this laptop's store only: the band keeps its copy until it is wiped (amble band delete-all).")
        return deleted
    }

    static func describe(_ session: CompanionSession, labels: [String: String], time: LocalTime) -> String {
        let s = session.summary
        return "#\(session.id) \(s.kind.rawValue) \(localDateTime(s.startUnixSeconds, in: time)), \(formatDuration(s.durationSeconds)), "
            + "\(s.steps) steps, from \(labels[session.bandID] ?? session.bandName)"
    }
}

/// `amble reset`: deletes every session from this laptop's store and has each paired band
/// wiped at its next sync.
struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete every session from this laptop's store, and wipe each paired band at its next sync.",
        discussion: """
            Asks twice; --yes-really does not (needed without a terminal). The laptop's key, the paired bands and how far \
            each was synced stay, so the next sync brings only sessions recorded after. At each paired band's next \
            `amble sync`, after its new sessions are pulled, the band is asked to delete everything (the wearer confirms \
            on the band, as with amble band delete-all); if the wearer says no, the wipe is dropped; if nobody answers or \
            the band is busy, the sync after asks again. --keep-bands leaves the bands alone.
            """
    )

    @ParentCommand var amble: AmbleCommand

    @Flag(help: "Delete without asking.")
    var yesReally = false

    @Flag(help: "Do not wipe the paired bands at their next sync: this laptop's store only.")
    var keepBands = false

    func run() throws {
        try Self.reset(yesReally: yesReally, keepBands: keepBands, store: openCompanionStore(path: amble.storePath), storePath: amble.storePath,
                       console: .standard, nowUnixSeconds: Date().timeIntervalSince1970)
    }

    /// Deletes every session once confirmed twice (or with `yesReally`), and unless
    /// `keepBands` leaves a wipe for each paired band's next sync; returns how many sessions
    /// were deleted, nil when the person said no.
    @discardableResult
    static func reset(yesReally: Bool, keepBands: Bool = false, store: CompanionStore, storePath: String, console: Console,
                      nowUnixSeconds: Double = 0) throws -> Int? {
        let sessions = try store.sessions()
        let bands = Set(sessions.map(\.bandID)).count
        let toWipe = keepBands ? [] : try store.pairedBands()
        let wipeText = toWipe.isEmpty ? "" : ", and wipe \(toWipe.count == 1 ? "the paired band" : "the \(toWipe.count) paired bands") "
            + "(\(toWipe.map(\.name).joined(separator: ", "))) at \(toWipe.count == 1 ? "its" : "their") next sync"
        if !yesReally {
            guard console.isInteractive else {
                throw CommandError("not resetting without a terminal to ask on; pass --yes-really to delete every session anyway")
            }
            guard !sessions.isEmpty || !toWipe.isEmpty else {
                console.say("The store \(storePath) holds no sessions and no paired band; nothing to delete.")
                return 0
            }
            let what = "\(sessions.count) session\(sessions.count == 1 ? "" : "s") from \(bands) band\(bands == 1 ? "" : "s")"
            guard console.confirm("Delete all \(what) from \(storePath)\(wipeText)?"),
                  console.confirm("This cannot be undone, and a sync does not pull them again. Really delete them all?") else {
                console.say("Nothing deleted.")
                return nil
            }
        }
        let count = try store.deleteAllSessions()
        try store.requestBandWipe(bandIDs: toWipe.map(\.id), nowUnixSeconds: nowUnixSeconds)
        console.say("Deleted \(count) session\(count == 1 ? "" : "s") from \(storePath). Pairings stay; the next sync brings only new sessions.")
        if toWipe.isEmpty {
            console.say("The bands keep theirs: wipe a band with amble band delete-all [--band NAME] (the wearer confirms on it).")
        } else {
            for band in toWipe {
                console.say("\(band.name): its next amble sync asks the wearer to delete everything on the band (select on the band wipes it, back keeps it).")
            }
        }
        return count
    }
}
