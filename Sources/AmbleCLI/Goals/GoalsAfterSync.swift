import AmbleCompanion
import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import AmbleSync
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a finished sync does for the goals: closes the challenges that are over (keeping their
/// reports' figures) and sends the band today's progress (`goal_progress`, shown over its
/// menu). Without goals nothing is sent. A failure here is said, and the sync stays a success.
enum GoalsAfterSync {
    /// The line to send, or nil without goals today.
    static func bandLine(store: CompanionStore, nowUnixSeconds: Double, time: LocalTime) throws -> String? {
        GoalProgress.snapshot(history: try store.goalChanges(), sessions: try store.sessions(), nowUnixSeconds: nowUnixSeconds, time: time)
            .map(GoalProgress.bandLine)
    }

    /// Runs after `amble sync` completed; `quiet` (JSON output) says nothing on standard output.
    static func run(store: CompanionStore, link: CompanionLink, bandName: String, quiet: Bool,
                    nowUnixSeconds: Double = Date().timeIntervalSince1970, time: LocalTime = .system) {
        do {
            for closed in try ChallengeCommand.closeFinished(store: store, nowUnixSeconds: nowUnixSeconds, time: time) where !quiet {
                print("Challenge #\(closed.challenge.id) is over: \(GoalsText.percent(closed.completionRate)) completed. Its report: amble challenge report \(closed.challenge.id)")
            }
            guard let line = try bandLine(store: store, nowUnixSeconds: nowUnixSeconds, time: time) else { return }
            guard case .settings = try link.request(.setSetting(key: BandSetting.goalProgress.rawValue, value: line)) else {
                _ = writeStandardError("warning: \(bandName) did not take the goals' progress\n")
                return
            }
            if !quiet { print("\(bandName) shows: \(line)") }
        } catch {
            _ = writeStandardError("warning: goals' progress not sent to \(bandName): \(explain(error, band: bandName))\n")
        }
    }
}
