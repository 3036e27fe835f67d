// steps-sensitivity: how much the step counter's figures on a labelled set of recordings hang
// on its thresholds (scripts/score-steps-sensitivity, docs/steps.md). A developer's
// measurement, not a test; nothing is written.

import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import ArgumentParser

@main
struct StepsSensitivity: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps-sensitivity",
        abstract: "How much the step counter's figures on labelled recordings hang on its thresholds.",
        discussion: """
            Scores the counter on every recording of FOLDER (labels.csv as ../shared/tools/score.py \
            reads it) as the counter is, then with each threshold alone moved by -STEP and +STEP \
            (relative), then with all of them moved at once by a random amount within STEP, DRAWS \
            times. Counts (steps, samples) move only in whole units and are left out of both. \
            Figures: walking MAPE and non-walking false steps per hour, for all recordings, the \
            3-axis ones and the magnitude-only ones.
            """)

    @Option(name: .customLong("data"), help: ArgumentHelp("The folder of recordings with its labels.csv.", valueName: "folder"))
    var folder = "../shared/data/dev/steps"

    @Option(help: "The relative change of each threshold (0.02: 2 %).")
    var step = 0.02

    @Option(help: "Random joint changes scored.")
    var draws = 20

    @Option(help: "Seed of the joint changes.")
    var seed: UInt64 = 1

    @Option(name: .customLong("set"), parsing: .singleValue,
            help: ArgumentHelp("A threshold changed throughout, as NAME=VALUE (repeatable): the sensitivity of a candidate change.",
                               valueName: "name=value"))
    var settings: [String] = []

    @Option(help: ArgumentHelp("Score one threshold at COUNT values from FROM to TO instead, and stop.",
                               valueName: "name=from:to:count"))
    var sweep: String?

    @Flag(help: "List the thresholds and their values, and stop.")
    var list = false

    /// `--sweep` as a threshold's name and the values to score it at.
    func sweepValues() throws -> (name: String, values: [Double])? {
        guard let sweep else { return nil }
        let parts = sweep.split(separator: "=", maxSplits: 1).map(String.init)
        let range = parts.count == 2 ? parts[1].split(separator: ":").compactMap { Double($0) } : []
        guard range.count == 3, let count = Int(exactly: range[2]), count >= 2 else {
            throw ValidationError("--sweep \(sweep): expected NAME=FROM:TO:COUNT, such as impulses.floorG=0.07:0.09:21")
        }
        guard StepCounter.tunableParameters.contains(where: { $0.name == parts[0] }) else {
            throw ValidationError("--sweep: \"\(parts[0])\" is not a step-counter setting (--list shows them)")
        }
        return (parts[0], (0 ..< count).map { range[0] + (range[1] - range[0]) * Double($0) / Double(count - 1) })
    }

    func validate() throws {
        guard step > 0, step < 0.5 else { throw ValidationError("--step must be between 0 and 0.5 (a relative change); got \(step)") }
        guard draws >= 0 else { throw ValidationError("--draws must be 0 or more; got \(draws)") }
        _ = try baseOverrides()
        _ = try sweepValues()
    }

    /// `--set` as parameter name: value; throws naming the bad one.
    func baseOverrides() throws -> [String: Double] {
        var overrides: [String: Double] = [:]
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let value = Double(parts[1]) else {
                throw ValidationError("--set \(setting): expected NAME=VALUE with a number, such as impulses.floorG=0.075")
            }
            overrides[parts[0]] = value
        }
        do {
            _ = try StepCounter(overrides: overrides)
        } catch {
            throw ValidationError("--set: \(error)")
        }
        return overrides
    }

    func run() throws {
        if list {
            for parameter in StepCounter.tunableParameters {
                print("\(parameter.name) = \(formatted(parameter.value()))\(parameter.isCount ? " (count)" : "")")
            }
            return
        }
        let base = try baseOverrides()
        let set = try LabelledSet(folder: folder)
        print("\(folder): \(set.recordings.count) recordings (\(set.walkingCount) walking, \(set.count(magnitudeOnly: true)) magnitude-only)")
        if !base.isEmpty {
            print("changed throughout: " + base.sorted { $0.key < $1.key }.map { "\($0.key)=\(formatted($0.value))" }.joined(separator: ", "))
        }
        let reference = try set.score(overrides: base)
        print("as set:  \(reference.summary)")
        if let (name, values) = try sweepValues() {
            for value in values {
                var overrides = base
                overrides[name] = value
                print("\(name) = \(formatted(value)):  \(try set.score(overrides: overrides).summary)")
            }
            return
        }

        let thresholds = StepCounter.tunableParameters.filter { !$0.isCount && base[$0.name] == nil }
        let values = thresholds.map { $0.value() }
        print("\neach threshold alone x\(formatted(1 - step)) and x\(formatted(1 + step)); only those that move a figure:")
        var moved: [(parameter: StepCounter.TunableParameter, value: Double, lower: Figures, upper: Figures)] = []
        for (parameter, value) in zip(thresholds, values) {
            var overrides = base
            overrides[parameter.name] = value * (1 - step)
            let lower = try set.score(overrides: overrides)
            overrides[parameter.name] = value * (1 + step)
            let upper = try set.score(overrides: overrides)
            if lower != reference || upper != reference { moved.append((parameter, value, lower, upper)) }
        }
        moved.sort { max($0.lower.worstChange(from: reference), $0.upper.worstChange(from: reference))
            > max($1.lower.worstChange(from: reference), $1.upper.worstChange(from: reference)) }
        for row in moved {
            print("  \(row.parameter.name) (\(formatted(row.value)))")
            print("      lower  \(row.lower.summary)")
            print("      upper  \(row.upper.summary)")
        }
        print("  \(thresholds.count - moved.count) of \(thresholds.count) thresholds move no figure")

        guard draws > 0 else { return }
        var random = SeededRandom(seed: seed)
        var scores: [Figures] = []
        for _ in 0 ..< draws {
            var overrides = base
            for (parameter, value) in zip(thresholds, values) {
                overrides[parameter.name] = value * (1 + step * (2 * random.unit() - 1))
            }
            scores.append(try set.score(overrides: overrides))
        }
        print("\nall \(thresholds.count) thresholds at once, each x(1 +- up to \(formatted(step))), \(draws) draws (seed \(seed)):")
        for (label, figure) in [("walking MAPE, all", \Figures.all.walking), ("walking MAPE, 3-axis", \Figures.threeAxis.walking),
                                ("walking MAPE, magnitude-only", \Figures.magnitudeOnly.walking)] {
            print("  \(label): \(Spread(scores.compactMap { $0[keyPath: figure] }).text(unit: " %")) (as set: \(formatted(reference[keyPath: figure])) %)")
        }
        for (label, figure) in [("false steps per hour, all", \Figures.all.falseStepsPerHour),
                                ("false steps per hour, 3-axis", \Figures.threeAxis.falseStepsPerHour),
                                ("false steps per hour, magnitude-only", \Figures.magnitudeOnly.falseStepsPerHour)] {
            print("  \(label): \(Spread(scores.compactMap { $0[keyPath: figure] }).text(unit: "")) (as set: \(formatted(reference[keyPath: figure])))")
        }
    }
}

/// The recordings of a labelled folder, read once into memory.
struct LabelledSet {
    struct Recording {
        var label: StepLabel
        var samples: [AccelerationSample]
        var isMagnitudeOnly: Bool
    }

    var recordings: [Recording] = []

    init(folder: String) throws {
        for label in try StepLabel.read(path: folder + "/labels.csv") {
            var samples: [AccelerationSample] = []
            var magnitudeOnly = true
            try AccelerationRecording(path: folder + "/" + label.file).forEachRow { row in
                // Magnitude-only rows hold |a| in x and 0 in y and z, as `amble analyze steps` reads them.
                let isMagnitude = row.yG == 0 && row.zG == 0
                magnitudeOnly = magnitudeOnly && isMagnitude
                samples.append(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG, isMagnitudeOnly: isMagnitude))
            }
            recordings.append(Recording(label: label, samples: samples, isMagnitudeOnly: magnitudeOnly))
        }
    }

    var walkingCount: Int { recordings.filter { $0.label.kind != .nonWalking }.count }
    func count(magnitudeOnly: Bool) -> Int { recordings.filter { $0.isMagnitudeOnly == magnitudeOnly }.count }

    func score(overrides: [String: Double]) throws -> Figures {
        var all = StepScore(), threeAxis = StepScore(), magnitudeOnly = StepScore()
        for recording in recordings {
            var counter = try StepCounter(overrides: overrides)
            for sample in recording.samples { _ = counter.process(sample) }
            all.add(counted: counter.totalSteps, for: recording.label)
            if recording.isMagnitudeOnly {
                magnitudeOnly.add(counted: counter.totalSteps, for: recording.label)
            } else {
                threeAxis.add(counted: counter.totalSteps, for: recording.label)
            }
        }
        return Figures(all: .init(all), threeAxis: .init(threeAxis), magnitudeOnly: .init(magnitudeOnly))
    }
}

/// Walking MAPE (%) and false steps per hour of all recordings and of each kind, rounded as
/// reported (0.01 % and 0.1 per hour), so that figures compare as the reader sees them.
struct Figures: Equatable {
    struct Pair: Equatable {
        var walking: Double?
        var falseStepsPerHour: Double?
        init(_ score: StepScore) {
            walking = score.walkingMAPEPercent.map { ($0 * 100).rounded() / 100 }
            falseStepsPerHour = score.falseStepsPerHour.map { ($0 * 10).rounded() / 10 }
        }
    }

    var all: Pair
    var threeAxis: Pair
    var magnitudeOnly: Pair

    var summary: String {
        func text(_ pair: Pair) -> String {
            "\(pair.walking.map { formatted($0) + " %" } ?? "-") / \(pair.falseStepsPerHour.map { formatted($0) } ?? "-")"
        }
        return "walking MAPE / false steps per hour: all \(text(all)), 3-axis \(text(threeAxis)), magnitude-only \(text(magnitudeOnly))"
    }

    /// The largest worsening of a walking MAPE (points) or a false-step rate (per 10 per hour).
    func worstChange(from reference: Figures) -> Double {
        var worst = 0.0
        for (pair, base) in [(all, reference.all), (threeAxis, reference.threeAxis), (magnitudeOnly, reference.magnitudeOnly)] {
            worst = max(worst, abs((pair.walking ?? 0) - (base.walking ?? 0)),
                        abs((pair.falseStepsPerHour ?? 0) - (base.falseStepsPerHour ?? 0)) / 10)
        }
        return worst
    }
}

/// Mean, median and range of some figures.
struct Spread {
    let values: [Double]
    init(_ values: [Double]) { self.values = values.sorted() }

    func text(unit: String) -> String {
        guard !values.isEmpty else { return "-" }
        let mean = values.reduce(0, +) / Double(values.count)
        let n = values.count
        let median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
        func text(_ value: Double) -> String { formatted((value * 100).rounded() / 100) + unit }
        return "mean \(text(mean)), median \(text(median)), from \(text(values[0])) to \(text(values[n - 1]))"
    }
}

func formatted(_ value: Double?) -> String {
    guard let value else { return "-" }
    let scaled = (value * 1000).rounded() / 1000
    return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
}
