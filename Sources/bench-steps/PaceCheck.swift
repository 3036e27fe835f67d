import AmbleSignal
import AmbleSimulation

/// bench-steps pace SEED [--magnitude]: the cadence published each second over 90 -> 110 -> 90.
func paceCheck(seed: UInt64, magnitudeOnly: Bool) {
    let recording = SyntheticActivities.render(
        [.still(seconds: 5), .walking(cadenceStepsPerMinute: 90, seconds: 40), .walking(cadenceStepsPerMinute: 110, seconds: 40),
         .walking(cadenceStepsPerMinute: 90, seconds: 40), .still(seconds: 15)],
        sampling: .init(rateHz: 25, jitterFraction: 0.2, magnitudeOnly: magnitudeOnly), seed: seed)
    var counter = StepCounter()
    var second = 0
    var line = ""
    for row in recording.rows {
        _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG, isMagnitudeOnly: magnitudeOnly))
        while Double(second) <= row.timeSeconds - 1 {
            line += "\(second):\(Int(counter.cadenceStepsPerMinute.rounded())) "
            second += 1
        }
    }
    print(line)
}
