import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync

/// The band's reminder for the study's due questionnaires. After a sync, `StudyRules.reminder`
/// says what the band should remind of, and the laptop sets its own `study_reminder` on the band
/// (`LaptopSetting`: each paired laptop has its own, which only its syncs change): "HH:MM TEXT"
/// while a questionnaire asks for one, "off" once nothing does, when the study has no reminders,
/// when the wearer left it (`amble study leave`: `StudyContext.reminder`) or when no study is
/// joined here. The band gives it beside the wearer's own reminder, which a study never
/// touches; two laptops of one study asking for the same reminder give it once, and one that no
/// longer asks leaves the other's alone, so syncing from both never makes it flip.
///
/// Earlier builds of `amble` set the wearer's reminder instead, with a text starting
/// "Study: ": such a reminder, still on, is turned off (the wearer's own was lost then).
enum StudyReminderPush {
    static let textPrefix = "Study: "

    /// The band's build has no reminder of a laptop's own (older than this laptop's).
    struct BandTooOld: Error {}

    /// The settings to send, given what the study wants (`StudyRules.reminder`; nil without a
    /// study or reminders) and the band's current settings as this laptop reads them; empty when
    /// nothing changes.
    static func changes(wanted: (time: Int, text: String)??, current: [String: String]) throws(BandTooOld) -> [(key: String, value: String)] {
        var changes: [(key: String, value: String)] = []
        // A study's reminder an earlier amble put in the wearer's place.
        if current[BandSetting.reminderText.rawValue]?.hasPrefix(textPrefix) == true, current[BandSetting.reminders.rawValue] == "on" {
            changes.append((BandSetting.reminders.rawValue, "off"))
        }
        let target = (wanted ?? nil).map { StudyReminder(minutes: $0.time, text: $0.text).settingValue } ?? LaptopSetting.studyReminder.defaultValue
        guard let now = current[LaptopSetting.studyReminder.rawValue] else {
            if target != LaptopSetting.studyReminder.defaultValue { throw BandTooOld() }
            return changes
        }
        if now != target { changes.append((LaptopSetting.studyReminder.rawValue, target)) }
        return changes
    }

    /// Reads the band's settings and sends what the study's reminder needs. Returns a line for
    /// the sync's output, or nil when nothing changed. A failure is returned as a line too: the
    /// sync itself went through.
    static func push(store: CompanionStore, link: CompanionLink, bandName: String, now: Double, time: LocalTime) -> String? {
        var wanted: (time: Int, text: String)?? = nil
        var left = false
        do {
            if try store.studyEnrollment() != nil {
                let context = try StudyContext.read(store: store)
                wanted = context.reminder(now: now, time: time)
                left = context.enrollment.leftUnixSeconds != nil
            }
        } catch {
            return "Study reminder not set: \(error)"
        }
        do {
            guard case .settings(let values) = try link.request(.getSettings) else { return "Study reminder not set: \(bandName) did not send its settings" }
            let current = Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { _, b in b })
            let changes: [(key: String, value: String)]
            do { changes = try Self.changes(wanted: wanted, current: current) } catch {
                return "Study reminder not set: \(bandName) runs an older ambled, which keeps no reminder for a study; update the band"
            }
            guard !changes.isEmpty else { return nil }
            for change in changes {
                guard case .settings = try link.request(.setSetting(key: change.key, value: change.value)) else {
                    return "Study reminder not set: \(bandName) refused \(change.key)"
                }
            }
            if let reminder = wanted ?? nil {
                return "Study reminder on \(bandName): \(BandSetting.clock(reminder.time)) daily, \"\(reminder.text)\" (beside the wearer's own reminder)"
            }
            return "Study reminder on \(bandName) turned off: "
                + (left ? "you left the study" : wanted == nil ? "no study with reminders is joined here" : "no questionnaire asks for one now")
        } catch {
            return "Study reminder not set: \(explain(error, band: bandName))"
        }
    }
}
