import AmbleStoreSupport
import AmbleBandStore
import AmbleBoard
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
///
/// A full store (the card, or the board's `[storage] max_store_mb`) is said once, not every
/// second: the wearer sees "Storage full" (`condition`), the seconds of the session under
/// way wait in memory (up to an hour) until there is room, and room is made by removing synced
/// sessions, oldest first, never one not synced. A store found damaged at start is said the
/// same way; the band goes on with what it can read.
final class BandRecorder {
    let store: BandStore
    private let logger: Logger
    /// Held while the band runs: no second band records into the same store.
    private let lock: DirectoryLock?
    /// Synced sessions beyond this many hours of seconds are pruned (board `[storage]`).
    let maximumSessionHours: Int
    /// Where the store is, for what the log says.
    private let path: String
    /// Room kept on the card for the day it fills (board `[storage] reserve_mb`), if any.
    private let reserve: SpaceReserve?
    /// The session being recorded, if any.
    private(set) var sessionID: Int64?
    /// How far a laptop moved the band's date from the system clock, seconds (`amble band time`).
    private(set) var unixOffsetSeconds: Double
    private var nextPruneSeconds = -Double.infinity
    /// The band time and date of the last `pruneIfDue`, for making room at once when the store fills.
    private var lastPruneCall: (now: Double, unixSeconds: Double)?

    /// The store could not grow at its last write that needed room.
    private(set) var isStoreFull = false
    /// What the check at start found wrong with the store, in words (nil: nothing).
    private(set) var damage: String?
    /// Seconds of the session under way that a full store could not take yet, oldest first.
    private var waitingSeconds: [SessionSecond] = []
    /// Steps released for seconds stored before, waiting with `waitingSeconds`.
    private var waitingEarlier: [StepsAdded] = []
    /// The session's progress at the last second waiting (what a power cut adds to its seconds).
    private var waitingProgress: SessionProgress?
    /// The offset of the last second recorded in the session under way (-1 before the first).
    private var lastOffset = -1
    /// Seconds of the session under way lost because a full store made them wait too long.
    private var droppedSeconds = 0
    /// The session under way when a full store could not begin it: begun, with its waiting
    /// seconds, once there is room.
    private var pendingBegin: (kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters)?
    /// A calibration a full store could not take yet (the practice uses it meanwhile).
    private var waitingCalibration: Calibration?
    /// The session under way met a full store: it keeps no more raw samples (said once).
    private var rawDropped = false
    /// Most seconds kept waiting for room: an hour (about 100 kB).
    static let maximumWaitingSeconds = 3600
    /// Recorded seconds a full store frees at least, by removing synced sessions: room for an
    /// hour's walk.
    static let roomWhenFullSeconds = 3600

    init(store: BandStore, path: String, reserve: SpaceReserve? = nil, lock: DirectoryLock?, maximumSessionHours: Int, logger: Logger) {
        self.store = store
        self.path = path
        self.reserve = reserve
        self.lock = lock
        self.maximumSessionHours = maximumSessionHours
        self.logger = logger
        unixOffsetSeconds = (try? store.clockOffsetSeconds()) ?? 0
    }

    /// Opens the store in `dataDirectory` (made 0700 if missing) and locks the folder; `storage`
    /// is the board's `[storage]`. A folder or store it cannot make, enter or write is named with
    /// why and what to do.
    static func open(dataDirectory: String, storage: BoardConfiguration.StorageSpec, logger: Logger) throws -> BandRecorder {
        let elsewhere = "give --data-dir a folder you can write"
        do {
            try makeFolders(dataDirectory)
        } catch {
            throw BandStartError("ambled cannot make its data folder: \(error.sentence(orElse: elsewhere))")
        }
        let lock: DirectoryLock
        do {
            guard let held = try DirectoryLock(directory: dataDirectory) else {
                throw BandStartError("another ambled is using \(dataDirectory); stop it first or give another --data-dir")
            }
            lock = held
        } catch let error as Errno {
            let problem = PathProblem.writingIn(folder: dataDirectory) ?? PathProblem(path: dataDirectory + "/.lock", kind: .failed(error))
            throw BandStartError("ambled cannot write its data folder: \(problem.sentence(orElse: elsewhere))")
        }
        let path = dataDirectory + "/band.sqlite"
        do {
            let reserve = storage.reserveMegabytes > 0 ? SpaceReserve(path: dataDirectory + "/space.reserve", bytes: storage.reserveMegabytes << 20) : nil
            return BandRecorder(store: try BandStore(path: path, maximumBytes: storage.maximumStoreMegabytes.map { $0 << 20 }), path: path,
                                reserve: reserve, lock: lock, maximumSessionHours: storage.maximumSessionHours, logger: logger)
        } catch let error as StoreFileError {
            if case .sqlite(let code, _) = error.problem, [8, 14, 3, 23].contains(code), let problem = PathProblem.updating(path) {
                throw BandStartError("ambled cannot open its store: \(problem.sentence(orElse: elsewhere))")
            }
            throw BandStartError("cannot open the band's store: \(error)")
        } catch {
            throw BandStartError("cannot open the band's store: \(errorSentence(error))")
        }
    }

    /// The check at start, before the loop: SQLite's check of the whole file (`quick_check`),
    /// every session's sync data against its CRC-32 (encoded again from its rows where the card
    /// changed it), and sync data for the sessions without (made by an older build, closed by
    /// crash recovery, or ended in a full store), so that the link never spends the loop's time
    /// encoding them. What is wrong is logged at error priority and shown to the wearer.
    func checkStore() {
        if let reserve, !reserve.take() {
            logger.warning("the card has less than \(2 * reserve.bytes >> 20) MiB free: no room is kept in reserve (\(reserve.path)) for the day it fills")
        }
        var problems: [String] = []
        do {
            problems = try store.quickCheck()
        } catch {
            problems = [errorSentence(error)]
        }
        var unreadable: [Int64] = []
        do {
            let damaged = try store.sessionsWithDamagedData(checksum: CRC32.checksum)
            let missing = try store.sessionsWithoutData(versions: SessionCoding.currentVersions)
            for id in damaged {
                do { try noteFull(SessionDataEncoding.checked(sessionID: id, in: store, logger: logger)) } catch { unreadable.append(id) }
            }
            for id in missing where !isStoreFull {
                do { try noteFull(SessionDataEncoding.encode(sessionID: id, in: store, logger: logger)) } catch { unreadable.append(id) }
            }
        } catch {
            problems.append(errorSentence(error))
        }
        guard !problems.isEmpty || !unreadable.isEmpty else { return }
        let sessions = unreadable.isEmpty ? "" : " Session\(unreadable.count == 1 ? "" : "s") \(unreadable.map(String.init).joined(separator: ", ")) cannot be read."
        let found = problems.first.map { " SQLite's check found \(problems.count) problem\(problems.count == 1 ? "" : "s") (\"\($0.prefix(200))\")." } ?? ""
        damage = "the band's store \(path) is damaged:" + found + sessions
        logger.error("\(damage!) The band goes on recording, and syncs every session it can read: sync it soon; then stop ambled, keep a copy of the store, and recover it with `sqlite3 \(path) .recover` (README, \"A damaged or full store\")")
    }

    /// Notes a store that was full for an encoding (which is sent all the same).
    private func noteFull(_ outcome: SessionDataEncoding.Outcome?) {
        if outcome?.storeFull == true { storeFilled() }
    }

    /// How the store is, as the wearer and a laptop are told: full (now), else damaged (found
    /// at start), else sound.
    var condition: StoreCondition {
        isStoreFull ? .full : damage != nil ? .damaged : .sound
    }

    /// What a laptop is told about the store (`condition`), in words.
    var conditionText: String {
        switch condition {
        case .sound: return ""
        case .full: return "the band's store is full: sessions wait on the band until synced ones are removed to make room (sync the band to free more)"
        case .damaged: return damage ?? ""
        }
    }

    /// Whether the store was said full once already (later times are logged as notices).
    private var fullSaid = false

    /// A write found the store full: said at error priority the first time, and room is made
    /// at the next `pruneIfDue`.
    func storeFilled() {
        guard !isStoreFull else { return }
        isStoreFull = true
        let text = "the band's store \(path) is full (its card, or the board's [storage] max_store_mb): the band goes on syncing what it has; "
            + "sessions wait in memory for room, made by removing synced sessions, oldest first (sync the band to free more)"
        if fullSaid { logger.notice("\(text)") } else { logger.error("\(text)") }
        fullSaid = true
        pruneSoon()
    }

    /// Runs a change that makes room or notes a sync (removing synced sessions, marking one
    /// synced). On a card full to its last byte even these fail (SQLite needs room in its log
    /// to change anything): the reserve is then given to the card and the change runs again.
    /// New sessions never use the reserve: it is for making room.
    func usingReserve<T>(_ change: () throws -> T) throws -> T {
        do {
            return try change()
        } catch where isStoreFullError(error) {
            guard let reserve, reserve.release() else { throw error }
            logger.notice("gave the card the \(reserve.bytes >> 20) MiB kept in reserve (\(reserve.path)) so that the store can mark sessions synced and remove them")
            return try change()
        }
    }

    /// Runs a write; a full store is noted, another failure logged as `what` failed. Returns
    /// whether it worked.
    private func write(_ what: @autoclosure () -> String, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch {
            if isStoreFullError(error) { storeFilled() } else { logger.error("cannot \(what()): \(errorSentence(error))") }
            return false
        }
    }

    // MARK: Sessions

    var isRecording: Bool { sessionID != nil || pendingBegin != nil }

    func begin(kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters) {
        sessionID = nil
        waitingSeconds = []
        waitingEarlier = []
        waitingProgress = nil
        droppedSeconds = 0
        rawDropped = false
        lastOffset = -1
        pendingBegin = (kind, startUnixSeconds, parameters)
        if !beginIfPending() && pendingBegin != nil {
            rawDropped = true   // it met a full store
            logger.error("the store is full: this \(kind.rawValue) waits in memory (up to an hour of it) until synced sessions can be removed to make room; sync the band")
        }
    }

    /// Begins in the store the session waiting to begin (a full store could not). Returns
    /// whether the session under way is in the store.
    private func beginIfPending() -> Bool {
        guard let pending = pendingBegin else { return sessionID != nil }
        let begun = write("start recording the session") {
            sessionID = try store.beginSession(kind: pending.kind, startUnixSeconds: pending.startUnixSeconds, parameters: pending.parameters)
        }
        if let sessionID, begun {
            logger.info("\(pending.kind.rawValue) session \(sessionID) started")
        }
        if begun || !isStoreFull { pendingBegin = nil }   // another failure: not recorded, as before
        return begun
    }

    /// Stores a second of the session under way, adds `earlier` (steps released now, taken in
    /// seconds recorded before) to theirs, and keeps its `progress`, which closing the session
    /// after a power cut adds to its stored seconds: in one transaction. In a full store the
    /// second waits (with the ones before it, and the steps and progress) until there is room.
    func append(_ row: SessionSecond, earlier: [StepsAdded], progress: SessionProgress) {
        guard isRecording else { return }
        lastOffset = row.offsetSeconds
        waitingEarlier += inWaitingSeconds(earlier)
        waitingSeconds.append(row)
        waitingProgress = progress
        storeWaitingSeconds()
    }

    /// Adds steps released late to the seconds of the session under way they were taken in:
    /// those still waiting for room in memory, the others in the store.
    func addSteps(_ added: [StepsAdded]) {
        let stored = inWaitingSeconds(added)
        guard let sessionID, !stored.isEmpty else { return }
        _ = write("add \(stored.reduce(0) { $0 + $1.steps }) late steps to session \(sessionID) (its summary keeps them)") {
            try store.addSteps(sessionID: sessionID, stored)
        }
    }

    /// Adds the steps of `added` whose seconds wait for room in memory to them; returns the
    /// others (for seconds already stored).
    private func inWaitingSeconds(_ added: [StepsAdded]) -> [StepsAdded] {
        added.filter { steps in
            guard let index = waitingSeconds.firstIndex(where: { $0.offsetSeconds == steps.offsetSeconds }) else { return true }
            waitingSeconds[index].steps += steps.steps
            return false
        }
    }

    /// Stores the seconds waiting (the second just closed, or those that waited for room), the
    /// steps released for seconds stored before and the latest progress, in one transaction,
    /// beginning the session first if it waits too. A full store keeps them waiting (the oldest
    /// seconds beyond `maximumWaitingSeconds` are lost); any other failure loses them, as before.
    private func storeWaitingSeconds() {
        var stored = false
        let waited = waitingSeconds.count > 1
        if beginIfPending(), let sessionID, let first = waitingSeconds.first {
            stored = write("store second \(first.offsetSeconds)\(waited ? " and the \(waitingSeconds.count - 1) after it" : "") of session \(sessionID)") {
                try store.appendSeconds(sessionID: sessionID, waitingSeconds, earlier: waitingEarlier, progress: waitingProgress)
            }
        }
        if stored || !isStoreFull {
            waitingSeconds = []
            waitingEarlier = []
            waitingProgress = nil
        }
        if waitingSeconds.count > Self.maximumWaitingSeconds {
            droppedSeconds += waitingSeconds.count - Self.maximumWaitingSeconds
            waitingSeconds.removeFirst(waitingSeconds.count - Self.maximumWaitingSeconds)
        }
        if let sessionID, waited && stored {
            logger.notice("session \(sessionID): the seconds that waited for room are stored\(droppedSeconds > 0 ? " (\(droppedSeconds) s lost: they waited over an hour)" : "")")
        }
    }

    /// Stores raw samples of the session under way (blocks the capture finished). A session
    /// that met a full store keeps no more of them (they are large, and its seconds come first).
    func appendRaw(_ blocks: [RawBlock]) {
        guard let sessionID, !blocks.isEmpty, !rawDropped else { return }
        if isStoreFull {
            logger.notice("session \(sessionID): the store is full: no more raw samples are kept for this session")
            rawDropped = true
            return
        }
        _ = write("store \(blocks.count) raw sample block(s) of session \(sessionID); raw capture goes on") {
            try store.appendRawBlocks(sessionID: sessionID, blocks)
        }
    }

    /// Closes the session with `summary`, adding `lateSteps` (the steps the counter released
    /// with the session's end, by the second they were taken in: `[0]` in the last second
    /// recorded, `[n]` n seconds before it) to its seconds and its totals, and encodes its data
    /// for the link. Returns the summary stored.
    @discardableResult
    func end(_ summary: SessionSummary, lateSteps: [Int]) -> SessionSummary {
        guard isRecording else { return summary }
        var summary = summary
        let added = StepsAdded.toSeconds(lateSteps, newestOffset: lastOffset)
        if !added.isEmpty {
            addSteps(added)
            summary.steps += added.reduce(0) { $0 + $1.steps }
            summary.distanceMeters = Double(summary.steps) * summary.parameters.stepLengthMeters
        }
        if isStoreFull && (pendingBegin != nil || !waitingSeconds.isEmpty) { _ = makeRoom() }
        storeWaitingSeconds()
        defer {
            sessionID = nil
            pendingBegin = nil
            waitingSeconds = []
            waitingEarlier = []
            waitingProgress = nil
            droppedSeconds = 0
        }
        guard let id = sessionID else {
            logger.error("this \(summary.kind.rawValue) (\(summary.steps) steps) is not stored: the store stayed full and held no synced session to remove")
            return summary
        }
        if !waitingSeconds.isEmpty || droppedSeconds > 0 {
            logger.error("session \(id): \(waitingSeconds.count + droppedSeconds) of its seconds could not be stored (the store is full); its summary counts them")
        }
        if write("close session \(id); it will be closed from its stored seconds at the next start", { try store.endSession(sessionID: id, summary: summary) }) {
            do { try noteFull(SessionDataEncoding.encode(sessionID: id, in: store, logger: logger)) } catch {}
            logger.notice("\(summary.kind.rawValue) session \(id) stored: \(summary.steps) steps, \(summary.alerts) alerts, \(summary.timeOverLimitSeconds) s over the limit")
        }
        return summary
    }

    /// Deletes the session under way (the wearer discarded the walk, or a calibration was
    /// cancelled): nothing of it stays.
    func discard() {
        pendingBegin = nil
        waitingSeconds = []
        waitingEarlier = []
        waitingProgress = nil
        guard let id = sessionID else { return }
        sessionID = nil
        do {
            try store.discardSession(sessionID: id)
            logger.info("session \(id) discarded")
        } catch {
            logger.error("cannot discard session \(id): \(errorSentence(error)); it stays in the store")
        }
    }

    /// Keeps a new calibration; a full store keeps it in memory until there is room.
    func save(_ calibration: Calibration) {
        if !write("store the calibration", { try store.saveCalibration(calibration) }) && isStoreFull {
            waitingCalibration = calibration
        }
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
    /// band's date now). While the store is full: once a minute, with the space limit an hour of
    /// seconds below what is stored (room for a walk). Returns whether a session was removed.
    @discardableResult
    func pruneIfDue(now: Double, unixSeconds: Double) -> Bool {
        lastPruneCall = (now, unixSeconds)
        guard now >= nextPruneSeconds else { return false }
        nextPruneSeconds = now + (isStoreFull ? 60 : 3600)
        do {
            let days = Int(try store.setting(.retentionDays)) ?? 30
            var limit = maximumSessionHours * 3600
            if isStoreFull { limit = min(limit, max(0, try store.recordedSeconds() - Self.roomWhenFullSeconds)) }
            let byAge = unixSeconds >= (try pruneHeldUntilUnixSeconds() ?? -.infinity)
            let removed = try usingReserve { try store.prune(nowUnixSeconds: unixSeconds, retentionDays: byAge ? days : nil, maximumSeconds: limit) }
            // On a full card the log keeps what it took until it is emptied into the file:
            // once a minute, while the store is full, so that the room made stays usable.
            if isStoreFull { try? store.emptyLog() }
            guard !removed.isEmpty else { return false }
            logger.info("removed \(removed.count) synced session(s) past \(days) days or \(maximumSessionHours) h of storage\(isStoreFull ? ", or to make room in the full store" : "")")
            if isStoreFull {
                isStoreFull = false   // until a write finds it full again
                logger.notice("room made in the store: sessions are stored again")
                storeWaitingSeconds()
                if let calibration = waitingCalibration, write("store the calibration", { try store.saveCalibration(calibration) }) {
                    waitingCalibration = nil
                }
                if store.recovery.pending, let closed = try? store.recoverOpenSessions(), closed.walksClosed > 0 {
                    logger.notice("\(closed.walksClosed) walk(s) a power cut left open in the full store were closed and stored")
                }
                try? store.emptyLog()
                reserve?.take()   // kept again when the disk has room for it
            }
            return true
        } catch {
            // While the store is full this is said once (when it filled), not every minute.
            if isStoreFull && isStoreFullError(error) { logger.debug("cannot prune synced sessions: \(errorSentence(error))") } else {
                logger.error("cannot prune synced sessions: \(errorSentence(error))")
            }
            return false
        }
    }

    /// The store is full: prunes at once (as `pruneIfDue` does while it is full). Returns
    /// whether a session was removed.
    private func makeRoom() -> Bool {
        guard let last = lastPruneCall else { return false }
        pruneSoon()
        return pruneIfDue(now: last.now, unixSeconds: last.unixSeconds)
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
