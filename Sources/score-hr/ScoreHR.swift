// score-hr: the heart-rate estimator's figures on the development recordings, per device and
// per sensor variant, as Amble is judged (../shared/tools/score.py hr: MAE as the mean of the
// per-recording errors, coverage, values more than 10 bpm off), with leave-one-device-out and
// confidence against error (scripts/score-hr, docs/heart-rate.md). A developer's
// measurement, not a test; nothing is written unless --write-variants is given.

import AmbleRecordings
import AmbleSignal
import AmbleSimulation
import ArgumentParser
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@main
struct ScoreHR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score-hr",
        abstract: "The heart-rate estimator's figures per device and sensor variant, reliability tables, the display threshold's rule, leave-one-device-out.",
        discussion: """
            Reads every recording of the three development folders (<name>.csv with <name>.ref.csv) \
            once, replays each as `amble analyze hr --csv` does (window 8 s, an estimate every 2 s, \
            values rounded to 0.1 bpm) and scores it as ../shared/tools/score.py hr does. The \
            variants are made in memory from the recordings: (a) one channel at 25 Hz with \
            acceleration at 12.5 Hz, (b) raw counts with a large DC level and slow drift, (c) \
            gains x0.3 and x3, (d) no accelerometer, and a magnitude-only accelerometer. \
            Reliability: per device and variant, the values in each confidence bin, the share \
            within 5 bpm and the share more than 10 off; the display threshold is the lowest bin \
            edge at which every table shows at most 3 % more than 10 bpm off and every bin shown \
            at least half within 5 bpm. Leave-one-device-out: evidenceScale, neutralEvidence, \
            driftBPM (a 3 x 3 x 3 grid) and the confidence threshold are chosen on the other \
            devices' recordings (lowest MAE with coverage >= 95 % and at most 2 % of the values \
            more than 10 bpm off) and scored on this one.
            """)

    @Option(help: ArgumentHelp("The SPC training recordings (TROIKA, 125 Hz, 2 channels).", valueName: "folder"))
    var spc = "../shared/data/dev/hr"

    @Option(help: ArgumentHelp("The BAMI development recordings (50 Hz, 3 channels of raw counts).", valueName: "folder"))
    var bami = "../shared/data/dev/hr-bami"

    @Option(help: ArgumentHelp("The Bangle.js 2 development recordings (VC31, 1 channel at about 22 Hz, irregular).", valueName: "folder"))
    var bangle = "../shared/data/dev/hr-bangle"

    @Option(name: .customLong("set"), parsing: .singleValue,
            help: ArgumentHelp("A parameter changed throughout, as NAME=VALUE (repeatable; --list shows them).", valueName: "name=value"))
    var settings: [String] = []

    @Option(help: "The confidence threshold (0...1) of the main table (default: each sensor class's, HeartRateEstimator.Configuration.displayThresholds).")
    var threshold: Double?

    @Flag(help: "Skip the reliability tables.")
    var noReliability = false

    @Option(help: "Random draws with the confidence parameters moved at once (0: none).")
    var draws = 0

    @Option(help: "The largest relative move of each parameter in a draw (0.1: ±10 %).")
    var spread = 0.1

    @Option(help: "Seed of the draws.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Write every window (device, variant, recording, reference, value, confidence) as CSV to FILE.", valueName: "file"))
    var dump: String?

    @Flag(help: "Skip leave-one-device-out.")
    var noLODO = false

    @Flag(help: "Leave-one-device-out with the confidence threshold fixed at --threshold (by its meaning) instead of chosen.")
    var lodoFixedThreshold = false

    @Flag(help: "Score the recordings as recorded only (no variants).")
    var noVariants = false

    @Flag(help: "Print every recording's figures.")
    var files = false

    @Flag(help: "List the parameters and their values, and stop.")
    var list = false

    @Option(help: ArgumentHelp("Also write every variant as CSV with its reference into DIR/<device>-<variant>/ (to score them with score.py).", valueName: "dir"))
    var writeVariants: String?

    func baseParameters() throws -> HeartRateEstimator.Parameters {
        var parameters = HeartRateEstimator.Parameters.standard
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let value = Double(parts[1]) else {
                throw ValidationError("--set \(setting): expected NAME=VALUE, such as driftBPM=4")
            }
            guard let named = HeartRateEstimator.Parameters.all.first(where: { $0.name == parts[0] }) else {
                throw ValidationError("--set: \"\(parts[0])\" is not a heart-rate parameter (--list shows them)")
            }
            parameters[keyPath: named.keyPath] = value
        }
        return parameters
    }

    /// --threshold, or each run's sensor class's display threshold.
    func mainThreshold(_ run: Replayed) -> Double {
        threshold ?? HeartRateEstimator.Configuration(sensor: run.sensor).minimumConfidence
    }

    /// --threshold, or the band's class's (leave-one-device-out with a fixed threshold).
    var fixedThreshold: Double { threshold ?? HeartRateEstimator.Configuration(sensor: .standardThreeAxis).minimumConfidence }

    func validate() throws {
        guard threshold.map({ (0...1).contains($0) }) ?? true else { throw ValidationError("--threshold must be between 0 and 1") }
    }

    func run() throws {
        let base = try baseParameters()
        if list {
            for named in HeartRateEstimator.Parameters.all { print("\(named.name) = \(format(base[keyPath: named.keyPath]))") }
            return
        }
        let devices = [Device(name: "SPC training", folder: spc), Device(name: "BAMI dev", folder: bami),
                       Device(name: "Bangle.js dev", folder: bangle)]
        var recordings: [Recording] = []
        for device in devices {
            for name in try Self.recordingNames(in: device.folder) {
                recordings.append(try Recording(folder: device.folder, name: name, device: device.name))
            }
        }
        let variants = noVariants ? [SensorVariant.asRecorded] : SensorVariant.allCases
        print("recordings: " + devices.map { d in "\(d.name) \(recordings.filter { $0.device == d.name }.count) (\(d.folder))" }.joined(separator: ", "))
        if let directory = writeVariants {
            try write(recordings, variants: variants, to: directory)
        }

        // Every window's value and confidence, per variant, with the parameters given.
        var runs: [SensorVariant: [Replayed]] = [:]
        for variant in variants { runs[variant] = Replayed.all(recordings.map { $0.with(variant) }, parameters: base) }
        if let path = dump {
            try dumpWindows(runs, variants: variants, to: path)
        }

        print("")
        print("MAE bpm (mean of per-recording), coverage, values more than 10 bpm off; confidence threshold "
              + (threshold.map { format($0) } ?? "of each sensor class (Configuration.displayThresholds)"))
        printTable(devices: devices, variants: variants) { device, variant in
            Figures(runs[variant]!.filter { $0.device == device.name }, threshold: mainThreshold).text
        }
        if files {
            print("")
            for run in runs[.asRecorded]! {
                let f = Figures([run], threshold: mainThreshold)
                print("  \(pad(run.name, 30)) \(pad(run.device, 14)) \(f.text)")
            }
        }

        if !noReliability { try printReliability(runs, devices: devices, variants: variants) }

        if !noLODO { try printLeaveOneDeviceOut(recordings, base: base, runs: runs, devices: devices, variants: variants) }

        if draws > 0 { printDraws(recordings, base: base, devices: devices, variants: variants) }

        print("")
        print("threshold trade-off, as recorded (MAE, coverage, off by more than 10):")
        for t in [0.3, 0.4, 0.45, 0.5, 0.6, 0.7] {
            var line = pad("  \(format2(t))", 14)
            for device in devices { line += "| " + pad(Figures(runs[.asRecorded]!.filter { $0.device == device.name }, threshold: t).text, 26) }
            print(line)
        }
    }

    /// The reliability tables per set and variant, the display threshold's rule on them all and per sensor class.
    func printReliability(_ runs: [SensorVariant: [Replayed]], devices: [Device], variants: [SensorVariant]) throws {
        print("")
        print("reliability: every window, no threshold; per confidence bin: windows with a value, share within 5 bpm, share more than 10 off")
        var tables: [(set: String, table: HeartRateReliability)] = []
        var header = pad("set, variant", 58)
        for b in 0..<(HeartRateReliability.edges.count - 1) { header += "| " + pad(HeartRateReliability.binName(b), 15) }
        print(header + "| alone")
        for device in devices {
            for variant in variants {
                let table = HeartRateReliability(runs[variant]!.filter { $0.device == device.name })
                tables.append(("\(device.name), \(variant.title)", table))
                var line = pad("\(device.name), \(variant.title)", 58)
                for bin in table.bins { line += "| " + pad(bin.text, 15) }
                print(line + "| " + (HeartRateReliability.displayThreshold([table]).map { format2($0) } ?? "none"))
            }
        }
        let rule = HeartRateReliability.displayThreshold(tables.map { $0.table })
        print("(\"alone\": the rule on that table alone)")
        print("display threshold by the rule (the lowest lower edge at which, on every set and variant, at most "
              + "\(percent(HeartRateReliability.displayFarOffShare)) of the values shown are more than 10 bpm off and every bin shown is at least "
              + "\(percent(HeartRateReliability.displayWithinFiveShare)) within 5 bpm): " + (rule.map { format2($0) } ?? "none"))
        if rule == nil {
            let met = tables.filter { HeartRateReliability.displayThreshold([$0.table]) != nil }
            let missed = tables.filter { HeartRateReliability.displayThreshold([$0.table]) == nil }
            print("  on the \(met.count) of \(tables.count) sets and variants on which it can be met: "
                  + (HeartRateReliability.displayThreshold(met.map { $0.table }).map { format2($0) } ?? "none"))
            print("  met at no edge: " + (missed.isEmpty ? "-" : missed.map { $0.set }.joined(separator: "; ")))
        }
        printClassThresholds(runs, devices: devices, variants: variants)
    }

    /// Leave-one-device-out: the parameters and threshold chosen on the other devices, scored on each; then of the per-class thresholds.
    func printLeaveOneDeviceOut(_ recordings: [Recording], base: HeartRateEstimator.Parameters, runs: [SensorVariant: [Replayed]], devices: [Device], variants: [SensorVariant]) throws {
        print("")
        print("leave-one-device-out: evidenceScale, neutralEvidence, driftBPM" + (lodoFixedThreshold ? " (threshold fixed at \(format(fixedThreshold)))" : " and the confidence threshold")
              + " chosen on the other devices")
        print("(lowest MAE with coverage >= 95 % and at most 2 % off by more than 10 bpm), scored on this one")
        let grid = LeaveOneDeviceOut.grid(around: base)
        let scored = grid.map { parameters in
            (parameters: parameters, runs: Replayed.all(recordings, parameters: parameters))
        }
        var chosen: [String: (parameters: HeartRateEstimator.Parameters, threshold: Double)] = [:]
        for device in devices {
            let training = devices.filter { $0.name != device.name }.map(\.name)
            let choice = LeaveOneDeviceOut.choose(scored.map { ($0.parameters, $0.runs.filter { training.contains($0.device) }) },
                                                  thresholds: lodoFixedThreshold ? [fixedThreshold] : LeaveOneDeviceOut.thresholds)
            chosen[device.name] = (choice.parameters, choice.threshold)
            print("  \(device.name): chosen on \(training.joined(separator: " and ")): \(LeaveOneDeviceOut.describe(choice.parameters)), threshold \(format(choice.threshold)) (there \(choice.figures.text))")
        }
        var held: [String: [SensorVariant: Figures]] = [:]
        for device in devices {
            let (parameters, threshold) = chosen[device.name]!
            let own = recordings.filter { $0.device == device.name }
            for variant in variants {
                held[device.name, default: [:]][variant] = Figures(Replayed.all(own.map { $0.with(variant) }, parameters: parameters),
                                                                   threshold: threshold)
            }
        }
        printTable(devices: devices, variants: variants) { device, variant in held[device.name]![variant]!.text }
        printClassLeaveOneDeviceOut(runs, devices: devices, variants: variants)
    }

    /// The worst of `draws` draws with the confidence parameters moved by up to ±`spread`.
    func printDraws(_ recordings: [Recording], base: HeartRateEstimator.Parameters, devices: [Device], variants: [SensorVariant]) {
        print("")
        print("moved: \(draws) draws, \(HeartRateEstimator.Parameters.confidenceNames.joined(separator: ", ")) each x (1 ± up to \(format(spread))), seed \(seed)")
        var random = SeededRandom(seed: seed)
        var moved: [[Figures]] = Array(repeating: [], count: devices.count * variants.count)
        for _ in 0..<draws {
            var parameters = base
            for named in HeartRateEstimator.Parameters.all where HeartRateEstimator.Parameters.confidenceNames.contains(named.name) {
                parameters[keyPath: named.keyPath] *= 1 + spread * (2 * random.unit() - 1)
            }
            for (v, variant) in variants.enumerated() {
                let replayed = Replayed.all(recordings.map { $0.with(variant) }, parameters: parameters)
                for (d, device) in devices.enumerated() {
                    moved[d * variants.count + v].append(Figures(replayed.filter { $0.device == device.name }, threshold: mainThreshold))
                }
            }
        }
        print("worst draw per set and variant (MAE, coverage, far off: each the worst of the draws)")
        printTable(devices: devices, variants: variants) { device, variant in
            let figures = moved[devices.firstIndex { $0.name == device.name }! * variants.count + variants.firstIndex(of: variant)!]
            return Figures.worst(figures).text
        }
    }

    /// Every window of every variant as CSV (device, variant, recording, reference time and
    /// rate, value, confidence), for checking the calibration elsewhere.
    func dumpWindows(_ runs: [SensorVariant: [Replayed]], variants: [SensorVariant], to path: String) throws {
        var text = "device,variant,recording,truth_bpm,bpm,confidence\n"
        for variant in variants {
            for run in runs[variant]! {
                for m in run.matched {
                    text += "\(run.device),\(variant.rawValue),\(run.name),\(m.truth),\(m.bpm.map { String($0) } ?? ""),\(m.confidence)\n"
                }
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        print("windows written to \(path)")
    }

    func printTable(devices: [Device], variants: [SensorVariant], _ figures: (Device, SensorVariant) -> String) {
        var header = pad("variant", 42)
        for device in devices { header += "| " + pad(device.name, 26) }
        print(header)
        for variant in variants {
            var line = pad(variant.title, 42)
            for device in devices { line += "| " + pad(figures(device, variant), 26) }
            print(line)
        }
    }

    func write(_ recordings: [Recording], variants: [SensorVariant], to directory: String) throws {
        let files = FileManager.default
        for variant in variants {
            for recording in recordings {
                let folder = "\(directory)/\(recording.device.split(separator: " ")[0].lowercased())-\(variant.rawValue)"
                try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try variant.apply(to: recording.data).csv.write(toFile: "\(folder)/\(recording.name).csv", atomically: true, encoding: .utf8)
                var reference = "time_s,bpm\n"
                for w in recording.reference.windows { reference += "\(w.timeSeconds),\(w.bpm)\n" }
                try reference.write(toFile: "\(folder)/\(recording.name).ref.csv", atomically: true, encoding: .utf8)
            }
        }
        print("variants written under \(directory)")
    }

    static func recordingNames(in folder: String) throws -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw ValidationError("\(folder) not found: the development recordings live outside the repository (../shared/data/dev)")
        }
        return entries.filter { $0.hasSuffix(".ref.csv") }
            .map { String($0.dropLast(".ref.csv".count)) }
            .filter { entries.contains("\($0).csv") }
            .sorted()
    }
}

/// A development recording with its name, device and reference.
struct Recording: Sendable {
    var name: String
    var device: String
    var data: RecordedPPG
    var reference: HeartRateReference

    init(folder: String, name: String, device: String) throws {
        self.name = name
        self.device = device
        data = try RecordedPPG(recording: PPGRecording(path: "\(folder)/\(name).csv"))
        reference = try HeartRateReference.read(path: "\(folder)/\(name).ref.csv")
    }

    func with(_ variant: SensorVariant) -> Recording {
        var r = self
        r.data = variant.apply(to: data)
        return r
    }
}

struct Device {
    var name: String
    var folder: String
}

/// One recording replayed: for each reference window, the value matched as score.py matches
/// it (rounded as `amble analyze hr --csv` prints it) and its confidence.
struct Replayed: Sendable {
    struct Match: Sendable {
        var truth: Double
        var bpm: Double?
        var confidence: Double
    }

    var name: String
    var device: String
    var sensor: HeartRateSensorClass
    var matched: [Match]

    /// Replays every recording with `parameters` and no confidence threshold, on all cores.
    static func all(_ recordings: [Recording], parameters: HeartRateEstimator.Parameters) -> [Replayed] {
        let results = UnsafeMutableBufferPointer<Replayed?>.allocate(capacity: recordings.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        nonisolated(unsafe) let output = results
        DispatchQueue.concurrentPerform(iterations: recordings.count) { i in
            output[i] = replay(recordings[i], parameters: parameters)
        }
        return results.map { $0! }
    }

    static func replay(_ recording: Recording, parameters: HeartRateEstimator.Parameters) -> Replayed {
        var configuration = HeartRateEstimator.Configuration()
        configuration.minimumConfidence = 0
        var replay = HeartRateReplay(estimator: HeartRateEstimator(configuration: configuration, parameters: parameters), stepSeconds: 2)
        let data = recording.data
        var outputs: [HeartRateReplay.Output] = []
        var sample = PPGSample(timeSeconds: 0, channels: Array(repeating: 0, count: data.channels))
        for i in data.times.indices {
            sample.timeSeconds = data.times[i]
            for c in 0..<data.channels { sample.channels[c] = data.ppg[i * data.channels + c] }
            if let a = data.acceleration, a[3 * i].isFinite {
                sample.acceleration = AccelerationSample(timeSeconds: data.times[i], xG: a[3 * i], yG: a[3 * i + 1], zG: a[3 * i + 2])
            } else {
                sample.acceleration = nil
            }
            replay.process(sample) { outputs.append($0) }
        }
        replay.finish { outputs.append($0) }
        // As the CLI prints them: times to the millisecond, values to 0.1 bpm.
        let rounded = outputs.map { o in
            (time: (o.timeSeconds * 1000).rounded() / 1000, bpm: o.estimate.map { ($0.bpm * 10).rounded() / 10 },
             confidence: o.estimate?.confidence ?? 0)
        }
        let matched = HeartRateScore.matches(outputTimes: rounded.map(\.time), reference: recording.reference)
            .enumerated().map { window, output in
                Match(truth: recording.reference.windows[window].bpm, bpm: output.flatMap { rounded[$0].bpm },
                      confidence: output.map { rounded[$0].confidence } ?? 0)
            }
        return Replayed(name: recording.name, device: recording.device, sensor: data.sensorClass, matched: matched)
    }
}

/// A device's figures at a confidence threshold, through `HeartRateScore` (score.py's rules).
struct Figures {
    var score = HeartRateScore()

    init(_ runs: [Replayed], threshold: Double) {
        self.init(runs) { _ in threshold }
    }

    /// Each run at its own threshold (its sensor class's).
    init(_ runs: [Replayed], threshold: (Replayed) -> Double) {
        for run in runs {
            let t = threshold(run)
            score.add(estimates: run.matched.map { $0.confidence >= t ? $0.bpm : nil }, truths: run.matched.map(\.truth))
        }
    }

    var text: String {
        guard let mae = score.meanAbsoluteErrorBPM else { return "no values" }
        return "\(format2(mae))  \(percent(score.coverage))  \(percent(score.farOffShare))"
    }
}

extension Figures {
    /// The worst of several sets of figures, each figure on its own: the highest MAE, the
    /// lowest coverage, the highest share far off.
    static func worst(_ all: [Figures]) -> WorstFigures {
        WorstFigures(meanAbsoluteErrorBPM: all.compactMap(\.score.meanAbsoluteErrorBPM).max(),
                     coverage: all.map(\.score.coverage).min() ?? 0, farOffShare: all.map(\.score.farOffShare).max() ?? 0)
    }
}

/// Figures each the worst of several runs (`Figures.worst`).
struct WorstFigures {
    var meanAbsoluteErrorBPM: Double?
    var coverage: Double
    var farOffShare: Double
    var text: String {
        guard let mae = meanAbsoluteErrorBPM else { return "no values" }
        return "\(format2(mae))  \(percent(coverage))  \(percent(farOffShare))"
    }
}

extension HeartRateReliability {
    /// Every reference window of `runs` (no threshold).
    init(_ runs: [Replayed]) {
        self.init(windows: runs.flatMap { $0.matched.map { (bpm: $0.bpm, truthBPM: $0.truth, confidence: $0.confidence) } })
    }

    static func binName(_ b: Int) -> String { "\(format2(edges[b]))-\(format2(edges[b + 1]))" }
}

extension HeartRateReliability.Bin {
    /// Values, share within 5 bpm, share more than 10 off.
    var text: String {
        guard count > 0 else { return "-" }
        return "\(count) \(Int((100 * Double(withinFive) / Double(count)).rounded()))% \(percent(Double(farOff) / Double(count)))"
    }
}

/// Leave-one-device-out: three numbers of the evidence and the tracker, and the confidence
/// threshold, chosen on the other device's recordings (as the prototype's lodo.py, reading B:
/// the gait comb and the walking floor are fixed by design).
enum LeaveOneDeviceOut {
    static let evidenceScales = [0.3, 0.4, 0.5]
    static let neutralEvidences = [6.0, 10, 15]
    static let drifts = [4.0, 5, 6]
    static let thresholds = [0.35, 0.4, 0.45, 0.5, 0.55, 0.6]

    static func grid(around base: HeartRateEstimator.Parameters) -> [HeartRateEstimator.Parameters] {
        var grid: [HeartRateEstimator.Parameters] = []
        for scale in evidenceScales {
            for neutral in neutralEvidences {
                for drift in drifts {
                    var p = base
                    p.evidenceScale = scale
                    p.neutralEvidence = neutral
                    p.driftBPM = drift
                    grid.append(p)
                }
            }
        }
        return grid
    }

    /// The lowest MAE on `runs` with coverage >= 95 % and at most 2 % off by more than
    /// 10 bpm (or, when none qualifies, the lowest MAE).
    static func choose(_ candidates: [(HeartRateEstimator.Parameters, [Replayed])], thresholds: [Double])
        -> (parameters: HeartRateEstimator.Parameters, threshold: Double, figures: Figures) {
        var best: (parameters: HeartRateEstimator.Parameters, threshold: Double, figures: Figures, qualifies: Bool)?
        for (parameters, runs) in candidates {
            for threshold in thresholds {
                let figures = Figures(runs, threshold: threshold)
                guard let mae = figures.score.meanAbsoluteErrorBPM else { continue }
                let qualifies = figures.score.coverage >= 0.95 && figures.score.farOffShare <= 0.02
                if let b = best {
                    let bestMAE = b.figures.score.meanAbsoluteErrorBPM!
                    if b.qualifies && !qualifies { continue }
                    if b.qualifies == qualifies && bestMAE <= mae { continue }
                }
                best = (parameters, threshold, figures, qualifies)
            }
        }
        return (best!.parameters, best!.threshold, best!.figures)
    }

    static func describe(_ p: HeartRateEstimator.Parameters) -> String {
        "evidenceScale \(format(p.evidenceScale)), neutralEvidence \(format(p.neutralEvidence)), driftBPM \(format(p.driftBPM))"
    }
}

func format(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}
func format2(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = abs(hundredths) % 100
    return (hundredths < 0 ? "-" : "") + "\(abs(hundredths) / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
}
func percent(_ value: Double) -> String {
    let tenths = Int((value * 1000).rounded())
    return "\(tenths / 10).\(tenths % 10) %"
}
func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }

extension RecordedPPG {
    /// The sensor class of this recording, from its first rows as `amble analyze hr` reads it.
    var sensorClass: HeartRateSensorClass {
        let n = min(times.count, HeartRateSensorClass.rowsToClassify)
        let rows: [AccelerationSample?] = (0..<n).map { i in
            guard let a = acceleration, a[3 * i].isFinite else { return nil }
            return AccelerationSample(timeSeconds: times[i], xG: a[3 * i], yG: a[3 * i + 1], zG: a[3 * i + 2])
        }
        return HeartRateSensorClass(ppgChannels: channels, times: Array(times.prefix(n)), acceleration: rows)
    }
}

/// The rule per sensor class: the class's tables (one per set and variant with recordings of
/// the class) and the threshold the rule reads from them, or the best edge when it reads none.
struct ClassThreshold {
    var sensor: HeartRateSensorClass
    var sets: [String]
    var value: Double
    var meetsRule: Bool

    init(sensor: HeartRateSensorClass, runs: [SensorVariant: [Replayed]], devices: [Device], variants: [SensorVariant]) {
        self.sensor = sensor
        var tables: [HeartRateReliability] = []
        sets = []
        for device in devices {
            for variant in variants {
                let own = runs[variant]!.filter { $0.device == device.name && $0.sensor == sensor }
                guard !own.isEmpty else { continue }
                tables.append(HeartRateReliability(own))
                sets.append("\(device.name.split(separator: " ")[0]) \(variant.rawValue)")
            }
        }
        let rule = HeartRateReliability.displayThreshold(tables)
        value = rule ?? HeartRateReliability.bestEdge(tables)
        meetsRule = rule != nil
    }

    var text: String {
        sets.isEmpty ? "no recordings" : "\(format2(value))" + (meetsRule ? "" : " FAILS the rule at every edge (best edge kept)")
            + " (\(sets.joined(separator: ", ")))"
    }
}

extension ScoreHR {
    /// Each class's threshold by the rule, beside what `Configuration.displayThresholds` holds.
    func printClassThresholds(_ runs: [SensorVariant: [Replayed]], devices: [Device], variants: [SensorVariant]) {
        print("display threshold per sensor class (the rule on the tables of that class's sets and variants):")
        for sensor in HeartRateSensorClass.allCases {
            let read = ClassThreshold(sensor: sensor, runs: runs, devices: devices, variants: variants)
            let coded = HeartRateEstimator.Configuration.displayThresholds[sensor]
            let differs = coded.map { abs($0.value - read.value) > 1e-9 || $0.meetsRule != read.meetsRule } ?? true
            print("  \(pad(sensor.description, 58))\(read.text)"
                  + (read.sets.isEmpty || !differs ? "" : "; DIFFERS from Configuration.displayThresholds: \(coded.map { format2($0.value) } ?? "none")"))
        }
    }

    /// Leave-one-device-out of the per-class thresholds: each device scored at the thresholds
    /// the rule reads from the other devices' tables of its class (standard parameters; a class
    /// the others have no recordings of takes the standard-PPG class with the same accelerometer).
    func printClassLeaveOneDeviceOut(_ runs: [SensorVariant: [Replayed]], devices: [Device], variants: [SensorVariant]) {
        print("leave-one-device-out of the per-class thresholds (standard parameters; each class's threshold by the rule on the other devices)")
        var thresholds: [String: [HeartRateSensorClass: ClassThreshold]] = [:]
        for device in devices {
            let others = devices.filter { $0.name != device.name }
            for sensor in HeartRateSensorClass.allCases {
                var read = ClassThreshold(sensor: sensor, runs: runs, devices: others, variants: variants)
                if read.sets.isEmpty {
                    read = ClassThreshold(sensor: HeartRateSensorClass(ppg: .standard, accelerometer: sensor.accelerometer),
                                          runs: runs, devices: others, variants: variants)
                }
                thresholds[device.name, default: [:]][sensor] = read
            }
            let own = Set(variants.flatMap { v in runs[v]!.filter { $0.device == device.name }.map(\.sensor) })
            print("  \(device.name) held out: " + HeartRateSensorClass.allCases.filter { own.contains($0) }
                .map { "\($0): \(thresholds[device.name]![$0]!.text)" }.joined(separator: "; "))
        }
        printTable(devices: devices, variants: variants) { device, variant in
            Figures(runs[variant]!.filter { $0.device == device.name }) { thresholds[device.name]![$0.sensor]!.value }.text
        }
    }
}
