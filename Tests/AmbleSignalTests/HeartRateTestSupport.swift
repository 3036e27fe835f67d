import AmbleRecordings
import AmbleSignal
import AmbleSimulation

/// One output of a streamed run: the time it was asked for and the answer.
typealias HeartRateOutput = HeartRateReplay.Output

/// Streams rows through the estimator as `amble analyze hr` does (`HeartRateReplay`): an
/// estimate every `stepSeconds` from `windowSeconds` on, each made before the samples at or
/// after its time.
func streamHeartRate(_ rows: [PPGRow], windowSeconds: Double = 8, stepSeconds: Double = 2,
                     parameters: HeartRateEstimator.Parameters = .standard,
                     configure: (inout HeartRateEstimator.Configuration) -> Void = { _ in }) -> (outputs: [HeartRateOutput], estimator: HeartRateEstimator) {
    var configuration = HeartRateEstimator.Configuration()
    configuration.windowSeconds = windowSeconds
    configure(&configuration)
    var replay = HeartRateReplay(estimator: HeartRateEstimator(configuration: configuration, parameters: parameters), stepSeconds: stepSeconds)
    var outputs: [HeartRateOutput] = []
    for row in rows {
        let a = row.acceleration.map { AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) }
        replay.process(PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg, acceleration: a)) { outputs.append($0) }
    }
    return (outputs, replay.estimator)
}

/// Accuracy of outputs against the synthetic truth (mean rate of the beats in the window
/// ending at each output), over outputs with `timeSeconds` in `range`.
struct HeartRateScore: CustomStringConvertible {
    var meanAbsoluteErrorBPM: Double
    var worstErrorBPM: Double
    var coverage: Double
    var count: Int

    init(_ outputs: [HeartRateOutput], truth: SyntheticPPG, windowSeconds: Double = 8, range: ClosedRange<Double> = 0...1e9) {
        var errors: [Double] = []
        var total = 0
        for o in outputs where range.contains(o.timeSeconds) {
            total += 1
            guard let e = o.estimate, let reference = truth.meanHeartRateBPM(from: o.timeSeconds - windowSeconds, to: o.timeSeconds) else { continue }
            errors.append(abs(e.bpm - reference))
        }
        count = total
        coverage = total > 0 ? Double(errors.count) / Double(total) : 0
        meanAbsoluteErrorBPM = errors.isEmpty ? .infinity : errors.reduce(0, +) / Double(errors.count)
        worstErrorBPM = errors.max() ?? .infinity
    }

    var description: String {
        "MAE \(rounded(meanAbsoluteErrorBPM)) bpm, worst \(rounded(worstErrorBPM)) bpm, coverage \(rounded(coverage * 100)) % of \(count)"
    }

    private func rounded(_ x: Double) -> Double { (x * 100).rounded() / 100 }
}
