// The development recordings counted as the band counts during a mindful walk
// (`StepCounter.Context.mindfulWalk`): `score-steps --mindful-context`.

import AmbleRecordings
@_spi(Diagnostics) import AmbleSignal

enum MindfulContextScore {
    /// The shares of each walk's true cadence the context expects: the wearer's limit is not
    /// their actual pace.
    static let shares: [Double?] = [nil, 0.8, 1.0, 1.2]

    /// Whether a walk is one of Sensor Watch's slow clips (30-51 steps/min), reported apart.
    static func isSlowClip(_ recording: LabelledSet.Recording) -> Bool { recording.label.file.contains("slow-walking") }

    /// `walkingTime`: a walk's true cadence is its true steps over the time the context-free
    /// counter found walked in it (else over the recording's length, which holds standing too).
    static func run(set: LabelledSet, parameters: StepCounter.Parameters, expected: Double, walkingTime: Bool) {
        let plain = set.results(parameters)
        let truths: [Double] = zip(set.recordings, plain).map { recording, result in
            let seconds = walkingTime && result.walkingSeconds > 0 ? result.walkingSeconds : recording.label.durationSeconds
            return Double(recording.label.trueSteps) / seconds * 60
        }
        let truthOf = Dictionary(zip(set.recordings.map(\.label.file), truths)) { first, _ in first }
        print("development recordings counted as during a mindful walk: walking MAPE per device, each walk with the context")
        print("expecting share x its true cadence (true steps ÷ " + (walkingTime ? "the walking time the context-free counter found" : "recording length")
              + "); non-walking recordings with it expecting \(format(expected)) steps/min")
        typealias Group = (name: String, include: (LabelledSet.Recording) -> Bool)
        var groups: [Group] = []
        for device in set.devices {
            groups.append((device, { (recording: LabelledSet.Recording) -> Bool in recording.device == device && recording.label.kind == .walking }))
        }
        groups.append(("Sensor Watch slow clips", { (recording: LabelledSet.Recording) -> Bool in isSlowClip(recording) && recording.label.kind == .walking }))
        print(pad("walks", 26) + shares.map { pad($0.map { "expected \(format($0)) x" } ?? "no context", 16) }.joined())
        let counted: [[Int]] = shares.map { share in
            guard let share else { return plain.map(\.steps) }
            return set.results(parameters) { (recording: LabelledSet.Recording) -> StepCounter.Context? in
                guard recording.label.kind == .walking else { return .mindfulWalk(expectedStepsPerMinute: expected) }
                return .mindfulWalk(expectedStepsPerMinute: share * truthOf[recording.label.file]!)
            }.map(\.steps)
        }
        for group in groups {
            var line = pad(group.name, 26)
            for counts in counted {
                var score = StepScore()
                for (recording, steps) in zip(set.recordings, counts) where group.include(recording) {
                    score.add(counted: steps, for: recording.label)
                }
                line += pad(percent(score.walkingMAPEPercent), 16)
            }
            print(line)
        }
        print("false steps per hour (non-walking recordings; with context: expecting \(format(expected)) steps/min)")
        for device in set.devices {
            var line = pad(device, 26)
            for counts in [counted[0], counted[2]] {
                var score = StepScore()
                for (recording, steps) in zip(set.recordings, counts) where recording.device == device && recording.label.kind == .nonWalking {
                    score.add(counted: steps, for: recording.label)
                }
                line += pad(perHour(score.falseStepsPerHour), 16)
            }
            print(line)
        }
        print("(false steps: the first column without context, the second with it)")
        print("non-walking recordings with steps counted beyond their true ones with context (true / no context / context):")
        for (i, recording) in set.recordings.enumerated() where recording.label.kind == .nonWalking && counted[2][i] > recording.label.trueSteps {
            print("  " + pad(recording.label.file, 52) + pad(fixed(recording.label.durationSeconds / 60, 1) + " min", 10)
                  + pad(String(recording.label.trueSteps), 6) + pad(String(counted[0][i]), 6) + String(counted[2][i]))
        }
        print("walks whose count moved by more than 10 % of the truth with the context at 0.8 x (true / no context / 0.8 x, expected steps/min):")
        for (i, recording) in set.recordings.enumerated() where recording.label.kind == .walking && !isSlowClip(recording)
            && abs(Double(counted[1][i] - counted[0][i])) > 0.1 * Double(recording.label.trueSteps) {
            print("  " + pad(recording.label.file, 52) + pad(String(recording.label.trueSteps), 6) + pad(String(counted[0][i]), 6)
                  + pad(String(counted[1][i]), 6) + fixed(0.8 * truths[i], 0))
        }
        // The true cadence each clip's context is a share of: over the walking time the context-free
        // counter found, a clip it counts little of gets a cadence far above its pace.
        print("slow clips, true / no context / expected 0.8, 1, 1.2 x / the true cadence they are shares of, steps/min:")
        for (i, recording) in set.recordings.enumerated() where isSlowClip(recording) {
            print("  " + pad(recording.label.file, 44) + pad(String(recording.label.trueSteps), 6) + counted.map { pad(String($0[i]), 6) }.joined()
                  + fixed(truths[i], 0))
        }
    }
}
