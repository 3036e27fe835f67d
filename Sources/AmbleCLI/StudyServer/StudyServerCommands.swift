import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleStudyAPI
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Joining a study on a server, uploading to it, withdrawing: the laptop's side of the study
/// server (docs/study.md, "A study on a server").
enum StudyServerJoin {
    /// Joins the study behind `code` at `endpoint`: shows the consent document, asks (unless
    /// `accept`), then records the acceptance, the study file, the arm's band settings and the
    /// tokens in `store`, and queues the consent event. Returns what to say.
    static func join(endpoint: ServerEndpoint, code: String, accept: Bool, store: CompanionStore, transport: any StudyTransport,
                     console: Console, now: Double) throws -> String {
        let preview = try StudyServerClient.preview(code: code, transport: transport)
        let text = preview.consent.text
        guard Digest.sha256Hex(Array(text.utf8)) == preview.consent.sha256.lowercased() else {
            throw CommandError("the consent document the server sent does not match its own SHA-256; nothing was accepted. Tell the research team")
        }
        console.say("\"\(printableText(preview.studyName, maximum: 120))\" asks for your consent (document version \(printableText(preview.consent.version, maximum: 40))):\n")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { console.say("    " + printableText(line, maximum: 2000)) }
        console.say("")
        if !accept {
            guard console.isInteractive else {
                throw CommandError("not joining without a terminal to ask on: read the consent document above, then pass --accept to accept it")
            }
            guard console.confirm("Do you accept it and join the study?") else {
                throw CommandError("not joined: the consent document was not accepted; nothing was sent and the code stays unused")
            }
        }
        // The server counts the questionnaires' local days in this zone; one it could not read is left out (UTC).
        let zone = localTimeZoneName().flatMap { LocalTime.zone(named: $0) != nil ? $0 : nil }
        let response = try StudyServerClient.join(JoinRequest(code: code, consentVersion: preview.consent.version,
                                                              consentSHA256: preview.consent.sha256, acceptedAt: now, timeZone: zone),
                                                  transport: transport)
        let study: Study
        do {
            study = try StudyFile.parse(text: response.studyFile, file: endpoint.baseURL)
        } catch {
            throw CommandError("joined, but the study file the server sent does not read (\(error.description)); tell the research team")
        }
        let (settings, refused) = bandSettings(response.bandSettings)
        let consent = ConsentItem(event: .accepted, version: preview.consent.version, sha256: preview.consent.sha256, at: now)
        let server = StudyServerEnrollment(baseURL: endpoint.baseURL, fingerprint: endpoint.fingerprint, participantID: response.participantID,
                                           studyID: response.studyID, consentVersion: preview.consent.version,
                                           consentSHA256: preview.consent.sha256, acceptedUnixSeconds: now, bandSettings: settings,
                                           refreshToken: response.refreshToken, accessToken: response.accessToken,
                                           accessExpiresUnixSeconds: Date().timeIntervalSince1970 + Double(response.accessExpiresIn))
        let enrollment: StudyEnrollment
        do {
            enrollment = try store.joinStudyServer(server, studyName: study.name, fileText: response.studyFile,
                                                   consentEvent: outboxItem(.consent, body: StudyServerClient.json(consent), now: now))
        } catch let error as StudyStoreError {
            throw CommandError("joined on the server, but this store cannot take the study: \(error.description)")
        }
        var lines = [StudyCommand.JoinCommand.joined(study, enrollment: enrollment, now: now, time: .system).text]
        if !settings.isEmpty {
            lines.append("The study sets your band: " + settings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                         + " (at the next `amble sync`).")
        }
        if !refused.isEmpty { lines.append("Band settings from the server not applied: " + refused.joined(separator: "; ") + ".") }
        lines.append("Walks and answers go to \(endpoint.baseURL) after each `amble sync`; `amble study status` shows what waits.")
        return lines.joined(separator: "\n")
    }

    /// The arm's band settings this build can apply (wearer settings, checked), and why the
    /// others are not.
    static func bandSettings(_ received: [String: String]) -> (settings: [String: String], refused: [String]) {
        var settings: [String: String] = [:], refused: [String] = []
        for (key, value) in received.sorted(by: { $0.key < $1.key }) {
            let shown = printableText(key, maximum: 40)
            guard let setting = BandSetting(rawValue: key), setting.owner == .wearer, setting != .bandName else {
                refused.append("\(shown) is not a band setting a study may set")
                continue
            }
            do {
                settings[key] = try setting.validate(value)
            } catch {
                refused.append(printableText(error.description, maximum: 200))
            }
        }
        return (settings, refused)
    }
}

/// A new outbox item: 128 bits from the system's CSPRNG (getrandom) as its id, the body's digest.
func outboxItem(_ kind: OutboxKind, body: [UInt8], now: Double) -> OutboxItem {
    OutboxItem(itemID: newItemID(), kind: kind, body: body, sha256: Digest.sha256Hex(body), createdUnixSeconds: now)
}

/// 32 lowercase hex digits from `SystemRandomNumberGenerator` (getrandom(2) on Linux).
func newItemID() -> String {
    var generator = SystemRandomNumberGenerator()
    return Digest.hex((0 ..< 16).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
}

/// After a sync, or by `amble study upload`: sends what waits, saying what happened in a line
/// or two.
enum StudyServerUpload {
    /// The client for the server joined in `store`, or nil when none is (or the participant withdrew).
    static func client(store: CompanionStore, connectTimeoutSeconds: Double = 10) throws -> StudyServerClient? {
        guard let server = try store.studyServer(), server.withdrawnUnixSeconds == nil else { return nil }
        let endpoint: ServerEndpoint
        do {
            endpoint = try ServerEndpoint(parsing: server.baseURL, fingerprint: server.fingerprint)
        } catch {
            throw CommandError("the study server's address kept in the store does not read: \(error.description)")
        }
        let transport = try NIOHTTPTransport(endpoint: endpoint)
        transport.connectTimeoutSeconds = connectTimeoutSeconds
        return StudyServerClient(transport: transport, store: store)
    }

    /// What a pass or a drain did, and what waits, in words.
    static func summary(_ report: OutboxUploader.Report, store: CompanionStore) -> String {
        var lines: [String] = []
        let waiting = (try? store.outboxSummary())
        let left = waiting.map { $0.waiting.values.reduce(0, +) } ?? 0
        var first = "Study server: uploaded \(plural(report.acknowledged, "item"))"
        first += left == 0 ? ", nothing waits." : ", \(left) wait" + (report.stopped.map { " (\($0))" } ?? "") + "."
        lines.append(first)
        for held in report.held { lines.append("  kept, not sent again by itself: " + held) }
        return lines.joined(separator: "\n")
    }
}

extension StudyCommand {
    struct UploadCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upload",
            abstract: "Send what waits for the study server (walks, answers, consent), each once; `amble sync` does it too.",
            discussion: """
                Every waiting item is sent at once; one that fails is tried again after a growing wait (2 s, 4 s, ... \
                with jitter) for --retry-for seconds. An item leaves the outbox only once the server acknowledged it. One \
                the server refuses for good (other bytes under its id: 409; timed outside your consent: 422) is kept and \
                shown by `amble study status`. Exit status 1 while anything waits.
                """
        )

        @ParentCommand var amble: AmbleCommand

        @Option(help: ArgumentHelp("Seconds to keep trying items that fail (0: one try each).", valueName: "seconds"))
        var retryFor: Double = 30

        func validate() throws {
            guard retryFor >= 0, retryFor <= 3600 else { throw ValidationError("--retry-for takes 0 to 3600 seconds, not \(retryFor)") }
        }

        func run() throws {
            let store = try openCompanionStore(path: amble.storePath)
            guard let client = try StudyServerUpload.client(store: store) else {
                throw CommandError("no study server joined here (or you withdrew); join with `amble study join https://HOST:PORT --code CODE`")
            }
            let clock = SystemClock()
            let started = clock.nowSeconds
            let report = OutboxUploader(store: store, client: client).drain { _, wait in
                guard clock.nowSeconds - started + wait <= retryFor else { return false }
                if wait > 0 { sleepSeconds(min(wait, 3600)) }
                return true
            }
            print(StudyServerUpload.summary(report, store: store))
            let summary = try store.outboxSummary()
            if summary.waiting.values.reduce(0, +) > 0 { throw ExitCode(1) }
        }
    }

    struct WithdrawCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "withdraw",
            abstract: "Withdraw from the study on its server: your tokens are revoked, nothing more is sent or asked.",
            discussion: """
                The server keeps or deletes what you gave as the study file says; --delete-data asks it to delete it. \
                Items not sent yet are dropped from this laptop's outbox (it says how many). Your answers and walks stay in \
                this store. It asks first; --yes does not.
                """
        )

        @ParentCommand var amble: AmbleCommand

        @Flag(help: "Ask the server to delete the data you gave.")
        var deleteData = false

        @Flag(help: "Withdraw without asking.")
        var yes = false

        func run() throws {
            let store = try openCompanionStore(path: amble.storePath)
            guard let server = try store.studyServer() else { throw CommandError("no study server joined here; `amble study leave` leaves a study joined from a file") }
            guard server.withdrawnUnixSeconds == nil, let client = try StudyServerUpload.client(store: store) else {
                throw CommandError("you withdrew from the study at \(server.baseURL) already")
            }
            print(try Self.withdraw(client: client, store: store, deleteData: deleteData, yes: yes, console: .standard, now: laptopNow()))
        }

        static func withdraw(client: StudyServerClient, store: CompanionStore, deleteData: Bool, yes: Bool, console: Console, now: Double) throws -> String {
            if !yes {
                guard console.isInteractive else { throw CommandError("not withdrawing without a terminal to ask on; pass --yes") }
                guard console.confirm("Withdraw from the study" + (deleteData ? " and ask the server to delete your data" : "") + "?") else {
                    throw CommandError("not withdrawn")
                }
            }
            let answer: WithdrawResponse
            do {
                answer = try client.withdraw(deleteData: deleteData ? true : nil)
            } catch let error as TransportError {
                throw CommandError("not withdrawn: \(error.description). Nothing changed here; run it again when the server can be reached")
            }
            let dropped = try store.withdrawFromStudyServer(nowUnixSeconds: now)
            var lines = ["Withdrawn: the server revoked this laptop's tokens, and they are forgotten here. "
                         + (answer.dataDeleted ? "The server deleted the data you gave." : "The server keeps the data you gave, as the study file says.")]
            let count = dropped.values.reduce(0, +)
            if count > 0 {
                let kinds = OutboxKind.allCases.compactMap { kind in dropped[kind].map { plural($0, kind.rawValue) } }
                lines.append("Not sent, and dropped: \(kinds.joined(separator: ", ")) (they stay in this store).")
            }
            return lines.joined(separator: "\n")
        }
    }
}

extension StudyContext {
    /// The study server's part of `amble study`: what waits, the oldest, the last error, the last upload.
    static func serverText(store: CompanionStore, time: LocalTime) throws -> String? {
        guard let server = try store.studyServer() else { return nil }
        let summary = try store.outboxSummary()
        if let withdrawn = server.withdrawnUnixSeconds {
            return "Study server \(server.baseURL): you withdrew on \(time.dateAndClock(withdrawn)); nothing is sent."
        }
        let count = summary.waiting.values.reduce(0, +)
        var lines: [String] = []
        if count == 0 {
            lines.append("Study server \(server.baseURL): nothing waits to upload.")
        } else {
            let kinds = OutboxKind.allCases.compactMap { kind in summary.waiting[kind].map { plural($0, kind.rawValue) } }
            lines.append("Study server \(server.baseURL): \(count) wait to upload (\(kinds.joined(separator: ", ")))"
                         + (summary.oldestWaitingUnixSeconds.map { ", the oldest since \(time.dateAndClock($0))" } ?? "") + ".")
            if let error = summary.lastError { lines.append("  last error: " + error) }
        }
        for (code, n) in summary.held.sorted(by: { $0.key < $1.key }) {
            lines.append("  KEPT, NOT SENT AGAIN: \(plural(n, "item")) refused by the server (\(code))"
                         + (code == "conflict" ? ": the server holds other bytes under the same id; tell the research team" : ""))
        }
        lines.append("  last upload: " + (server.lastUploadUnixSeconds.map { time.dateAndClock($0) } ?? "none yet")
                     + "; \(plural(summary.acknowledged, "item")) acknowledged in all.")
        return lines.joined(separator: "\n")
    }
}
