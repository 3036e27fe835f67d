import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble study`: the study this wearer takes part in: its questionnaires, its course, joining
/// it, and exporting its answers with the sessions.
struct StudyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Join a study, see its questionnaires (due ones marked) and course, export its answers and sessions.",
        discussion: "A study is a TOML file (docs/study.md). Answer the due questionnaires with `amble survey`.",
        subcommands: [StatusCommand.self, JoinCommand.self, CourseCommand.self, StudyExportCommand.self, LeaveCommand.self,
                      UploadCommand.self, WithdrawCommand.self],
        defaultSubcommand: StatusCommand.self
    )

    struct StatusCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "List the study's questionnaires: due [!], completed [x], not yet open [ ], over [-]."
        )

        @ParentCommand var amble: AmbleCommand

        func run() throws {
            let store = try openCompanionStoreForReading(path: amble.storePath)
            let context = try StudyContext.read(store: store)
            print(context.statusText(now: laptopNow(), time: .system))
            if let server = try StudyContext.serverText(store: store, time: .system) { print(server) }
        }
    }

    struct JoinCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "join",
            abstract: "Join the study a file defines (checked first: a bad file names its line and key), or one on a study server.",
            discussion: """
                Joining the same study again as the same participant takes a corrected file and keeps the answers. Joining                 makes the store if there is none yet. With https://HOST:PORT and --code, the study server's consent                 document is shown and accepted (y/N, or --accept), and the study file, the band settings of your group and                 this laptop's tokens are kept here; the link's #sha256=HEX (or --fingerprint) pins the server's certificate.
                """
        )

        @ParentCommand var amble: AmbleCommand

        @Argument(help: ArgumentHelp("The study file (TOML; docs/study-example.toml is an example), or a study server's https://HOST:PORT[#sha256=HEX].",
                                     valueName: "file-or-server"),
                  completion: .file(extensions: ["toml"]))
        var file: String

        @Option(help: ArgumentHelp("The participant's id: 1-32 letters, digits, '-' or '_'. Default: a new random one.", valueName: "id"))
        var participant: String?

        @Option(help: ArgumentHelp("The join code the research team gave (with a server).", valueName: "code"))
        var code: String?

        @Option(help: ArgumentHelp("SHA-256 of the server's certificate, 64 hex digits (with https; the link's #sha256= says the same).", valueName: "hex"))
        var fingerprint: String?

        @Flag(help: "Accept the server's consent document without asking (read it first: it is printed).")
        var accept = false

        var isServer: Bool { file.lowercased().hasPrefix("https://") || file.lowercased().hasPrefix("http://") }

        func validate() throws {
            if let participant { try validateParticipantID(participant) }
            if isServer {
                guard let code, !code.isEmpty else { throw ValidationError("joining a study server needs --code CODE (the join code the research team gave)") }
                guard participant == nil else { throw ValidationError("--participant is for a study file; the server gives the participant's id") }
            } else if code != nil || fingerprint != nil || accept {
                throw ValidationError("--code, --fingerprint and --accept are for joining a study server (https://HOST:PORT)")
            }
        }

        func run() throws {
            if isServer {
                let endpoint: ServerEndpoint
                do { endpoint = try ServerEndpoint(parsing: file, fingerprint: fingerprint) } catch { throw CommandError(error.description) }
                let store = try openCompanionStore(path: amble.storePath, create: true)
                print(try StudyServerJoin.join(endpoint: endpoint, code: code ?? "", accept: accept, store: store,
                                               transport: NIOHTTPTransport(endpoint: endpoint), console: .standard, now: laptopNow()))
                return
            }
            let text: String, study: Study
            do {
                text = try StudyFile.read(path: file)
                study = try StudyFile.parse(text: text, file: file)
            } catch {
                throw CommandError(error.description)
            }
            // Joining may come before pairing: it makes the store, as `amble pair` does.
            let store = try openCompanionStore(path: amble.storePath, create: true)
            let id = try participant ?? (store.studyEnrollment().map(\.participantID) ?? randomParticipantID())
            let enrollment: StudyEnrollment
            do {
                enrollment = try store.joinStudy(participantID: id, studyName: study.name, fileName: file, fileText: text, nowUnixSeconds: laptopNow())
            } catch let error as StudyStoreError {
                throw CommandError(error.description)
            }
            let lines = Self.joined(study, enrollment: enrollment, now: laptopNow(), time: .system)
            if let warning = lines.warning { _ = writeStandardError("warning: \(warning)\n") }
            print(lines.text)
        }

        /// What joining says: the study's days, and a warning when it is over already (nothing
        /// but its end and after-walk questionnaires will be asked) or starts in more than a
        /// month.
        static func joined(_ study: Study, enrollment: StudyEnrollment, now: Double, time: LocalTime) -> (text: String, warning: String?) {
            let text = "Joined \"\(study.name)\" as participant \(enrollment.participantID): \(study.firstDay.long) to \(study.lastDay.long), "
                + "\(plural(study.questionnaires.count, "questionnaire")).\n"
                + "See what is due with `amble study`, the course with `amble study course`, and answer with `amble survey`."
            let today = time.day(now)
            let warning: String?
            if today > study.lastDay {
                let ago = today.daysSinceEpoch - study.lastDay.daysSinceEpoch
                warning = "\"\(study.name)\" ended on \(study.lastDay.long), \(plural(ago, "day")) ago: only what is due after its end "
                    + "(its end questionnaire, the walks it asks about) can be answered. Check the study file's dates with the research team, "
                    + "or leave it with `amble study leave`."
            } else if study.firstDay.daysSinceEpoch - today.daysSinceEpoch > 31 {
                warning = "\"\(study.name)\" starts on \(study.firstDay.long), in \(plural(study.firstDay.daysSinceEpoch - today.daysSinceEpoch, "day")): "
                    + "nothing is asked before then."
            } else {
                warning = nil
            }
            return (text, warning)
        }
    }

    struct LeaveCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "leave",
            abstract: "Leave the study: nothing more is asked, and the next amble sync turns its reminder off on the band.",
            discussion: """
                The answers given stay in this store, and `amble study export` still writes them, unless \
                --delete-answers deletes them (it asks first; --yes does not). Only this laptop's study_reminder is \
                turned off; the wearer's own reminder stays. Joining the same study again as the same participant takes \
                part again, with the answers kept.
                """
        )

        @ParentCommand var amble: AmbleCommand

        @Flag(help: "Also delete the answers given (after asking).")
        var deleteAnswers = false

        @Flag(help: "Delete the answers without asking (with --delete-answers).")
        var yes = false

        func validate() throws {
            if yes && !deleteAnswers { throw ValidationError("--yes is for --delete-answers") }
        }

        func run() throws {
            print(try Self.leave(store: openCompanionStore(path: amble.storePath), deleteAnswers: deleteAnswers, yes: yes,
                                 now: laptopNow(), time: .system, console: .standard))
        }

        /// Leaves the study joined in `store`; returns what to say.
        static func leave(store: CompanionStore, deleteAnswers: Bool, yes: Bool, now: Double, time: LocalTime, console: Console) throws -> String {
            let context = try StudyContext.read(store: store)
            let name = context.study.name, count = context.answers.count
            var delete = deleteAnswers && count > 0
            if delete && !yes {
                guard console.isInteractive else {
                    throw CommandError("not deleting \(plural(count, "answer")) without a terminal to ask on; pass --yes to delete them anyway")
                }
                delete = console.confirm("Delete the \(plural(count, "answer")) given to \"\(name)\" from this laptop? Export them first if the research team needs them.")
            }
            let already = context.enrollment.leftUnixSeconds
            let (left, deleted) = try store.leaveStudy(nowUnixSeconds: now, deleteAnswers: delete)
            var lines = [already.map { "You left \"\(name)\" on \(time.dateAndClock($0)) already." }
                         ?? "Left \"\(name)\" (participant \(left.participantID)): nothing more is asked."]
            if deleted > 0 {
                lines.append("Deleted \(plural(deleted, "answer")).")
            } else if count > 0 {
                lines.append("Your answers (\(count)) stay in this store: `amble study export` writes them, "
                             + "`amble study leave --delete-answers` deletes them.")
            }
            if already == nil && context.study.questionnaires.contains(where: { $0.remindAtMinutes != nil }) {
                lines.append("The next `amble sync` turns the study's reminder off on the band (a reminder you set yourself stays).")
            }
            return lines.joined(separator: "\n")
        }
    }

    struct CourseCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "course",
            abstract: "Show the study's course: the steps a participant goes through, with the questionnaires done marked."
        )

        @ParentCommand var amble: AmbleCommand

        func run() throws {
            let context = try StudyContext.read(storePath: amble.storePath)
            print(context.courseText(now: laptopNow(), time: .system))
        }
    }
}

/// A participant id names a folder of the export: letters, digits, `-`, `_`, 1 to 32 of them.
func validateParticipantID(_ id: String) throws {
    guard (1...32).contains(id.count), id.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }) else {
        throw ValidationError("participant id \"\(id)\" must be 1 to 32 letters, digits, '-' or '_' (it names the participant's export folder)")
    }
}

/// `p-` and six random hex digits.
func randomParticipantID() -> String {
    "p-" + String((0..<6).map { _ in "0123456789abcdef".randomElement()! })
}

/// The laptop's time for the study commands, seconds since 1970: the clock, or `AMBLE_NOW`
/// (YYYY-MM-DDTHH:MM[:SS], local unless it ends in Z or ±HH:MM) where a demo or a test fakes
/// the days (scripts/demo-study).
func laptopNow() -> Double {
    if let text = ProcessInfo.processInfo.environment["AMBLE_NOW"], !text.isEmpty {
        if let bound = try? TimeBound(text) { return bound.firstUnixSeconds }
        _ = writeStandardError("warning: AMBLE_NOW=\(text) is not a time (YYYY-MM-DDTHH:MM[:SS], local unless Z or ±HH:MM); using the clock\n")
    }
    return Date().timeIntervalSince1970
}

extension StudyContext {
    /// Reads it from the store at `storePath`, opened read-only.
    static func read(storePath: String) throws -> StudyContext {
        try read(store: openCompanionStoreForReading(path: storePath))
    }

    static func read(store: CompanionStore) throws -> StudyContext {
        guard let enrollment = try store.studyEnrollment() else {
            throw CommandError("no study joined in this store; join one with `amble study join FILE [--participant ID]`")
        }
        let study: Study
        do {
            study = try StudyFile.parse(text: enrollment.fileText, file: enrollment.fileName)
        } catch {
            throw CommandError("the study kept in the store no longer reads: \(error.description). Join it again with a corrected file")
        }
        return StudyContext(enrollment: enrollment, study: study, submissions: try store.studySubmissions(), answers: try store.studyAnswers(),
                            sessions: try store.sessions())
    }

    /// `amble study`: the study's days and each questionnaire's status.
    func statusText(now: Double, time: LocalTime) -> String {
        var lines = [header(now: now, time: time)]
        let entries = statuses(now: now, time: time)
        let nameWidth = max(6, (entries.map(\.questionnaire.name.count).max() ?? 0) + 2)
        let titleWidth = max(6, (entries.map(\.questionnaire.title.count).max() ?? 0) + 2)
        for (q, status) in entries {
            let mark: String, state: String
            switch status {
            case let .due(occasions):
                mark = "[!]"
                state = occasions.count == 1 ? "due " + occasions[0].label
                    : "due for \(occasions.count) walks: " + occasions.map { "#\($0.walk!.sessionID)" }.joined(separator: ", ")
            case let .completed(at, again):
                mark = "[x]"
                state = "completed \(time.dateAndClock(at))" + (again.map { "; \($0)" } ?? "")
            case let .upcoming(opens):
                mark = "[ ]"
                state = "opens \(time.dateAndClock(opens))"
            case let .waiting(why):
                mark = "[ ]"
                state = why
            case let .closed(why):
                mark = "[-]"
                state = why
            }
            lines.append("  \(mark) " + SessionText.pad(q.name, nameWidth) + SessionText.pad(q.title, titleWidth)
                         + SessionText.pad(q.due.phrase, 18) + state)
        }
        let due = entries.filter { $0.status.isDue }
        if enrollment.leftUnixSeconds != nil {
            lines.append("Nothing is asked: you left the study. `amble study join FILE --participant \(enrollment.participantID)` takes part again.")
        } else {
            lines.append(due.isEmpty ? "Nothing is due now." : "Answer with: amble survey" + (due.count == 1 ? " \(due[0].questionnaire.name)" : "   (or amble survey NAME)"))
        }
        return lines.joined(separator: "\n")
    }

    func header(now: Double, time: LocalTime) -> String {
        let today = time.day(now)
        let day = today.daysSinceEpoch - study.firstDay.daysSinceEpoch + 1
        let when: String
        if let left = enrollment.leftUnixSeconds {
            when = "left \(time.dateAndClock(left))"
        } else if today < study.firstDay {
            when = "starts \(study.firstDay.long)"
        } else if today > study.lastDay {
            when = "ended \(study.lastDay.long)"
        } else {
            when = "day \(day) of \(study.days), \(study.firstDay.long) to \(study.lastDay.long)"
        }
        return "\(study.name): participant \(enrollment.participantID), \(when)"
    }

    /// `amble study course`: the steps in order, each questionnaire's state beside it.
    func courseText(now: Double, time: LocalTime) -> String {
        var lines = [header(now: now, time: time)]
        if let description = study.description { lines.append(description) }
        guard !study.course.isEmpty else {
            lines.append("The study file describes no course; its questionnaires:")
            for q in study.questionnaires { lines.append("  - \(q.title) (\(q.due.phrase))") }
            return lines.joined(separator: "\n")
        }
        let statuses = Dictionary(statuses(now: now, time: time).map { ($0.questionnaire.name, $0.status) }, uniquingKeysWith: { a, _ in a })
        for (i, step) in study.course.enumerated() {
            var mark = "   "
            if let name = step.questionnaire, let status = statuses[name] {
                switch status {
                case .due: mark = "[!]"
                case .completed: mark = "[x]"
                case .closed: mark = "[-]"
                default: mark = "[ ]"
                }
            }
            lines.append("\(mark) \(i + 1). \(step.title)" + (step.when.map { " (\($0))" } ?? ""))
            if let text = step.text {
                for line in wrap(text, width: 76) { lines.append("       " + line) }
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// Words wrapped at `width` characters.
func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
        if !current.isEmpty && current.count + 1 + word.count > width {
            lines.append(current)
            current = ""
        }
        current += (current.isEmpty ? "" : " ") + word
    }
    if !current.isEmpty { lines.append(current) }
    return lines
}
