import AmbleRecordings
import AmbleSignal

/// Step counting over a recording, with the band's `StepCounter`, and the distance and
/// active energy the band's `GaitModel` makes of it.
struct StepAnalysis {
    var steps: Int
    var durationSeconds: Double
    /// Mean of the per-second cadence while walking (cadence > 0), steps per minute.
    var meanCadenceStepsPerMinute: Double?
    /// Seconds with a walking cadence.
    var walkingSeconds: Int
    /// Steps x step length, metres.
    var distanceMeters: Double
    /// Step length used, metres.
    var stepLengthMeters: Double
    /// Active energy (ACSM walking equation, level ground) summed over walking seconds, kcal.
    var activeKilocalories: Double

    /// The wearer assumed when none is given: 170 cm, 70 kg, uncalibrated.
    static let defaultGait = GaitModel(heightMeters: 1.70, weightKilograms: 70)

    /// One release of steps, for `--trace`: the input sample's time (steps are released about
    /// 10 s after they were taken, a walk's first ones together 1 s or more after it is
    /// confirmed, its last ones when it ends), the steps, the running total and the cadence the
    /// counter publishes.
    struct Release {
        var timeSeconds: Double
        var steps: Int
        var totalSteps: Int
        var cadenceStepsPerMinute: Double

        static let csvHeader = "time_s,steps,total_steps,cadence_spm"
        var csv: String {
            "\(formatSeconds(timeSeconds)),\(steps),\(totalSteps),\(formatOne(cadenceStepsPerMinute))"
        }
    }

    /// `context`: what the band knows during the recording (a mindful walk's, as
    /// `--mindful-walk-limit` gives it); nil, the counter as it runs outside one.
    static func run(recording: AccelerationRecording, gait: GaitModel = defaultGait, context: StepCounter.Context? = nil,
                    trace: ((Release) -> Void)? = nil) throws -> StepAnalysis {
        var counter = StepCounter()
        counter.context = context
        var first: Double?
        var last = 0.0
        var nextSecond = 0.0
        var cadenceSum = 0.0, cadenceCount = 0
        var kilocalories = 0.0
        try recording.forEachRow { row in
            if first == nil { first = row.timeSeconds; nextSecond = row.timeSeconds + 1 }
            last = row.timeSeconds
            let released = counter.process(.recorded(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
            if let trace, released > 0 {
                trace(Release(timeSeconds: row.timeSeconds, steps: released, totalSteps: counter.totalSteps,
                              cadenceStepsPerMinute: counter.cadenceStepsPerMinute))
            }
            while row.timeSeconds >= nextSecond {
                let cadence = counter.cadenceStepsPerMinute
                if cadence > 0 {
                    cadenceSum += cadence
                    cadenceCount += 1
                    kilocalories += gait.activeEnergyKilocalories(cadenceStepsPerMinute: cadence, durationSeconds: 1)
                }
                nextSecond += 1
            }
        }
        let flushed = counter.finish()
        if let trace, flushed > 0 {
            trace(Release(timeSeconds: last, steps: flushed, totalSteps: counter.totalSteps, cadenceStepsPerMinute: 0))
        }
        return StepAnalysis(
            steps: counter.totalSteps,
            durationSeconds: last - (first ?? last),
            meanCadenceStepsPerMinute: cadenceCount > 0 ? cadenceSum / Double(cadenceCount) : nil,
            walkingSeconds: cadenceCount,
            distanceMeters: gait.distanceMeters(steps: counter.totalSteps),
            stepLengthMeters: gait.stepLengthMeters,
            activeKilocalories: kilocalories
        )
    }

    var json: String {
        let cadence = meanCadenceStepsPerMinute.map { formatOne($0) } ?? "null"
        return "{\"steps\": \(steps), \"duration_s\": \(formatOne(durationSeconds)), \"mean_cadence_spm\": \(cadence), "
            + "\"walking_s\": \(walkingSeconds), \"distance_m\": \(formatOne(distanceMeters)), "
            + "\"step_length_m\": \(formatSeconds(stepLengthMeters)), \"active_kcal\": \(formatOne(activeKilocalories))}"
    }

    func summary(file: String) -> String {
        let cadence = meanCadenceStepsPerMinute.map { "\(formatOne($0)) steps/min while walking (\(formatDuration(Double(walkingSeconds))))" } ?? "no walking found"
        return """
        \(file)
          steps     \(steps)
          duration  \(formatDuration(durationSeconds))
          cadence   \(cadence)
          distance  \(formatOne(distanceMeters)) m (step length \(formatSeconds(stepLengthMeters)) m)
          energy    \(formatOne(activeKilocalories)) kcal active (ACSM walking equation)
        """
    }
}

/// Heart rate over a recording, with the band's `HeartRateEstimator` replayed as on the band
/// (`HeartRateReplay`): one estimate every `stepSeconds` from the window length on, each from
/// samples before its time only.
struct HeartRateAnalysis {
    struct Row {
        var timeSeconds: Double
        var estimate: HeartRateEstimate?
        var status: HeartRateStatus
    }

    var rows: [Row]
    /// Heart-rate variability at rest over the whole recording (nil when too few clean beats).
    var restingVariability: RestingVariability?

    static func run(recording: PPGRecording, windowSeconds: Double, stepSeconds: Double,
                    minimumConfidence: Double = HeartRateEstimator.Configuration().minimumConfidence) throws -> HeartRateAnalysis {
        var configuration = HeartRateEstimator.Configuration()
        configuration.windowSeconds = windowSeconds
        configuration.minimumConfidence = minimumConfidence
        var replay = HeartRateReplay(estimator: HeartRateEstimator(configuration: configuration), stepSeconds: stepSeconds)
        try recording.forEachRow { row in
            let acceleration = row.acceleration.map {
                AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG)
            }
            replay.process(PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg, acceleration: acceleration))
        }
        replay.finish()
        return HeartRateAnalysis(rows: replay.outputs.map { Row(timeSeconds: $0.timeSeconds, estimate: $0.estimate, status: $0.status) },
                                 restingVariability: replay.estimator.restingVariability)
    }

    func summary(file: String) -> String {
        let values = rows.compactMap { $0.estimate }
        let coverage = rows.isEmpty ? 0 : Double(values.count) / Double(rows.count) * 100
        var text = "\(file)\n"
        text += "  estimates   \(rows.count) (\(formatOne(coverage)) % with a value)\n"
        let bpm = values.map(\.bpm)
        if let lo = bpm.min(), let hi = bpm.max() {
            let mean = bpm.reduce(0, +) / Double(bpm.count)
            let confidence = values.map(\.confidence).reduce(0, +) / Double(values.count)
            text += "  heart rate  mean \(formatOne(mean)) bpm, range \(formatOne(lo))-\(formatOne(hi)) bpm\n"
            text += "  confidence  mean \(formatTwo(confidence)) (values below the threshold are withheld)\n"
        } else {
            text += "  heart rate  no trustworthy value in this recording\n"
        }
        let withheld = rows.filter { $0.estimate == nil }
        if !withheld.isEmpty {
            let warming = withheld.filter { $0.status == .warmingUp }.count
            let noSignal = withheld.filter { $0.status == .noUsableSignal }.count
            let unclear = withheld.filter { $0.status == .lowConfidence }.count
            text += "  no value    \(warming) warming up, \(noSignal) no usable signal (flat, clipped, off the wrist), \(unclear) too unclear\n"
        }
        if let v = restingVariability {
            text += "  at rest     RMSSD \(formatOne(v.rmssdMilliseconds)) ms from \(v.differenceCount) successive differences, "
            text += "mean beat interval \(formatOne(v.meanIntervalMilliseconds)) ms"
        } else {
            text += "  at rest     not enough clean beats at rest for RMSSD"
        }
        return text
    }
}

func formatOne(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    let whole = Int(tenths / 10)
    let fraction = Int(abs(tenths).truncatingRemainder(dividingBy: 10))
    return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
}

func formatSeconds(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    if rounded == rounded.rounded() { return String(Int(rounded)) }
    return String(rounded)
}

func formatTwo(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = abs(hundredths) % 100
    return (hundredths < 0 ? "-" : "") + "\(abs(hundredths) / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
}

func formatDuration(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    let h = total / 3600, m = (total % 3600) / 60, s = total % 60
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
}
