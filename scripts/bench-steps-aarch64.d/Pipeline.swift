// The band's sensor pipeline over events linked into the program (scripts/bench-pipeline-aarch64):
// what SignalPipeline does with the sensors' samples, on the band's own source, in every build.
// Built with AccelerationHistory.swift from AmbleBand, the band's pairing of PPG and motion.
import AmbleSignal

/// Called with each second closed: the estimate, or none (`given` 0).
@_extern(c, "amble_estimated") func estimated(_ second: Int, _ given: Int, _ bpm: Double, _ confidence: Double)

/// Runs the first `limit` events (all when negative) through a fresh step counter and
/// heart-rate estimator, as SignalPipeline does: each accelerometer sample into the counter
/// (`parts` bit 0) and into the history that pairs every PPG sample with the acceleration at its
/// time (bit 1), each PPG sample with that acceleration into the estimator (bit 1), and an
/// estimate each time a second closes (bit 1). Both are set up whatever `parts` says, so that a
/// run over no events measures the set-up of both. Returns the steps.
///
/// Events are 5 values each (`bench-hr --band-events`): 0, t, x, y, z (g); 1, t, ppg1, ppg2, 0
/// (counts); 2, t, 0, 0, 0 (a second closes).
@_cdecl("amble_pipeline")
public func pipeline(_ parts: Int, _ limit: Int) -> Int {
    let values = sampleValues()
    let available = sampleValueCount() / 5
    let n = limit < 0 ? available : min(limit, available)
    let countsSteps = parts & 1 != 0, estimatesHeartRate = parts & 2 != 0
    var counter = StepCounter()
    var heartRate = HeartRateEstimator()
    var recentAcceleration = AccelerationHistory()
    var steps = 0, second = 0
    for i in 0 ..< n {
        let e = values + 5 * i
        let t = e[1]
        switch e[0] {
        case 0:
            let sample = AccelerationSample(timeSeconds: t, xG: e[2], yG: e[3], zG: e[4])
            if estimatesHeartRate { recentAcceleration.append(sample) }
            if countsSteps { steps += counter.processTimed(sample).steps }
        case 1:
            if estimatesHeartRate {
                heartRate.process(timeSeconds: t, channels: SIMD4(e[2], e[3], 0, 0), channelCount: 2,
                                  acceleration: recentAcceleration.value(at: t))
            }
        default:
            if estimatesHeartRate {
                let estimate = heartRate.estimate()
                estimated(second, estimate == nil ? 0 : 1, estimate?.bpm ?? 0, estimate?.confidence ?? 0)
            }
            second += 1
        }
    }
    return countsSteps ? steps + counter.finishTimed().steps : 0
}
