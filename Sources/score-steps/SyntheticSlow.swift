// The synthetic mindful walks (`WristWalk.mindfulCases`, `MindfulWalkTests`): the cadence the
// counter reads for each, against the true one (`score-steps --synthetic-slow`).

@_spi(Diagnostics) import AmbleSignal
import AmbleSimulation
import Dispatch

enum SyntheticSlow {
    /// The counter's reading of one mindful walk.
    /// `expectedShare`: the counter runs as the band runs it during a mindful walk, expecting
    /// this share of the walk's true cadence (nil: no context).
    static func read(_ mindful: WristWalk.MindfulCase, parameters: StepCounter.Parameters = .standard, expectedShare: Double? = nil) -> WristWalk.Reading {
        let recording = mindful.recording
        let samples = recording.rows.map { AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG, isMagnitudeOnly: mindful.magnitudeOnly) }
        let context = expectedShare.map { StepCounter.Context.mindfulWalk(expectedStepsPerMinute: $0 * mindful.cadenceStepsPerMinute) }
        let (steps, cadences, _) = StepCounter.countWithCadence(samples, parameters: parameters, context: context)
        return WristWalk.Reading(steps: steps, cadences: cadences, trueSteps: recording.trueSteps, trueCadence: mindful.cadenceStepsPerMinute)
    }

    /// Every case's reading, on all cores.
    static func readAll(_ cases: [WristWalk.MindfulCase], parameters: StepCounter.Parameters, expectedShare: Double?) -> [WristWalk.Reading] {
        let readings = UnsafeMutableBufferPointer<WristWalk.Reading?>.allocate(capacity: cases.count)
        readings.initialize(repeating: nil)
        defer { readings.deallocate() }
        nonisolated(unsafe) let output = readings
        DispatchQueue.concurrentPerform(iterations: cases.count) { output[$0] = read(cases[$0], parameters: parameters, expectedShare: expectedShare) }
        return readings.map { $0! }
    }

    static let verdictNames = ["ok", "double", "half", "no walk"]

    /// One line of verdict counts per cadence.
    static func printVerdicts(_ all: [WristWalk.Reading], indent: String = "  ", countError: Bool = false) {
        for cadence in WristWalk.mindfulCadences {
            let readings = all.filter { $0.trueCadence == cadence }
            let verdicts = readings.map(\.verdict)
            let errors = readings.map { 100 * abs(Double($0.steps - $0.trueSteps)) / Double($0.trueSteps) }
            print("\(indent)\(Int(cadence)) steps/min: " + verdictNames.map { name in "\(name) \(verdicts.filter { $0 == name }.count)" }.joined(separator: ", ")
                  + ", other \(verdicts.filter { !verdictNames.contains($0) }.count) of \(verdicts.count)"
                  + (countError ? "; count error: mean \(fixed(mean(errors) ?? 0, 0)) %, within 5 % \(errors.filter { $0 <= 5 }.count)" : ""))
        }
    }

    /// `--mindful-context`: the verdicts without context and with the band's mindful-walk context
    /// expecting 0.8, 1 and 1.2 times each walk's true cadence (the wearer's limit is not their pace).
    static func runWithContext(parameters: StepCounter.Parameters, detailShare: Double?) {
        let cases = WristWalk.mindfulCadences.flatMap(WristWalk.mindfulCases(at:))
        print("synthetic mindful walks with the band's mindful-walk context (expected cadence = share x the true one):")
        for share in [nil, 0.8, 1.0, 1.2] as [Double?] {
            let all = readAll(cases, parameters: parameters, expectedShare: share)
            print((share.map { "expected \(format($0)) x truth" } ?? "no context") + ": \(all.filter { $0.verdict == "ok" }.count) of \(cases.count) ok")
            printVerdicts(all, countError: true)
            if let detailShare, share == detailShare {
                for (mindful, reading) in zip(cases, all) where reading.verdict != "ok" {
                    print("    " + pad(mindful.description, 56) + pad(fixed(reading.cadence, 0), 6) + pad("\(reading.steps)/\(reading.trueSteps)", 9) + reading.verdict)
                }
            }
        }
    }

    static func run(parameters: StepCounter.Parameters) {
        let cases = WristWalk.mindfulCadences.flatMap(WristWalk.mindfulCases(at:))
        let readings = readAll(cases, parameters: parameters, expectedShare: nil)
        print("synthetic mindful walks (WristWalk: 120 s walking between 5 s standing): the cadence read (median of the")
        print("per-second values) and the count; ok = both within ±5 % and no second read at an octave (MindfulWalkTests)")
        print(pad("case", 56) + pad("read", 6) + pad("count", 9) + "verdict")
        for (mindful, reading) in zip(cases, readings) {
            print(pad(mindful.description, 56) + pad(fixed(reading.cadence, 0), 6) + pad("\(reading.steps)/\(reading.trueSteps)", 9) + reading.verdict)
        }
        print("\(readings.filter { $0.verdict == "ok" }.count) of \(cases.count) ok")
        printVerdicts(readings)
    }
}
