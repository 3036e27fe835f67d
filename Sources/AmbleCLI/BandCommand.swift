import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `amble band ...`: the band's settings, clock and wipe, over the secure link.
struct BandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "band",
        abstract: "Read and change a paired band's settings, set its clock, or wipe it.",
        subcommands: [SettingsCommand.self, TimeCommand.self, DeleteAllCommand.self]
    )

    struct SettingsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show the band's settings, or set one.",
            usage: "amble band settings [get [KEY] | set KEY VALUE] [--tcp HOST:PORT | --serial DEVICE] [--band BAND]",
            discussion: "Settings (the wearer's): " + BandSetting.allCases.filter { $0.owner == .wearer }.map { "\($0.rawValue) (\($0.allowed))" }.joined(separator: "; ")
                + ". Set by amble sync, not by hand: goal_progress (from this laptop's goals) and study_reminder (this laptop's own, from a joined study)."
        )

        @ParentCommand var amble: AmbleCommand
        @OptionGroup var target: PairedBandOptions

        @Argument(help: ArgumentHelp("get (default) or set, then the key and, for set, the value.", valueName: "get|set KEY VALUE"))
        var words: [String] = []

        @Flag(help: "Print a JSON object of the settings.")
        var json = false

        func validate() throws {
            switch words.first ?? "get" {
            case "get":
                guard words.count <= 2 else { throw ValidationError("get takes at most one key") }
                if words.count == 2, BandSetting(rawValue: words[1]) == nil, LaptopSetting(rawValue: words[1]) == nil {
                    throw ValidationError(unknownKey(words[1]))
                }
            case "set":
                guard words.count == 3 else { throw ValidationError("set takes a key and a value, e.g. amble band settings set reduction_percent 25") }
                if let refusal = Self.setBySync[words[1]] { throw ValidationError(refusal) }
                guard let setting = BandSetting(rawValue: words[1]) else { throw ValidationError(unknownKey(words[1])) }
                do { _ = try setting.validate(words[2]) } catch { throw ValidationError(error.description) }
            default:
                throw ValidationError("\"\(words[0])\" is neither get nor set")
            }
        }

        private func unknownKey(_ key: String) -> String {
            "no setting \"\(key)\"; the band has \(BandSetting.allCases.filter { $0.owner == .wearer }.map(\.rawValue).joined(separator: ", "))"
        }

        /// The settings a sync owns (`SettingOwner`), which a person does not set by hand: why not.
        static let setBySync: [String: String] = [
            BandSetting.goalProgress.rawValue: "goal_progress is set by amble sync from this laptop's goals; change the goals with amble goals set",
            LaptopSetting.studyReminder.rawValue: "study_reminder is set by amble sync from the study joined here (amble study); the band's own reminder is reminders, reminder_time, reminder_days and reminder_text",
        ]

        func run() throws {
            let store = try openCompanionStore(path: amble.storePath)
            let (link, band) = try target.connect(store: store)
            defer { link.close() }
            let answer: SyncMessage
            do {
                if words.first == "set" {
                    answer = try link.request(.setSetting(key: words[1], value: words[2]))
                } else {
                    answer = try link.request(.getSettings)
                }
            } catch {
                throw CommandError(explain(error, band: band.name))
            }
            guard case .settings(var values) = answer else { throw CommandError("\(band.name) answered with something other than settings") }
            if words.count == 2 { values = values.filter { $0.key == words[1] } }
            if json {
                print("{" + values.map { "\(SessionJSON.string($0.key)): \(SessionJSON.string($0.value))" }.joined(separator: ", ") + "}")
                return
            }
            if words.first == "set" { print("\(band.name): set") }
            print(Self.text(values))
        }

        /// The band's settings, a line each, the ones a sync owns marked. They come from the band
        /// (an untrusted peer): keys and values are printed through printableText, so no escape
        /// sequence reaches the terminal.
        static func text(_ values: [SyncMessage.SettingValue]) -> String {
            let keys = values.map { printableText($0.key, maximum: 40) }
            let width = (keys.map(\.count).max() ?? 0) + 2
            return zip(keys, values).map { key, value in
                let note = Self.setBySync[value.key] == nil ? "" : value.key == LaptopSetting.studyReminder.rawValue
                    ? "   (this laptop's, set by amble sync from its study)" : "   (set by amble sync)"
                return SessionText.pad(key, width) + printableText(value.value, maximum: 120) + note
            }.joined(separator: "\n")
        }
    }

    struct TimeCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "time",
            abstract: "Set the band's date and time to this laptop's.",
            discussion: "A band without a real-time clock or network starts with a wrong date; sessions take their dates from it."
        )

        @ParentCommand var amble: AmbleCommand
        @OptionGroup var target: PairedBandOptions

        func run() throws {
            let store = try openCompanionStore(path: amble.storePath)
            let (link, band) = try target.connect(store: store)
            defer { link.close() }
            let now = laptopNow()   // AMBLE_NOW fakes the laptop's time (docs/study.md)
            do {
                let bandDate = try link.hello().bandUnixSeconds
                do {
                    guard case .clockSet(let moved) = try link.request(.setClock(unixSeconds: now)) else {
                        throw CommandError("\(band.name) did not confirm the time")
                    }
                    print(Self.confirmation(bandName: band.name, now: now, moved: moved, time: .system))
                } catch SyncError.failed(_, .badValue, _) {
                    throw CommandError(Self.refusal(laptop: now, band: bandDate, bandName: band.name))
                }
            } catch let error as SyncError {
                throw CommandError(explain(error, band: band.name))
            }
        }

        /// Why the band kept its date, in words: this laptop's date and the band's, local.
        static func refusal(laptop: Double, band: Double, bandName: String, time: LocalTime = .system) -> String {
            let says = "this laptop's clock looks wrong: it says \(localDateTime(laptop, in: time))"
            let check = "Check this laptop's date, time and time zone, then run amble band time again."
            guard case .tooFar(let moved) = LaptopDate.check(laptopUnixSeconds: laptop, bandUnixSeconds: band) else {
                return "\(says), and \(bandName) takes dates from 2017 to 2100 only; it kept its date. \(check)"
            }
            return "\(says), \(LaptopDate.span(moved)) \(moved > 0 ? "after" : "before") \(bandName)'s date (\(localDateTime(band, in: time))). "
                + "\(bandName) kept its date: it moves it by at most \(LaptopDate.span(LaptopDate.largestMoveSeconds)) at a time. \(check)"
        }

        /// What the command says once the band moved its clock by `moved` seconds: the time in
        /// local time, as the other commands show it.
        static func confirmation(bandName: String, now: Double, moved: Double, time: LocalTime) -> String {
            let seconds = Int(moved.rounded())
            let was = seconds == 0 ? "right to the second" : "\(abs(seconds)) s \(seconds > 0 ? "behind" : "ahead")"
            return "\(bandName): clock set to \(time.day(now).iso) \(localClock(now, in: time, seconds: true)) \(time.zoneLabel(now)) (it was \(was))"
        }
    }

    struct DeleteAllCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-all",
            abstract: "Wipe the band: sessions, calibration, settings, paired laptops. The wearer confirms on the band.",
            discussion: "Sessions already synced stay in this laptop's store. The band asks its wearer; nothing happens until they press select there."
        )

        @ParentCommand var amble: AmbleCommand
        @OptionGroup var target: PairedBandOptions

        @Option(help: ArgumentHelp("Seconds to wait for the wearer.", valueName: "seconds"))
        var wait: Double = 130

        func run() throws {
            let store = try openCompanionStore(path: amble.storePath)
            let (link, band) = try target.connect(store: store)
            defer { link.close() }
            do {
                let state = try askBandToWipe(link, bandName: band.name, wait: wait) { print($0) }
                switch state {
                case .done:
                    _ = try store.unpair(bandID: band.id)
                    try store.clearBandWipeRequest(bandID: band.id)
                    print("\(band.name) is wiped and no longer paired. Its synced sessions stay here.")
                case .declined: throw CommandError("the wearer kept the band's data (or did not answer within two minutes)")
                case .awaitingWearer: throw CommandError("no answer from the wearer within \(Int(wait)) s; nothing was deleted")
                case .none: throw CommandError("\(band.name) lost the request; nothing was deleted")
                }
            } catch let error as SyncError {
                throw CommandError(explain(error, band: band.name))
            }
        }
    }
}

/// Asks a connected band to delete everything and waits up to `wait` seconds for its
/// wearer's answer on the band (polling twice a second); returns how it stands then. The
/// band's refusals (`busy` during a walk) come as `SyncError.failed`.
func askBandToWipe(_ link: CompanionLink, bandName: String, wait: Double, say: (String) -> Void) throws -> SyncMessage.DeleteAllState {
    func state(_ answer: SyncMessage) throws -> SyncMessage.DeleteAllState {
        guard case .deleteAllState(let state) = answer else { throw CommandError("\(bandName) answered the wipe with something else") }
        return state
    }
    var current = try state(link.request(.deleteAll(.request)))
    say("\(bandName) asks its wearer: press select on the band to delete everything, back to keep it.")
    let clock = SystemClock()   // monotonic: a clock change does not shorten or stretch the wait
    let deadline = clock.nowSeconds + wait
    while current == .awaitingWearer && clock.nowSeconds < deadline {
        sleepSeconds(0.5)
        current = try state(link.request(.deleteAll(.status)))
    }
    return current
}
