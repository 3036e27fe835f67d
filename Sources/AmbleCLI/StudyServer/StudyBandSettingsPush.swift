import AmbleCompanion
import AmbleCompanionStore
import AmbleSync

/// The band settings of the participant's group (arm), received when joining a study server,
/// applied to each band at its next `amble sync` the way `StudyReminderPush` sets the study's
/// reminder: the band's settings read, the ones that differ set with `setSetting`. Once
/// applied to a band they are not sent to it again (the wearer may change a setting on the
/// band after that; the study's settings come again only when the server's change).
enum StudyBandSettingsPush {
    /// Returns a line for the sync's output, or nil when nothing was to be applied. A failure
    /// is returned as a line too: the sync itself went through.
    static func push(store: CompanionStore, link: CompanionLink, bandID: String, bandName: String, now: Double) -> String? {
        let wanted: [String: String]
        do {
            guard let settings = try store.bandSettingsToApply(bandID: bandID) else { return nil }
            wanted = settings
        } catch {
            return "The study's band settings not applied: \(error)"
        }
        do {
            guard case .settings(let values) = try link.request(.getSettings) else {
                return "The study's band settings not applied: \(bandName) did not send its settings; the next amble sync tries again"
            }
            let current = Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { _, b in b })
            let changes = wanted.filter { current[$0.key] != $0.value }.sorted { $0.key < $1.key }
            for (key, value) in changes {
                guard case .settings = try link.request(.setSetting(key: key, value: value)) else {
                    return "The study's band settings not applied: \(bandName) refused \(key) \(value); the next amble sync tries again"
                }
            }
            try store.markBandSettingsApplied(bandID: bandID, wanted, nowUnixSeconds: now)
            guard !changes.isEmpty else { return nil }
            return "The study's band settings on \(bandName): " + changes.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        } catch {
            return "The study's band settings not applied: \(explain(error, band: bandName)); the next amble sync tries again"
        }
    }
}
