import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync

/// The band's reminder for the study's due questionnaires, set over the link with the band's
/// own reminder settings (`reminders`, `reminder_time`, `reminder_days`, `reminder_text`):
/// after a sync, `StudyRules.reminder` says what the band should remind of, and only the
/// settings that differ are sent. The study's reminder text starts with "Study: "; a reminder
/// the wearer set themselves (another text) is turned off by the study never, only replaced
/// while a questionnaire asks for one.
enum StudyReminderPush {
    static let textPrefix = "Study: "

    /// The settings to send, given the band's current ones; empty when nothing changes.
    static func changes(wanted: (time: Int, text: String)??, current: [String: String]) -> [(key: BandSetting, value: String)] {
        guard let wanted else { return [] }   // the study has no reminders
        guard let reminder = wanted else {
            // Nothing to remind of: turn off only a reminder the study set.
            let ours = current[BandSetting.reminderText.rawValue]?.hasPrefix(textPrefix) ?? false
            return ours && current[BandSetting.reminders.rawValue] == "on" ? [(.reminders, "off")] : []
        }
        let target: [(BandSetting, String)] = [
            (.reminderTime, BandSetting.clock(reminder.time)), (.reminderDays, "daily"), (.reminderText, reminder.text), (.reminders, "on"),
        ]
        return target.filter { current[$0.0.rawValue] != $0.1 }.map { (key: $0.0, value: $0.1) }
    }

    /// Reads the band's settings and sends what the study's reminder needs. Returns a line for
    /// the sync's output, or nil when no study is joined or nothing changed. A failure is
    /// returned as a line too: the sync itself went through.
    static func push(store: CompanionStore, link: CompanionLink, bandName: String, now: Double, time: LocalTime) -> String? {
        let context: StudyContext
        do {
            guard try store.studyEnrollment() != nil else { return nil }
            context = try StudyContext.read(store: store)
        } catch {
            return "Study reminder not set: \(error)"
        }
        let wanted = StudyRules.reminder(context.study, now: now, time: time, submissions: context.submissions, walks: context.walks)
        do {
            guard case .settings(let values) = try link.request(.getSettings) else { return "Study reminder not set: \(bandName) did not send its settings" }
            let current = Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { _, b in b })
            let changes = changes(wanted: wanted, current: current)
            guard !changes.isEmpty else { return nil }
            for change in changes {
                guard case .settings = try link.request(.setSetting(key: change.key.rawValue, value: change.value)) else {
                    return "Study reminder not set: \(bandName) refused \(change.key.rawValue)"
                }
            }
            if let reminder = wanted ?? nil {
                return "Study reminder on \(bandName): \(BandSetting.clock(reminder.time)) daily, \"\(reminder.text)\""
            }
            return "Study reminder on \(bandName) turned off: no questionnaire asks for one now"
        } catch {
            return "Study reminder not set: \(explain(error, band: bandName))"
        }
    }
}
