import AmbleStoreSupport
import AmbleBandStore
import AmbleLinux
import AmbleModel
import AmbleStateMachines
import AmbleSync
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The band's store and what the loop does with it: records sessions as they happen (begin,
/// one row per second, the summary at the end, then the data the link sends; or nothing, when
/// the wearer discards it), keeps every calibration and the wearer's settings, keeps the
/// reminder's schedule, prunes synced sessions, and keeps the offset a laptop set on the
/// band's date.
///
/// Store failures are logged, never fatal: the walk goes on and what is already stored stays
/// (a session left open is closed from its stored seconds at the next start).
final class BandRecorder {
    let store: BandStore
    private let logger: Logger
    /// Held while the band runs: no second band records into the same store.
    private let lock: DirectoryLock?
    /// Synced sessions beyond this many hours of seconds are pruned (board `[storage]`).
    let maximumSessionHours: Int
    /// The session being recorded, if any.
    private(set) var sessionID: Int64?
    /// The offset of the last second recorded in it (-1 before the first).
    private var lastOffset = -1
    /// How far a laptop moved the band's date from the system clock, seconds (`amble band time`).
    private(set) var unixOffsetSeconds: Double
    private var nextPruneSeconds = -Double.infinity

    init(store: BandStore, lock: DirectoryLock?, maximumSessionHours: Int, logger: Logger) {
        self.store = store
        self.lock = lock
        self.maximumSessionHours = maximumSessionHours
        self.logger = logger
        unixOffsetSeconds = (try? store.clockOffsetSeconds()) ?? 0
    }

    /// Opens the store in `dataDirectory` (made 0700 if missing) and locks the folder.
    static func open(dataDirectory: String, maximumSessionHours: Int, logger: Logger) throws -> BandRecorder {
        do {
            try makePrivateDirectory(dataDirectory)
        } catch {
            throw BandStartError("cannot create the data directory \(dataDirectory): \(errorSentence(error))")
        }
        let lock: DirectoryLock
        do {
            guard let held = try DirectoryLock(directory: dataDirectory) else {
                throw BandStartError("another ambled is using \(dataDirectory); stop it first or give another --data-dir")
            }
            lock = held
        } catch let error as Errno {
            throw BandStartError("cannot lock \(dataDirectory): \(errorSentence(error))")
        }
        let path = dataDirectory + "/band.sqlite"
        do {
            return BandRecorder(store: try BandStore(path: path), lock: lock, maximumSessionHours: maximumSessionHours, logger: logger)
        } catch {
            throw BandStartError("cannot open the band's store: \(errorSentence(error))")
        }
    }

    /// Sessions made by an older build, or closed by crash recovery, get their sync data now,
    /// before the loop starts, so the link never spends the loop's time encoding them.
    func prepareStoredSessionsForSync() {
        do {
            for id in try store.sessionsWithoutData(versions: SessionCoding.currentVersions) { try SessionDataEncoding.encode(sessionID: id, in: store) }
        } catch {
            logger.error("cannot prepare stored sessions for sync: \(errorSentence(error)); they are offered when listed")
        }
    }

    // MARK: Sessions

    var isRecording: Bool { sessionID != nil }

    func begin(kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters) {
        do {
            let id = try store.beginSession(kind: kind, startUnixSeconds: startUnixSeconds, parameters: parameters)
            sessionID = id
            lastOffset = -1
            logger.info("\(kind.rawValue) session \(id) started")
        } catch {
            sessionID = nil
            logger.error("cannot start recording the session: \(errorSentence(error))")
        }
    }

    /// Stores a second of the session under way, adds `earlier` (steps released now, taken in
    /// seconds already stored) to theirs, and keeps its `progress`, which closing the session
    /// after a power cut adds to its stored seconds: in one transaction.
    func append(_ row: SessionSecond, earlier: [StepsAdded], progress: SessionProgress) {
        guard let sessionID else { return }
        lastOffset = row.offsetSeconds
        do { try store.appendSecond(sessionID: sessionID, row, earlier: earlier, progress: progress) } catch {
            logger.error("cannot store second \(row.offsetSeconds) of session \(sessionID): \(errorSentence(error))")
        }
    }

    /// Adds steps released late to the seconds of the session under way they were taken in.
    func addSteps(_ added: [StepsAdded]) {
        guard let sessionID, !added.isEmpty else { return }
        do { try store.addSteps(sessionID: sessionID, added) } catch {
            logger.error("cannot add \(added.reduce(0) { $0 + $1.steps }) late steps to session \(sessionID): \(errorSentence(error)); its summary keeps them")
        }
    }

    /// Stores raw samples of the session under way (blocks the capture finished).
    func appendRaw(_ blocks: [RawBlock]) {
        guard let sessionID, !blocks.isEmpty else { return }
        do { try store.appendRawBlocks(sessionID: sessionID, blocks) } catch {
            logger.error("cannot store \(blocks.count) raw sample block(s) of session \(sessionID): \(errorSentence(error)); raw capture goes on")
        }
    }

    /// Closes the session with `summary`, adding `lateSteps` (the steps the counter released
    /// with the session's end, by the second they were taken in: `[0]` in the last second
    /// recorded, `[n]` n seconds before it) to its seconds and its totals, and encodes its data
    /// for the link. Returns the summary stored.
    @discardableResult
    func end(_ summary: SessionSummary, lateSteps: [Int]) -> SessionSummary {
        guard let id = sessionID else { return summary }
        var summary = summary
        let added = StepsAdded.toSeconds(lateSteps, newestOffset: lastOffset)
        if !added.isEmpty {
            addSteps(added)
            summary.steps += added.reduce(0) { $0 + $1.steps }
            summary.distanceMeters = Double(summary.steps) * summary.parameters.stepLengthMeters
        }
        do {
            try store.endSession(sessionID: id, summary: summary)
            try SessionDataEncoding.encode(sessionID: id, in: store)
            logger.notice("\(summary.kind.rawValue) session \(id) stored: \(summary.steps) steps, \(summary.alerts) alerts, \(summary.timeOverLimitSeconds) s over the limit")
        } catch {
            logger.error("cannot close session \(id): \(errorSentence(error)); it will be closed from its stored seconds at the next start")
        }
        sessionID = nil
        return summary
    }

    /// Deletes the session under way (the wearer discarded the walk, or a calibration was
    /// cancelled): nothing of it stays.
    func discard() {
        guard let id = sessionID else { return }
        sessionID = nil
        do {
            try store.discardSession(sessionID: id)
            logger.info("session \(id) discarded")
        } catch {
            logger.error("cannot discard session \(id): \(errorSentence(error)); it stays in the store")
        }
    }

    func save(_ calibration: Calibration) {
        do { try store.saveCalibration(calibration) } catch { logger.error("cannot store the calibration: \(errorSentence(error))") }
        logger.notice("calibrated: normal pace \(Int(calibration.cadenceStepsPerMinute.rounded())) steps/min")
    }

    /// Keeps a setting the wearer chose on the band (already validated by the practice).
    func save(_ setting: BandSetting, _ value: String) {
        do { try store.set(setting, to: value) } catch { logger.error("cannot store \(setting.rawValue) = \(value): \(errorSentence(error))") }
    }

    // MARK: Reminders

    static let reminderStateKey = "reminder_state"

    /// The reminders' schedule as the last run left it (nothing given yet when unreadable):
    /// JSON, or the wearer's reminder alone as earlier builds kept it ("lastDay snoozedUntil",
    /// either may be empty).
    func reminderState() -> ReminderSchedule.State {
        guard let text = try? store.internalValue(Self.reminderStateKey) else { return .init() }
        if let state = try? JSONDecoder().decode(ReminderSchedule.State.self, from: Data(text.utf8)) { return state }
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2 else { return .init() }
        return .init(items: [ReminderSchedule.Reminder.wearerID: .init(lastDay: Int(fields[0]), snoozedUntilUnixSeconds: Double(fields[1]))])
    }

    /// Keeps the schedule's state (JSON: each reminder's last day and snooze by its id).
    func saveReminderState(_ state: ReminderSchedule.State) {
        do {
            let text = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
            try store.setInternalValue(Self.reminderStateKey, text)
        } catch {
            logger.error("cannot store the reminders' schedule: \(errorSentence(error))")
        }
    }

    /// The study reminders the paired laptops ask for (none when the store cannot say).
    func studyReminders() -> [StudyReminder] {
        do { return try store.studyReminders() } catch {
            logger.error("cannot read the studies' reminders: \(errorSentence(error))")
            return []
        }
    }

    // MARK: Housekeeping

    /// Removes synced sessions past the wearer's retention or the board's space limit, once
    /// an hour of band time (`now`), or at once after `pruneSoon()`. Not by age while the date
    /// a laptop gave is younger than `pruneHoldAfterDateMoveSeconds` (`unixSeconds` is the
    /// band's date now).
    func pruneIfDue(now: Double, unixSeconds: Double) {
        guard now >= nextPruneSeconds else { return }
        nextPruneSeconds = now + 3600
        do {
            let days = Int(try store.setting(.retentionDays)) ?? 30
            let byAge = unixSeconds >= (try pruneHeldUntilUnixSeconds() ?? -.infinity)
            let removed = try store.prune(nowUnixSeconds: unixSeconds, retentionDays: byAge ? days : nil, maximumSeconds: maximumSessionHours * 3600)
            if !removed.isEmpty { logger.info("removed \(removed.count) synced session(s) past \(days) days or \(maximumSessionHours) h of storage") }
        } catch {
            logger.error("cannot prune synced sessions: \(errorSentence(error))")
        }
    }

    /// How long synced sessions are not pruned by age after a laptop moved the band's date: a
    /// day, time for a laptop whose clock is right to set a wrong date back before it costs
    /// anything. The space limit still applies.
    static let pruneHoldAfterDateMoveSeconds = 86_400.0
    static let pruneHeldUntilKey = "prune_held_until"

    /// The band's date until which nothing is pruned by age (kept across restarts), if any.
    private func pruneHeldUntilUnixSeconds() throws -> Double? {
        try store.internalValue(Self.pruneHeldUntilKey).flatMap(Double.init)
    }

    /// The sessions' ages or the retention changed: prune at the next pass.
    func pruneSoon() { nextPruneSeconds = -Double.infinity }

    /// Moves the band's date by `seconds`, to `newUnixSeconds`, and keeps the offset across
    /// restarts. Nothing is pruned by age on the date just given (`pruneHoldAfterDateMoveSeconds`).
    func moveDate(bySeconds seconds: Double, toUnixSeconds newUnixSeconds: Double) {
        unixOffsetSeconds += seconds
        do {
            try store.setInternalValue(Self.pruneHeldUntilKey, String(newUnixSeconds + Self.pruneHoldAfterDateMoveSeconds))
            try store.setClockOffsetSeconds(unixOffsetSeconds)
        } catch {
            logger.error("cannot store the clock offset: \(errorSentence(error))")
        }
    }

    /// Deletes everything on the band: sessions, calibration, settings, paired laptops (the
    /// band's id and key stay). Returns whether it worked.
    func wipe() -> Bool {
        do {
            try store.deleteEverything()
            logger.notice("the band was wiped at the wearer's confirmation")
            return true
        } catch {
            logger.error("cannot wipe the band: \(errorSentence(error))")
            return false
        }
    }

    func forgetLaptops() {
        do {
            try store.forgetLaptops()
            logger.notice("the wearer forgot every paired laptop")
        } catch {
            logger.error("cannot forget the paired laptops: \(errorSentence(error))")
        }
    }
}
