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

/// `amble sync`: pulls the band's new sessions into the store, never twice, resuming a cut one.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull the sessions this store does not have yet from a paired band.",
        discussion: """
            Sessions already stored (by band and band session id) are never pulled twice. A sync that is cut \
            keeps what it finished and the part of the session under way; the next one resumes there. The band \
            marks a session synced only after this store has committed it.
            """
    )

    @ParentCommand var amble: AmbleCommand
    @OptionGroup var target: PairedBandOptions

    @Flag(help: "Print one JSON object with the result (no progress bar).")
    var json = false

    func run() throws {
        let store = try openCompanionStore(path: amble.storePath)
        // Timed from before the connection: the handshake counts.
        let started = Date().timeIntervalSince1970
        let (link, band) = try target.connect(store: store)
        defer { link.close() }
        let bar = json || !standardErrorIsTerminal() ? nil : ProgressBar()
        do {
            let result = try Synchronizer(sink: store, link: link).run { progress in bar?.show(progress) }
            bar?.finish()
            let seconds = Date().timeIntervalSince1970 - started
            if json {
                print(Self.json(result, seconds: seconds, interrupted: nil))
            } else {
                print(Self.summary(result, seconds: seconds))
            }
            pushStudyReminder(store: store, link: link, bandName: band.name)
        } catch let interrupted as Synchronizer.Interrupted {
            bar?.finish()
            if json {
                print(Self.json(interrupted.result, seconds: Date().timeIntervalSince1970 - started, interrupted: interrupted))
            }
            throw CommandError("\(band.name): \(interrupted.description) Run amble sync again to continue.")
        }
    }

    /// After the sessions are pulled: the band's reminder for the study's due questionnaires
    /// (Study/StudyReminderPush.swift), when a study joined here asks for one. Never fails the sync.
    func pushStudyReminder(store: CompanionStore, link: CompanionLink, bandName: String) {
        guard let line = StudyReminderPush.push(store: store, link: link, bandName: bandName, now: laptopNow(), time: .system) else { return }
        if json { _ = writeStandardError(line + "\n") } else { print(line) }
    }

    static func summary(_ result: Synchronizer.Result, seconds: Double) -> String {
        let count = result.pulled.count
        var lines = ["\(result.bandName) (\(result.bandID.prefix(8))): \(count) new session\(count == 1 ? "" : "s"), \(result.alreadyStored) already here, "
                     + "\(result.bytesReceived) bytes in \(String(format: "%.1f", seconds)) s"
                     + (result.resentRequests > 0 ? ", \(result.resentRequests) request(s) sent again after damage" : "")]
        for pulled in result.pulled {
            let s = pulled.summary
            lines.append("  #\(pulled.localID) \(s.kind.rawValue) \(localDateTime(s.startUnixSeconds)) \(s.steps) steps"
                         + (pulled.resumedBytes > 0 ? " (resumed after \(pulled.resumedBytes) bytes)" : ""))
        }
        for refused in result.refused {
            lines.append("  band session \(refused.bandSessionID) not pulled: \(refused.reason)")
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ result: Synchronizer.Result, seconds: Double, interrupted: Synchronizer.Interrupted?) -> String {
        let pulled = result.pulled.map { p in
            "{\"id\": \(p.localID), \"band_session_id\": \(p.bandSessionID), \"kind\": \(SessionJSON.string(p.summary.kind.rawValue)), "
                + "\"start\": \(SessionJSON.string(isoDate(p.summary.startUnixSeconds))), \"steps\": \(p.summary.steps), \"resumed_bytes\": \(p.resumedBytes)}"
        }
        let refused = result.refused.map { "{\"band_session_id\": \($0.bandSessionID), \"reason\": \(SessionJSON.string($0.reason))}" }
        var fields: [(String, String)] = [
            ("band_id", SessionJSON.string(result.bandID)), ("band_name", SessionJSON.string(result.bandName)),
            ("pulled", "[" + pulled.joined(separator: ", ") + "]"), ("already_stored", String(result.alreadyStored)),
            ("refused", "[" + refused.joined(separator: ", ") + "]"), ("bytes_received", String(result.bytesReceived)),
            ("resent_requests", String(result.resentRequests)), ("seconds", SessionJSON.number(seconds, digits: 3)),
            ("completed", interrupted == nil ? "true" : "false"),
        ]
        if let interrupted {
            fields.append(("error", SessionJSON.string(interrupted.cause.description)))
            if let partial = interrupted.partial {
                fields.append(("partial", "{\"band_session_id\": \(partial.bandSessionID), \"bytes\": \(partial.bytes), \"of\": \(partial.of)}"))
            }
        }
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }
}

/// A one-line progress bar on standard error: sessions and bytes.
final class ProgressBar {
    private var lastDrawn = ""

    func show(_ p: SyncProgress) {
        let width = 30
        let fraction = p.bytesTotal > 0 ? Double(p.bytesDone) / Double(p.bytesTotal) : (p.sessionsTotal > 0 ? Double(p.sessionsDone) / Double(p.sessionsTotal) : 1)
        let filled = Int((fraction * Double(width)).rounded(.down))
        let line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + "\(p.sessionsDone)/\(p.sessionsTotal) sessions, \(kilobytes(p.bytesDone))/\(kilobytes(p.bytesTotal))"
        guard line != lastDrawn else { return }
        lastDrawn = line
        writeStandardError("\r\u{1B}[2K" + line)
    }

    func finish() {
        if !lastDrawn.isEmpty { writeStandardError("\r\u{1B}[2K") }
    }

    private func kilobytes(_ bytes: Int) -> String {
        bytes < 10_000 ? "\(bytes) B" : "\(bytes / 1000) kB"
    }
}
