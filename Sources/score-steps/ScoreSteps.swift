// score-steps: the step counter's figures on labelled recordings, per device, as Amble is
// judged (walking MAPE, false steps per hour), on days made from them (RecordedDays: a day's
// total), the walks' spread (within ±5 %, the worst five), with leave-one-device-out and with every
// parameter moved at random (scripts/score-steps, docs/steps.md). A developer's measurement,
// not a test; nothing is written.

import AmbleRecordings
@_spi(Diagnostics) import AmbleSignal
import AmbleSimulation
import ArgumentParser
import Dispatch

@main
struct ScoreSteps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score-steps",
        abstract: "The step counter's figures per device, leave-one-device-out, and with its parameters moved.",
        discussion: """
            Reads every labelled recording of the folders (labels.csv as ../shared/tools/score.py \
            reads it) once, and tells the device by the file name (bangle__: Bangle.js, pebble__: \
            Pebble, l1-/l2-: Sensor Watch). Per device: walking MAPE and false steps per hour \
            (pooled over its non-walking recordings), then the same with the parameters chosen \
            without that device (leave-one-device-out: a grid over the start, continue and edge \
            thresholds scored on the other devices), then the mean over DRAWS draws with every \
            parameter moved at random by up to SPREAD. Mixed days: DAYS days per device and rate \
            made from the same recordings as scripts/make-day makes them (bouts of 4-60 steps \
            between stretches of non-walking recordings), each scored by the error of its total \
            (within 15 % needed); recordings labelled mixed in the folders are scored so too.
            """)

    @Option(name: .customLong("data"), parsing: .singleValue,
            help: ArgumentHelp("A folder of recordings with its labels.csv (repeatable).", valueName: "folder"))
    var folders: [String] = ["../shared/data/dev/steps", "../shared/data/dev/steps-pebble"]

    @Option(help: "Random draws of all parameters moved at once.")
    var draws = 20

    @Option(help: "The largest relative move of each parameter in a draw (0.1: ±10 %).")
    var spread = 0.1

    @Option(help: "Seed of the draws.")
    var seed: UInt64 = 1

    @Option(help: "Mixed days made per device and rate from the folders' recordings, as scripts/make-day makes them (0: none).")
    var days = 3

    @Option(help: "Seed of the mixed days (scripts/make-day --seed).")
    var daySeed: UInt64 = 1

    @Option(help: "Days at home made per device and rate, as scripts/make-day --home makes them: 120 bouts of 4-15 steps between 3-30 s of other activity (0: none).")
    var homeDays = 3

    @Option(name: .customLong("set"), parsing: .singleValue,
            help: ArgumentHelp("A parameter changed throughout, as NAME=VALUE (repeatable).", valueName: "name=value"))
    var settings: [String] = []

    @Flag(help: "Skip leave-one-device-out.")
    var noLODO = false

    @Flag(help: "Skip the moved-parameter draws.")
    var noDraws = false

    @Flag(help: "Print every draw's figures and its parameters' moves.")
    var eachDraw = false

    @Flag(help: "Print every recording's count.")
    var files = false

    @Flag(help: "Give the counter only |a| of the three-axis recordings (Bangle.js, Pebble), as a magnitude-only sensor would: more magnitude-only walks than Sensor Watch's to judge that path on.")
    var magnitudeOnly = false

    @Flag(help: "Print every recording's count and walking time for every parameter set scored (base, the leave-one-device-out grid, the draws), one line each, and stop: diff two runs to check that a change to the counter's code counts the same.")
    var dumpCounts = false

    @Flag(help: "List the parameters and their values, and stop.")
    var list = false

    @Flag(help: "Print the synthetic mindful walks (35-60 steps/min, WristWalk) with the cadence the counter reads for each, and stop.")
    var syntheticSlow = false

    @Flag(help: "With --synthetic-slow: the verdicts per cadence without context and with the band's mindful-walk context expecting 0.8, 1 and 1.2 x each walk's true cadence; without it: the development walks so (walking MAPE per device, Sensor Watch's slow clips apart) and the non-walking recordings' false steps per hour with the context expecting --expected steps/min.")
    var mindfulContext = false

    @Option(help: "With --mindful-context --synthetic-slow: list the cases not ok at this share (0.8, 1, 1.2).")
    var detail: Double?

    @Flag(help: "With --mindful-context: each walk's true cadence is its true steps over the walking time the context-free counter found in it, not over the recording's length (which holds standing too).")
    var cadenceFromWalkingTime = false

    @Option(help: "With --mindful-context: the expected cadence, steps/min, on the non-walking recordings (and with --trace, on the one traced).")
    var expected = 50.0

    @Flag(help: "Print the wrist's statistics per cadence on the development walks beside the wrist-walking model's (WristWalk), and stop.")
    var wristModel = false

    @Option(help: "Wearers the model is drawn for in --wrist-model.")
    var wearers = 12

    @Option(help: ArgumentHelp("Print one recording's analysis windows, one line per second, and stop.", valueName: "file"))
    var trace: String?

    func baseParameters() throws -> StepCounter.Parameters {
        var parameters = StepCounter.Parameters.standard
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let value = Double(parts[1]) else {
                throw ValidationError("--set \(setting): expected NAME=VALUE, such as periodicityToStart=0.5")
            }
            guard let named = StepCounter.Parameters.all.first(where: { $0.name == parts[0] }) else {
                throw ValidationError("--set: \"\(parts[0])\" is not a step-counter parameter (--list shows them)")
            }
            parameters[keyPath: named.keyPath] = value
        }
        return parameters
    }

    func run() throws {
        let base = try baseParameters()
        if list {
            for named in StepCounter.Parameters.all { print("\(named.name) = \(format(base[keyPath: named.keyPath]))") }
            return
        }
        if try runOtherMode(base) { return }
        let set = try LabelledSet(folders: folders, magnitudeOnly: magnitudeOnly, days: days, homeDays: homeDays, daySeed: daySeed)
        if dumpCounts {
            printCounts(set, parameterSets: [base] + LeaveOneDeviceOut.grid(around: base) + drawnParameters(base))
            return
        }
        let devices = set.devices
        print("recordings: " + devices.map { device in "\(device) \(set.recordings.filter { $0.device == device }.count)" }.joined(separator: ", "))

        let asSet = set.score(base)
        if files {
            for (recording, counted) in zip(set.recordings, set.counts(base)) {
                print("  \(recording.label.file)  true \(recording.label.trueSteps)  counted \(counted)")
            }
        }
        let lodo = noLODO ? [:] : leaveOneDeviceOut(set, base: base)
        let moved = noDraws ? [] : drawnFigures(set, base: base)

        print("")
        print(pad("device", 14) + pad("walking MAPE", 14) + pad("false/h", 9) + pad("mixed days", 12) + pad("home days", 11) + pad("±5 %", 7)
              + pad("LODO MAPE", 11) + pad("LODO f/h", 10) + pad("LODO mixed", 12)
              + pad("moved MAPE", 12) + pad("moved f/h", 10) + pad("moved mixed", 12))
        for device in devices {
            let figures = asSet.byDevice[device]!
            var line = pad(device, 14) + pad(percent(figures.walkingMAPE), 14) + pad(perHour(figures.falseStepsPerHour), 9)
                + pad(percent(figures.mixedMAPE), 12) + pad(percent(figures.homeMAPE), 11) + pad(percent(figures.withinFivePercent.map { $0 * 100 }, digits: 0), 7)
            if let held = lodo[device] {
                line += pad(percent(held.figures.walkingMAPE), 11) + pad(perHour(held.figures.falseStepsPerHour), 10) + pad(percent(held.figures.mixedMAPE), 12)
            } else {
                line += pad("-", 11) + pad("-", 10) + pad("-", 12)
            }
            if !moved.isEmpty {
                let mape = mean(moved.compactMap { $0[device]?.walkingMAPE })
                let fph = mean(moved.compactMap { $0[device]?.falseStepsPerHour })
                let mixed = mean(moved.compactMap { $0[device]?.mixedMAPE })
                line += pad(percent(mape), 12) + pad(perHour(fph), 10) + pad(percent(mixed), 12)
            }
            print(line)
        }
        print("(mixed days: mean error of each day's total; home days: the same for days of 4-15-step bouts; ±5 %: the share of walks counted within 5 %)")
        printSpread(set, counts: set.counts(base))
        let threeAxisDevices = devices.filter { $0 != "Sensor Watch" && !$0.hasSuffix("|a|") }
        if !threeAxisDevices.isEmpty {
            print("3-axis devices pooled: \(perHour(set.pooled(base, devices: threeAxisDevices))) false steps per hour")
        }
        print("")
        print("cadence the band compares with the limit (median of the per-second values) against steps ÷ walking time,")
        print("walks of more than 30 steps counted:")
        let agreement = set.cadenceAgreement(base)
        for device in devices {
            let errors = agreement.filter { $0.device == device }.map { abs($0.ratio - 1) }.sorted()
            guard !errors.isEmpty else { continue }
            let within = errors.filter { $0 <= 0.03 }.count
            print("  \(pad(device + ":", 14))within 3 % on \(within) of \(errors.count) walks; median difference \(fixed(100 * errors[errors.count / 2], 1)) %, largest \(fixed(100 * errors.last!, 1)) %")
        }
        if !lodo.isEmpty {
            print("")
            print("leave-one-device-out: parameters chosen on the other devices")
            for device in devices { print("  without \(device): \(lodo[device]!.chosen)") }
        }
        if !moved.isEmpty {
            print("")
            print("moved: \(draws) draws, every parameter x (1 ± up to \(format(spread))), seed \(seed); worst draw per device:")
            for device in devices {
                let worst = moved.compactMap { $0[device] }.max { ($0.walkingMAPE ?? 0) < ($1.walkingMAPE ?? 0) }
                let worstFalse = moved.compactMap { $0[device]?.falseStepsPerHour }.max()
                let worstMixed = moved.compactMap { $0[device]?.mixedMAPE }.max()
                print("  \(device): walking \(percent(worst?.walkingMAPE)), false steps \(perHour(worstFalse))/h, mixed days \(percent(worstMixed))")
            }
        }
    }

    /// The modes that print something else than the figures (--trace, --synthetic-slow,
    /// --wrist-model, the mindful-walk context): true when one of them ran.
    func runOtherMode(_ base: StepCounter.Parameters) throws -> Bool {
        if let trace, syntheticSlow {
            // A synthetic mindful walk by its description, with the context at --detail x its cadence.
            guard let mindful = WristWalk.mindfulCadences.flatMap(WristWalk.mindfulCases(at:)).first(where: { $0.description == trace }) else {
                throw ValidationError("--trace with --synthetic-slow: no synthetic mindful walk is called \"\(trace)\"")
            }
            let samples = mindful.recording.rows.map {
                AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG, isMagnitudeOnly: mindful.magnitudeOnly)
            }
            printTrace(samples, parameters: base, context: detail.map { .mindfulWalk(expectedStepsPerMinute: $0 * mindful.cadenceStepsPerMinute) })
            return true
        }
        if syntheticSlow, mindfulContext {
            SyntheticSlow.runWithContext(parameters: base, detailShare: detail)
            return true
        }
        if syntheticSlow {
            SyntheticSlow.run(parameters: base)
            return true
        }
        if wristModel {
            try WristModelFit.run(folders: folders, wearers: wearers)
            return true
        }
        if let trace {
            try printTrace(path: trace, parameters: base, magnitudeOnly: magnitudeOnly,
                           context: mindfulContext ? .mindfulWalk(expectedStepsPerMinute: expected) : nil)
            return true
        }
        if mindfulContext {
            try MindfulContextScore.run(set: LabelledSet(folders: folders, magnitudeOnly: magnitudeOnly), parameters: base, expected: expected,
                                         walkingTime: cadenceFromWalkingTime)
            return true
        }
        return false
    }

    /// Per device: the figures with the parameters chosen on the other devices, and the choice.
    func leaveOneDeviceOut(_ set: LabelledSet, base: StepCounter.Parameters) -> [String: (figures: DeviceFigures, chosen: String)] {
        let devices = set.devices
        var lodo: [String: (figures: DeviceFigures, chosen: String)] = [:]
        let grid = LeaveOneDeviceOut.grid(around: base)
        let scored = grid.map { (parameters: $0, figures: set.score($0)) }
        for device in devices {
            let training = devices.filter { $0 != device }
            let best = scored.min { LeaveOneDeviceOut.objective($0.figures, training) < LeaveOneDeviceOut.objective($1.figures, training) }!
            lodo[device] = (best.figures.byDevice[device]!, LeaveOneDeviceOut.describe(best.parameters))
        }
        return lodo
    }

    /// The figures per device of each of `draws` draws with every parameter moved by up to ±`spread`.
    func drawnFigures(_ set: LabelledSet, base: StepCounter.Parameters) -> [[String: DeviceFigures]] {
        let devices = set.devices
        var moved: [[String: DeviceFigures]] = []
        var random = SplitMix(seed: seed)
        for draw in 0 ..< draws {
            var parameters = base
            var moves: [String] = []
            for named in StepCounter.Parameters.all {
                let factor = 1 + spread * (2 * random.nextUnit() - 1)
                parameters[keyPath: named.keyPath] *= factor
                moves.append("\(named.name) \(fixed(100 * (factor - 1), 0)) %")
            }
            let figures = set.score(parameters).byDevice
            moved.append(figures)
            if eachDraw {
                print("draw \(draw + 1): " + devices.map { device in
                    "\(device) \(percent(figures[device]?.walkingMAPE)) / \(perHour(figures[device]?.falseStepsPerHour))"
                }.joined(separator: ", "))
                print("  " + moves.joined(separator: ", "))
            }
        }
        return moved
    }
}

extension ScoreSteps {
    /// The parameters of the draws, in order (as `run` draws them).
    func drawnParameters(_ base: StepCounter.Parameters) -> [StepCounter.Parameters] {
        var random = SplitMix(seed: seed)
        return (0 ..< (noDraws ? 0 : draws)).map { _ in
            var parameters = base
            for named in StepCounter.Parameters.all { parameters[keyPath: named.keyPath] *= 1 + spread * (2 * random.nextUnit() - 1) }
            return parameters
        }
    }
}

/// Every recording's count and walking seconds for each parameter set (`--dump-counts`).
func printCounts(_ set: LabelledSet, parameterSets: [StepCounter.Parameters]) {
    for (index, parameters) in parameterSets.enumerated() {
        for (recording, result) in zip(set.recordings, set.results(parameters)) {
            print("\(index) \(recording.label.file) \(result.steps) \(result.walkingSeconds)")
        }
    }
}

/// One recording's windows, as the counter saw them (`--trace`).
func printTrace(path: String, parameters: StepCounter.Parameters, magnitudeOnly: Bool, context: StepCounter.Context? = nil) throws {
    var samples: [AccelerationSample] = []
    try AccelerationRecording(path: path).forEachRow { row in
        let sample = AccelerationSample.recorded(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG)
        samples.append(magnitudeOnly ? sample.magnitudeOnly : sample)
    }
    printTrace(samples, parameters: parameters, context: context)
}

/// The windows of `samples`, as the counter saw them.
func printTrace(_ samples: [AccelerationSample], parameters: StepCounter.Parameters, context: StepCounter.Context?) {
    var counter = StepCounter(parameters: parameters)
    counter.context = context
    counter.recordsFrames = true
    for sample in samples { _ = counter.process(sample) }
    _ = counter.finish()
    print("end_s  base_s  periodicity  stride_vote  rms_g  candidate  on_step  at_followed  followed_step_s  cadence  steps")
    for r in counter.frameRecords {
        func f(_ v: Double?, _ digits: Int = 2) -> String { v.map { fixed($0, digits) } ?? "-" }
        print([f(r.timeSeconds, 1), f(r.basePeriodSeconds), f(r.periodicity), f(r.strideVote), f(r.rmsG, 3),
               r.isCandidate ? "yes" : "no", r.heelStrikesOnStep ? "yes" : "no", f(r.periodicityAtFollowed), f(r.followedStepPeriodSeconds), f(r.cadenceStepsPerMinute, 0), String(r.totalSteps)]
            .map { pad($0, 7) }.joined(separator: " "))
    }
    for w in counter.walkRecords { print("walk \(fixed(w.startSeconds, 1))-\(fixed(w.endSeconds, 1)) s: \(w.steps) steps") }
    for b in counter.boutRecords { print("bout \(fixed(b.fromSeconds, 1))-\(fixed(b.throughSeconds, 1)) s: \(b.steps) steps") }
    print("total \(counter.totalSteps) steps, walking \(fixed(counter.walkingSeconds, 1)) s")
}

/// Figures of one device: walking MAPE (%), pooled false steps per hour, the mean error of its
/// mixed days' totals and of its days at home (%), and the share of its walks counted within
/// 5 % (0-1).
struct DeviceFigures {
    var walkingMAPE: Double?
    var falseStepsPerHour: Double?
    var mixedMAPE: Double?
    var homeMAPE: Double?
    var withinFivePercent: Double?
}

/// The spread behind each device's figures: the mixed days one by one (a day's total must be
/// within 15 %), and the share of walks within ±5 % with the five worst.
func printSpread(_ set: LabelledSet, counts: [Int]) {
    let counted = zip(set.recordings, counts).map { (recording: $0, count: $1) }
    print("")
    print("mixed days and days at home (a day's total must be within 15 %): truth, count, error")
    for device in set.devices {
        let days = counted.filter { $0.recording.device == device && $0.recording.label.kind == .mixed }
        guard !days.isEmpty else { continue }
        print("  \(device): " + days.map { day in
            let error = Double(day.count - day.recording.label.trueSteps) / Double(day.recording.label.trueSteps) * 100
            return "\(day.recording.label.file.split(separator: "_").last.map(String.init) ?? day.recording.label.file) \(day.recording.label.trueSteps) \(day.count) \(error >= 0 ? "+" : "")\(fixed(error, 1)) %\(abs(error) > 15 ? " !" : "")"
        }.joined(separator: ", "))
    }
    print("")
    print("walks within ±5 %, and the five worst (file, truth, count):")
    for device in set.devices {
        let walks = counted.filter { $0.recording.device == device && $0.recording.label.kind == .walking }
        guard !walks.isEmpty else { continue }
        func error(_ walk: (recording: LabelledSet.Recording, count: Int)) -> Double {
            Double(abs(walk.count - walk.recording.label.trueSteps)) / Double(walk.recording.label.trueSteps)
        }
        let within = walks.filter { error($0) <= 0.05 }.count
        print("  \(device): \(within) of \(walks.count) within ±5 %")
        for walk in walks.sorted(by: { error($0) > error($1) }).prefix(5) {
            print("    \(pad(walk.recording.label.file, 52)) \(pad(String(walk.recording.label.trueSteps), 6)) \(walk.count)")
        }
    }
}

struct SetFigures {
    var byDevice: [String: DeviceFigures]
}

/// The recordings of the labelled folders, read once into memory.
struct LabelledSet: Sendable {
    struct Recording: Sendable {
        var label: StepLabel
        var device: String
        var samples: [AccelerationSample]
    }

    var recordings: [Recording] = []

    /// `magnitudeOnly`: three-axis rows are given as their |a| alone, and their devices named
    /// "... |a|". `days`: mixed days made per device and rate from the walking and non-walking
    /// recordings (`RecordedDays`), appended after them.
    init(folders: [String], magnitudeOnly: Bool = false, days: Int = 0, homeDays: Int = 0, daySeed: UInt64 = 1) throws {
        let read = try RecordedDays.read(folders: folders)
        let sources = read.compactMap(RecordedDays.Source.init)
        let made = (days > 0 ? try RecordedDays.make(days: days, from: sources, seed: daySeed) : [])
            + (homeDays > 0 ? try RecordedDays.make(days: homeDays, from: sources, plan: .home, seed: daySeed) : [])
        let all = read + made.map { (label: StepLabel(file: $0.day.name + ".csv", trueSteps: $0.day.trueSteps, kind: .mixed,
                                                          durationSeconds: $0.day.durationSeconds), rows: $0.day.rows) }
        for (label, rows) in all {
            var samples: [AccelerationSample] = []
            var hadAxes = false
            for row in rows {
                let sample = AccelerationSample.recorded(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG)
                if magnitudeOnly, !sample.isMagnitudeOnly { hadAxes = true }
                samples.append(magnitudeOnly ? sample.magnitudeOnly : sample)
            }
            let device = RecordedDays.device(of: label.file)
            recordings.append(Recording(label: label, device: hadAxes ? device + " |a|" : device, samples: samples))
        }
    }

    var devices: [String] {
        var seen: [String] = []
        for recording in recordings where !seen.contains(recording.device) { seen.append(recording.device) }
        return seen
    }

    /// Each recording's count, with the counter as `amble analyze steps` runs it (finished at
    /// the end), on all cores.
    func counts(_ parameters: StepCounter.Parameters) -> [Int] {
        results(parameters).map(\.steps)
    }

    /// Each recording's count and walking seconds, as `counts`.
    func results(_ parameters: StepCounter.Parameters, context: (@Sendable (Recording) -> StepCounter.Context?)? = nil)
        -> [(steps: Int, walkingSeconds: Double)] {
        let results = UnsafeMutableBufferPointer<(steps: Int, walkingSeconds: Double)>.allocate(capacity: recordings.count)
        defer { results.deallocate() }
        let recordings = self.recordings
        nonisolated(unsafe) let output = results
        DispatchQueue.concurrentPerform(iterations: recordings.count) { i in
            var counter = StepCounter(parameters: parameters)
            counter.context = context?(recordings[i])
            for sample in recordings[i].samples { _ = counter.process(sample) }
            _ = counter.finish()
            output[i] = (counter.totalSteps, counter.walkingSeconds)
        }
        return Array(results)
    }

    /// For each walking recording of more than 30 counted steps: the median of the per-second
    /// cadence the counter published while walking, over steps ÷ walking time (the issue's check
    /// of the cadence the band compares with the limit).
    func cadenceAgreement(_ parameters: StepCounter.Parameters) -> [(device: String, ratio: Double)] {
        var out: [(device: String, ratio: Double)] = []
        for recording in recordings where recording.label.kind == .walking {
            var (steps, cadences, walkingSeconds) = StepCounter.countWithCadence(recording.samples, parameters: parameters)
            guard steps > 30, walkingSeconds > 0, !cadences.isEmpty else { continue }
            cadences.sort()
            out.append((recording.device, cadences[cadences.count / 2] / (Double(steps) / walkingSeconds * 60)))
        }
        return out
    }

    /// Whether a recording is a day at home (`RecordedDays.Plan.home`), scored apart from the
    /// other mixed days.
    static func isHomeDay(_ recording: Recording) -> Bool { recording.label.kind == .mixed && recording.label.file.contains("__home-") }

    func score(_ parameters: StepCounter.Parameters) -> SetFigures {
        let counted = counts(parameters)
        var scores: [String: StepScore] = [:], home: [String: StepScore] = [:]
        for (recording, steps) in zip(recordings, counted) {
            if Self.isHomeDay(recording) {
                home[recording.device, default: StepScore()].add(counted: steps, for: recording.label)
            } else {
                scores[recording.device, default: StepScore()].add(counted: steps, for: recording.label)
            }
        }
        return SetFigures(byDevice: scores.mapValues { score in
            DeviceFigures(walkingMAPE: score.walkingMAPEPercent, falseStepsPerHour: score.falseStepsPerHour, mixedMAPE: score.mixedMAPEPercent,
                          withinFivePercent: score.walkingPercentErrors.isEmpty ? nil
                              : Double(score.walkingPercentErrors.filter { $0 <= 5 }.count) / Double(score.walkingPercentErrors.count))
        }.merging(home.mapValues { DeviceFigures(homeMAPE: $0.mixedMAPEPercent) }) { figures, homeFigures in
            var merged = figures
            merged.homeMAPE = homeFigures.homeMAPE
            return merged
        })
    }

    /// False steps per hour pooled over the non-walking recordings of `devices`.
    func pooled(_ parameters: StepCounter.Parameters, devices: [String]) -> Double? {
        var score = StepScore()
        for (recording, steps) in zip(recordings, counts(parameters)) where devices.contains(recording.device) {
            score.add(counted: steps, for: recording.label)
        }
        return score.falseStepsPerHour
    }
}

/// Leave-one-device-out: the thresholds that decide where walks start, continue and end,
/// chosen on the other devices' recordings by walking MAPE plus a twentieth of the false
/// steps per hour (20 false steps per hour weigh as much as one point of MAPE).
enum LeaveOneDeviceOut {
    static let starts = [0.35, 0.40, 0.45, 0.50, 0.55]
    static let continues = [0.20, 0.25, 0.30]
    static let edges = [0.25, 0.35, 0.45]

    static func grid(around base: StepCounter.Parameters) -> [StepCounter.Parameters] {
        var grid: [StepCounter.Parameters] = []
        for start in starts {
            for keep in continues {
                for edge in edges {
                    var parameters = base
                    parameters.periodicityToStart = start
                    parameters.periodicityToContinue = keep
                    parameters.edgeEnergyShare = edge
                    grid.append(parameters)
                }
            }
        }
        return grid
    }

    static func objective(_ figures: SetFigures, _ devices: [String]) -> Double {
        let values = devices.compactMap { device -> Double? in
            guard let f = figures.byDevice[device] else { return nil }
            return (f.walkingMAPE ?? 0) + (f.falseStepsPerHour ?? 0) / 20
        }
        return values.reduce(0, +) / Double(max(values.count, 1))
    }

    static func describe(_ parameters: StepCounter.Parameters) -> String {
        "periodicityToStart \(format(parameters.periodicityToStart)), periodicityToContinue \(format(parameters.periodicityToContinue)), edgeEnergyShare \(format(parameters.edgeEnergyShare))"
    }
}

/// A small seeded generator (SplitMix64) for the draws.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
func format(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}
/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0 ..< digits { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale), part = scaled % Int(scale)
    let decimals = digits > 0 ? "." + String(repeating: "0", count: digits - String(part).count) + String(part) : ""
    return (value < 0 && scaled > 0 ? "-" : "") + String(whole) + decimals
}
func percent(_ value: Double?, digits: Int = 1) -> String {
    value.map { (digits == 0 ? String(Int($0.rounded())) : format(($0 * 10).rounded() / 10)) + " %" } ?? "-"
}
func perHour(_ value: Double?) -> String { value.map { String(Int($0.rounded())) } ?? "-" }
func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }
