import AmbleSimulation
import AmbleStateMachines

/// A scenario script on the simulated board: its steps at band times, and the answer the
/// scripted wearer gives to the band's next question (`answer yes`).
struct ScenarioPlayer {
    private var steps: [ScenarioScript.Step]
    /// Stop the band when the script reaches `end`.
    let exitAfterScript: Bool
    /// The scripted wearer's answer to the next question the band asks.
    private var pendingAnswer: Bool?

    /// `script`'s times are band seconds after `startSeconds`.
    init(script: ScenarioScript?, startSeconds: Double, exitAfterScript: Bool) {
        steps = (script?.steps ?? []).map { step in
            var shifted = step
            shifted.timeSeconds += startSeconds
            return shifted
        }
        self.exitAfterScript = exitAfterScript
    }

    /// When the next step is due, band seconds.
    var nextStepSeconds: Double? { steps.first?.timeSeconds }

    /// The steps due by `now`, in order. An `answer` is kept for the band's next question
    /// rather than returned.
    mutating func dueSteps(now: Double) -> [ScenarioScript.Step] {
        var due: [ScenarioScript.Step] = []
        while let step = steps.first, step.timeSeconds <= now {
            steps.removeFirst()
            if case .answer(let yes) = step.action {
                pendingAnswer = yes
            } else {
                due.append(step)
            }
        }
        return due
    }

    /// The press that answers `screen` when it is a question and an answer is pending: the
    /// scripted wearer reads it and answers a second later (select for yes, back for no).
    mutating func answer(to screen: Screen) -> ScenarioScript.Action? {
        guard let yes = pendingAnswer, case .question(_, _, _, let keys) = screen, keys.contains("select") else { return nil }
        pendingAnswer = nil
        return .press(role: yes ? ButtonRole.select.rawValue : ButtonRole.back.rawValue, holdSeconds: ScenarioScript.shortPressSeconds)
    }
}
