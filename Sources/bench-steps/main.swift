// bench-steps: what the streaming step counter costs, on synthetic wrist recordings.
//
//   bench-steps time [--hours H] [--rate HZ]   time StepCounter over H hours (default 2 h, 25 Hz)
//   bench-steps run [--hours H] [--rate HZ] [--count-only|--generate-only]
//                                              one pass, for valgrind --tool=callgrind
//   bench-steps csv [--hours H] [--rate HZ]    print the recording as CSV (time_s,x_g,y_g,z_g)
//   bench-steps trace FILE                     when steps are released in a recording
//   bench-steps pace SEED [--magnitude]        the cadence published each second over 90 -> 110 -> 90 steps/min
//   bench-steps segments-csv SPEC [--seed N] [--rate HZ] [--irregular] [--magnitude]
//                                              one recording from a spec such as still:5,walk70:60,wash:120;
//                                              a first line '# true steps N', then the CSV
//
// The recording mixes what a day holds: walks at 40-125 steps/min (one mindful walk at 40),
// standing, typing, arm gestures, washing up, desk work, driving and a train, 3-axis, with
// 10 % timing jitter. See
// scripts/bench-steps and docs/steps.md.

import AmbleRecordings
import AmbleSignal
import AmbleSimulation

func option(_ name: String, default value: Double) -> Double {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: name), i + 1 < args.count, let v = Double(args[i + 1]) { return v }
    return value
}

/// A day-like mix, repeated to fill `hours`.
func recording(hours: Double, rateHz: Double) -> SyntheticActivities.Recording {
    let block: [SyntheticActivities.Segment] = [
        .still(seconds: 30), .walking(cadenceStepsPerMinute: 70, seconds: 120), .typing(seconds: 120),
        .walking(cadenceStepsPerMinute: 105, seconds: 240), .armGestures(seconds: 60), .washingUp(seconds: 90),
        .walking(cadenceStepsPerMinute: 125, seconds: 120), .driving(seconds: 300), .train(seconds: 240),
        .walking(cadenceStepsPerMinute: 60, seconds: 180), .still(seconds: 60),
        .walking(cadenceStepsPerMinute: 40, seconds: 180), .deskWork(seconds: 180),
    ]
    let blockSeconds = block.reduce(0) { $0 + $1.seconds }
    let repeats = max(1, Int((hours * 3600 / blockSeconds).rounded(.up)))
    var segments: [SyntheticActivities.Segment] = []
    for _ in 0 ..< repeats { segments += block }
    let sampling = SyntheticActivities.SamplingPlan(rateHz: rateHz, jitterFraction: 0.1)
    return SyntheticActivities.render(segments, sampling: sampling, seed: 42)
}

func samples(of recording: SyntheticActivities.Recording) -> [AccelerationSample] {
    recording.rows.map { AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) }
}

/// Runs the counter over `input`; returns the steps (so the work cannot be optimised away).
@inline(never)
func count(_ input: [AccelerationSample]) -> Int {
    var counter = StepCounter()
    var total = 0
    for sample in input { total += counter.process(sample) }
    return total + counter.finish()
}

let arguments = CommandLine.arguments
let command = arguments.count > 1 ? arguments[1] : "time"
let hours = option("--hours", default: 2)
let rate = option("--rate", default: 25)

switch command {
case "time":
    let rec = recording(hours: hours, rateHz: rate)
    let input = samples(of: rec)
    _ = count(Array(input.prefix(25_000)))  // warm up
    let clock = ContinuousClock()
    var steps = 0
    let elapsed = clock.measure { steps = count(input) }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    let recordedHours = rec.durationSeconds / 3600
    print("recording      \(input.count) samples, \(formatted(recordedHours, 2)) h at \(formatted(rate, 1)) Hz (3-axis, 10 % jitter)")
    print("steps          \(steps) counted, \(rec.trueSteps) taken")
    print("wall time      \(formatted(seconds, 3)) s")
    print("throughput     \(formatted(recordedHours / seconds, 0)) recorded hours per second")
    print("per sample     \(formatted(seconds / Double(input.count) * 1e9, 0)) ns")
case "run":
    let rec = recording(hours: hours, rateHz: rate)
    let input = samples(of: rec)
    if arguments.contains("--generate-only") {
        print("samples \(input.count)")
    } else {
        print("samples \(input.count) steps \(count(input))")
    }
case "check":
    // Each activity alone between short stands: counted vs taken (a quick look, not a test).
    let activities: [SyntheticActivities.Segment] = [
        .walking(cadenceStepsPerMinute: 60, seconds: 120), .walking(cadenceStepsPerMinute: 70, seconds: 120),
        .walking(cadenceStepsPerMinute: 80, seconds: 120), .walking(cadenceStepsPerMinute: 105, seconds: 120),
        .walking(cadenceStepsPerMinute: 125, seconds: 120), .walking(cadenceStepsPerMinute: 150, seconds: 120),
        .walking(cadenceStepsPerMinute: 35, seconds: 120), .walking(cadenceStepsPerMinute: 45, seconds: 120),
        .typing(seconds: 300), .armGestures(seconds: 300), .washingUp(seconds: 300), .driving(seconds: 300), .train(seconds: 300),
        .deskWork(seconds: 300),
    ]
    let magnitudeOnly = arguments.contains("--magnitude")
    for (i, activity) in activities.enumerated() {
        for seed in 1 ... 3 {
            let rec = SyntheticActivities.render([.still(seconds: 5), activity, .still(seconds: 5)],
                                                 sampling: .init(rateHz: rate, jitterFraction: 0.2, magnitudeOnly: magnitudeOnly),
                                                 seed: UInt64(seed * 100 + i))
            let counted = count(rec.rows.map { AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG, isMagnitudeOnly: magnitudeOnly) })
            print("\(activity)  seed \(seed)  taken \(rec.trueSteps)  counted \(counted)")
        }
    }
case "pace":
    paceCheck(seed: UInt64(arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1), magnitudeOnly: arguments.contains("--magnitude"))
case "csv":
    print(recording(hours: hours, rateHz: rate).csv, terminator: "")
case "trace":
    // trace FILE: when steps are released and the cadence then, for looking into a recording.
    var counter = StepCounter()
    try AccelerationRecording(path: arguments[2]).forEachRow { row in
        let n = counter.process(.recorded(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
        if n > 0 { print("\(formatted(row.timeSeconds, 2)) +\(n) total \(counter.totalSteps) cadence \(formatted(counter.cadenceStepsPerMinute, 1))") }
    }
case "segments-csv":
    // e.g. segments-csv still:6,walk100:7.2,walkarms110:60,wash:240 --seed 5 --rate 25 [--irregular] [--magnitude]
    let spec = arguments.count > 2 ? arguments[2] : "walk100:60"
    var segments: [SyntheticActivities.Segment] = []
    for part in spec.split(separator: ",") {
        let fields = part.split(separator: ":")
        guard fields.count == 2, let seconds = Double(fields[1]) else { continue }
        let name = String(fields[0])
        switch name {
        case "still": segments.append(.still(seconds: seconds))
        case "gestures": segments.append(.armGestures(seconds: seconds))
        case "typing": segments.append(.typing(seconds: seconds))
        case "wash": segments.append(.washingUp(seconds: seconds))
        case "drive": segments.append(.driving(seconds: seconds))
        case "train": segments.append(.train(seconds: seconds))
        case "desk": segments.append(.deskWork(seconds: seconds))
        default:
            if name.hasPrefix("walkarms"), let cadence = Double(name.dropFirst(8)) {
                segments.append(.walkingWithArmMovements(cadenceStepsPerMinute: cadence, seconds: seconds))
            } else if name.hasPrefix("walk"), let cadence = Double(name.dropFirst(4)) {
                segments.append(.walking(cadenceStepsPerMinute: cadence, seconds: seconds))
            }
        }
    }
    let irregular = arguments.contains("--irregular")
    let sampling = SyntheticActivities.SamplingPlan(
        rateHz: rate, jitterFraction: irregular ? 0.5 : 0.05, dropProbability: irregular ? 0.05 : 0,
        gapsPerMinute: irregular ? 2 : 0, gapSeconds: 0.6, magnitudeOnly: arguments.contains("--magnitude"))
    let rec = SyntheticActivities.render(segments, sampling: sampling, seed: UInt64(option("--seed", default: 1)))
    print("# true steps \(rec.trueSteps)")
    print(rec.csv, terminator: "")
default:
    print("usage: bench-steps time|run|csv [--hours H] [--rate HZ]")
}

func formatted(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0 ..< digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    if digits == 0 { return String(Int(rounded)) }
    let whole = Int(rounded)
    var fraction = String(Int(((abs(rounded) - Double(abs(whole))) * scale).rounded()))
    while fraction.count < digits { fraction = "0" + fraction }
    return "\(rounded < 0 && whole == 0 ? "-" : "")\(whole).\(fraction)"
}
