// Benchmark of the heart-rate estimator on a long synthetic recording (scripts/bench-hr).
//
//   bench-hr [--hours H] [--rate HZ] [--channels N] [--every S] [--no-acceleration] [--walking]
//   bench-hr --band-events ACCELEROMETER_HZ [--rate HZ] [--walking]
//
// --band-events prints the same 10 minutes as the band takes them in, for
// scripts/bench-pipeline-aarch64: the accelerometer at its rate and the PPG (2 channels) at
// --rate from the same synthetic wearer, read in batches every 0.1 s (accelerometer first,
// then PPG, each sample at its own time), and a second closed after every tenth read. One CSV line per event: 0,t,x_g,y_g,z_g (acceleration), 1,t,ppg1,ppg2,0 (PPG),
// 2,t,0,0,0 (a second closes: the band asks for an estimate).
//
// A 10-minute synthetic recording (rest and walking, or walking throughout with --walking, 2 PPG channels and acceleration by
// default) is generated first and then replayed, shifted in time, until H hours have been
// fed; only the estimator's work (process + estimate every S seconds) is timed, inside
// `runEstimator`, which callgrind can isolate with --toggle-collect='*runEstimator*'.
import AmbleRecordings
import AmbleSignal
import AmbleSimulation

struct Options {
    var hours = 1.0
    var rateHz = 100.0
    var channels = 2
    var everySeconds = 1.0
    var acceleration = true
    var walkingOnly = false
    /// With --band-events: the accelerometer's rate, Hz.
    var bandEventsAccelerometerHz: Double?

    init(_ arguments: [String]) {
        var i = 1
        func value() -> Double {
            i += 1
            guard i < arguments.count, let v = Double(arguments[i]) else { fatalError("missing number after \(arguments[i - 1])") }
            return v
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--hours": hours = value()
            case "--rate": rateHz = value()
            case "--channels": channels = Int(value())
            case "--every": everySeconds = value()
            case "--no-acceleration": acceleration = false
            case "--walking": walkingOnly = true
            case "--band-events": bandEventsAccelerometerHz = value()
            default: fatalError("unknown argument \(arguments[i]); see the comment at the top of main.swift")
            }
            i += 1
        }
    }
}

let options = Options(CommandLine.arguments)
let chunkSeconds = 600.0
var scenario = SyntheticPPG.Scenario()
scenario.heartRate = [(0, 68), (120, 68), (240, 110), (420, 110), (600, 70)]
// Walking costs the most: the gait comb's sinusoids join the least-squares fit.
scenario.cadence = options.walkingOnly ? [(0, 105)] : [(0, 0), (120, 105), (420, 0)]
scenario.dcLevels = Array([110_000, 80_000, 2_000].prefix(options.channels))
scenario.pulseAmplitudes = Array([-1_200, -700, 300].prefix(options.channels))
scenario.artefactCountsPerG = Array([3_000, 2_000, 500].prefix(options.channels))
scenario.includesAcceleration = options.acceleration
if let accelerometerHz = options.bandEventsAccelerometerHz {
    printBandEvents(SyntheticPPG(scenario), accelerometerHz: accelerometerHz, ppgHz: options.rateHz, seconds: chunkSeconds)
} else {
    benchmark()
}

/// Feeds `totalSamples` samples (the chunk replayed) and asks for an estimate every
/// `everySeconds`; returns (estimates asked, estimates with a value).
@inline(never)
func runEstimator(chunk: [PPGSample], totalSamples: Int, everySeconds: Double) -> (asked: Int, given: Int) {
    var estimator = HeartRateEstimator()
    var asked = 0, given = 0
    var next = everySeconds
    var sample = chunk[0]
    for i in 0..<totalSamples {
        let source = chunk[i % chunk.count]
        let offset = Double(i / chunk.count) * chunkSeconds
        sample.timeSeconds = source.timeSeconds + offset
        sample.channels = source.channels
        sample.acceleration = source.acceleration
        sample.acceleration?.timeSeconds = sample.timeSeconds
        if sample.timeSeconds >= next {
            asked += 1
            if estimator.estimate() != nil { given += 1 }
            next += everySeconds
        }
        estimator.process(sample)
    }
    return (asked, given)
}

/// The timed run and the figures `scripts/bench-hr` reads.
@MainActor func benchmark() {
    let chunk: [PPGSample] = SyntheticPPG(scenario).rows(sampleRateHz: options.rateHz, durationSeconds: chunkSeconds).map { row in
        PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg,
                  acceleration: row.acceleration.map { AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) })
    }

    let totalSamples = Int(options.hours * 3600 * options.rateHz)
    let clock = ContinuousClock()
    var result = (asked: 0, given: 0)
    let elapsed = clock.measure {
        result = runEstimator(chunk: chunk, totalSamples: totalSamples, everySeconds: options.everySeconds)
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    let recordedHours = Double(totalSamples) / options.rateHz / 3600
    print("samples \(totalSamples)")
    print("recorded_hours \(recordedHours)")
    print("wall_seconds \(seconds)")
    print("hours_per_second \(recordedHours / seconds)")
    print("estimates \(result.asked) with_value \(result.given)")
    print("setup rate_hz=\(options.rateHz) channels=\(options.channels) acceleration=\(options.acceleration) estimate_every_s=\(options.everySeconds) walking_only=\(options.walkingOnly)")
}
