// The synthetic mindful walks (`WristWalk.mindfulCases`, `MindfulWalkTests`): the cadence the
// counter reads for each, against the true one (`score-steps --synthetic-slow`).

@_spi(Diagnostics) import AmbleSignal
import AmbleSimulation
import Dispatch

enum SyntheticSlow {
    /// The counter's reading of one mindful walk.
    static func read(_ mindful: WristWalk.MindfulCase, parameters: StepCounter.Parameters = .standard) -> WristWalk.Reading {
        let recording = mindful.recording
        let samples = recording.rows.map { AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG, isMagnitudeOnly: mindful.magnitudeOnly) }
        let (steps, cadences, _) = StepCounter.countWithCadence(samples, parameters: parameters)
        return WristWalk.Reading(steps: steps, cadences: cadences, trueSteps: recording.trueSteps, trueCadence: mindful.cadenceStepsPerMinute)
    }

    static func run(parameters: StepCounter.Parameters) {
        let cases = WristWalk.mindfulCadences.flatMap(WristWalk.mindfulCases(at:))
        let readings = UnsafeMutableBufferPointer<WristWalk.Reading?>.allocate(capacity: cases.count)
        readings.initialize(repeating: nil)
        defer { readings.deallocate() }
        nonisolated(unsafe) let output = readings
        DispatchQueue.concurrentPerform(iterations: cases.count) { output[$0] = read(cases[$0], parameters: parameters) }
        print("synthetic mindful walks (WristWalk: 120 s walking between 5 s standing): the cadence read (median of the")
        print("per-second values) and the count; ok = both within ±5 % and no second read at an octave (MindfulWalkTests)")
        print(pad("case", 56) + pad("read", 6) + pad("count", 9) + "verdict")
        for (mindful, reading) in zip(cases, readings.map { $0! }) {
            print(pad(mindful.description, 56) + pad(fixed(reading.cadence, 0), 6) + pad("\(reading.steps)/\(reading.trueSteps)", 9) + reading.verdict)
        }
        let all = readings.map { $0! }
        print("\(all.filter { $0.verdict == "ok" }.count) of \(cases.count) ok")
        for cadence in WristWalk.mindfulCadences {
            let verdicts = all.filter { $0.trueCadence == cadence }.map(\.verdict)
            let named = ["ok", "double", "half", "no walk"]
            print("  \(Int(cadence)) steps/min: " + named.map { name in "\(name) \(verdicts.filter { $0 == name }.count)" }.joined(separator: ", ")
                  + ", other \(verdicts.filter { !named.contains($0) }.count) of \(verdicts.count)")
        }
    }
}
