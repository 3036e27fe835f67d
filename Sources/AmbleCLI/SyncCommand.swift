import AmbleCompanion
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
            marks a session synced only after this store has committed it. A session the band is still recording \
            is named, and comes with the first sync after it ends. After `amble reset`, the sync then asks the \
            band's wearer to wipe the band (see amble reset --help). A session the band listed but did not send \
            (it failed its check, or the band cannot read it) is named, and the command exits with status 1.
            """
    )

    @ParentCommand var amble: AmbleCommand
    @OptionGroup var target: PairedBandOptions

    @Flag(help: "Print one JSON object with the result (no progress bar).")
    var json = false

    @Option(help: ArgumentHelp("Seconds to wait for the wearer when the band is to be wiped after amble reset.", valueName: "seconds"))
    var wearerWait: Double = 130

    func validate() throws {
        guard wearerWait >= 0, wearerWait <= 600 else { throw ValidationError("--wearer-wait takes 0 to 600 seconds, not \(wearerWait)") }
    }

    func run() throws {
        let store = try openCompanionStore(path: amble.storePath)
        // From here on Ctrl-C and SIGTERM stop the sync cleanly: what arrived is kept, the band
        // hears a goodbye (so the next sync gets in at once), and the person reads what is kept.
        let stop = StopSignals()
        // Timed from before the connection (the handshake counts), on the monotonic clock.
        let clock = SystemClock()
        let started = clock.nowSeconds
        let link: CompanionLink, band: PairedBand
        do {
            (link, band) = try target.connect(store: store, stop: stop)
        } catch SyncError.interrupted {
            writeStandardError("Stopped (\(stop.name)) before the sync began; nothing changed.\n")
            throw ExitCode(stop.exitCode)
        }
        defer { link.close() }
        let bar = json || !standardErrorIsTerminal() ? nil : ProgressBar()
        do {
            let result = try Synchronizer(sink: store, link: link).run { progress in bar?.show(progress) }
            bar?.finish()
            let seconds = clock.nowSeconds - started
            if !json { print(Self.summary(result, seconds: seconds)) }
            flushStandardOutput()
            var wipe: WipeOutcome?
            if !stop.isStopRequested {
                GoalsAfterSync.run(store: store, link: link, bandName: band.name, quiet: json)
                pushStudyReminder(store: store, link: link, bandName: band.name)
                say(StudyBandSettingsPush.push(store: store, link: link, bandID: band.id, bandName: band.name, now: Date().timeIntervalSince1970))
                wipe = try wipeAfterReset(link: link, band: band, store: store)
            }
            if json { print(Self.json(result, seconds: seconds, interrupted: nil, wipe: wipe)) }
            if !stop.isStopRequested {
                link.close()
                say(Self.uploadToStudyServer(store: store))
            }
            if stop.isStopRequested {
                writeStandardError("Stopped (\(stop.name)) after the sessions were pulled: they are all kept. "
                                   + "The goals' line, a study's reminder and a wipe amble reset asked for wait for the next amble sync.\n")
                throw ExitCode(stop.exitCode)
            }
            if let stuck = Self.stuck(result, bandName: band.name) { throw stuck }
        } catch let interrupted as Synchronizer.Interrupted {
            bar?.finish()
            if json {
                print(Self.json(interrupted.result, seconds: clock.nowSeconds - started, interrupted: interrupted))
            }
            if case .interrupted = interrupted.cause {
                writeStandardError("\(band.name): sync stopped (\(stop.name)). \(interrupted.kept) Run amble sync again to go on.\n")
                throw ExitCode(stop.exitCode)
            }
            throw CommandError("\(band.name): \(interrupted.description) Run amble sync again to continue.")
        }
    }

    /// What became of a wipe `amble reset` left for this band's next sync.
    enum WipeOutcome: String {
        /// The band deleted everything; the laptop forgot it (pair again to use it).
        case done
        /// The wearer kept the band's data: the wipe is dropped.
        case declined
        /// No answer in time, or the band was busy: the next sync asks again.
        case pending
    }

    /// After `amble reset`: asks the band's wearer to wipe the band, once its new sessions are
    /// here. Says on standard error what it waits for and how it ended.
    func wipeAfterReset(link: CompanionLink, band: PairedBand, store: CompanionStore) throws -> WipeOutcome? {
        guard let requested = try store.bandWipeRequested(bandID: band.id) else { return nil }
        let say: (String) -> Void = { writeStandardError($0 + "\n") }
        say("\(band.name): amble reset (\(localDateTime(requested))) asked for this band to be wiped.")
        let state: SyncMessage.DeleteAllState
        do {
            state = try askBandToWipe(link, bandName: band.name, wait: wearerWait, say: say)
        } catch SyncError.failed(_, let code, let message) where code == .busy {
            say("\(band.name) is busy (\(message)); nothing deleted. The next amble sync asks again.")
            return .pending
        } catch SyncError.interrupted {
            say("Stopped while \(band.name) asked its wearer; if the wearer confirms on the band it is wiped, otherwise the next amble sync asks again.")
            return .pending
        } catch let error as SyncError {
            throw CommandError("the sessions are synced, but the wipe was not asked: \(explain(error, band: band.name)). The next amble sync asks again.")
        }
        switch state {
        case .done:
            _ = try store.unpair(bandID: band.id)
            try store.clearBandWipeRequest(bandID: band.id)
            say("\(band.name) is wiped and no longer paired: pair again (amble pair) to use it with this laptop.")
            return .done
        case .declined:
            try store.clearBandWipeRequest(bandID: band.id)
            say("The wearer kept the band's data (or did not answer on the band in two minutes); the wipe is dropped. amble band delete-all asks again.")
            return .declined
        case .awaitingWearer, .none:
            say("No answer from the wearer within \(Int(wearerWait)) s; nothing deleted. The next amble sync asks again.")
            return .pending
        }
    }

    /// After the sessions are pulled: the band's reminder for the study's due questionnaires
    /// (Study/StudyReminderPush.swift), when a study joined here asks for one. Never fails the sync.
    func pushStudyReminder(store: CompanionStore, link: CompanionLink, bandName: String) {
        say(StudyReminderPush.push(store: store, link: link, bandName: bandName, now: laptopNow(), time: .system))
    }

    /// A line after the summary: on standard output, or on standard error beside --json.
    func say(_ line: String?) {
        guard let line else { return }
        if json { _ = writeStandardError(line + "\n") } else { print(line) }
    }

    /// After the band's sessions are in: one pass over the outbox of a study server joined here
    /// (items whose backoff is over). Never fails the sync: a server that cannot be reached is
    /// a line, and what waits is sent by a later sync or `amble study upload`.
    static func uploadToStudyServer(store: CompanionStore) -> String? {
        do {
            guard let client = try StudyServerUpload.client(store: store, connectTimeoutSeconds: 5) else { return nil }
            guard try !store.outboxItemsDue(nowUnixSeconds: client.now()).isEmpty else { return nil }
            return StudyServerUpload.summary(OutboxUploader(store: store, client: client).pass(), store: store)
        } catch {
            return "Study server: nothing uploaded (\(error)); `amble study upload` tries again."
        }
    }

    /// The sessions the band listed that did not come (refused, or failed their check): each
    /// named with the band's reason, and what to do. Nil when every one came.
    static func stuck(_ result: Synchronizer.Result, bandName: String) -> CommandError? {
        guard !result.refused.isEmpty else { return nil }
        let sessions = result.refused.map { "band session \($0.bandSessionID): \(printableText($0.reason, maximum: SyncMessage.maximumMessageLength))" }
        return CommandError("\(bandName): \(sessions.count) session\(sessions.count == 1 ? " was" : "s were") not pulled (\(sessions.joined(separator: "; "))). "
                            + "They stay on the band and the next amble sync asks for them again: run it again; "
                            + "if one still does not come, the band's log (journalctl -u ambled) says why")
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
        for recording in result.recording ?? [] {
            lines.append("  " + SessionText.recordingLine(kind: recording.kind, startUnixSeconds: recording.startUnixSeconds,
                                                          recordedSeconds: recording.recordedSeconds))
        }
        if let storage = result.storage, storage.condition != .sound {
            lines.append("  " + (storage.message.isEmpty ? "the band's store is \(storage.condition.name)" : storage.message))
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ result: Synchronizer.Result, seconds: Double, interrupted: Synchronizer.Interrupted?, wipe: WipeOutcome? = nil) -> String {
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
        if let recording = result.recording {
            let entries = recording.map {
                "{\"band_session_id\": \($0.id), \"kind\": \(SessionJSON.string($0.kind)), \"start\": \(SessionJSON.string(isoDate($0.startUnixSeconds))), "
                    + "\"recorded_seconds\": \($0.recordedSeconds)}"
            }
            fields.append(("recording", "[" + entries.joined(separator: ", ") + "]"))
        }
        if let storage = result.storage {
            fields.append(("band_storage", "{\"condition\": \(SessionJSON.string(storage.condition.name)), \"message\": \(SessionJSON.string(storage.message))}"))
        }
        if let wipe { fields.append(("band_wipe", SessionJSON.string(wipe.rawValue))) }
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
