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

    static func run(recording: AccelerationRecording, gait: GaitModel = defaultGait) throws -> StepAnalysis {
        var counter = StepCounter()
        var first: Double?
        var last = 0.0
        var nextSecond = 0.0
        var cadenceSum = 0.0, cadenceCount = 0
        var kilocalories = 0.0
        try recording.forEachRow { row in
            if first == nil { first = row.timeSeconds; nextSecond = row.timeSeconds + 1 }
            last = row.timeSeconds
            let magnitudeOnly = row.yG == 0 && row.zG == 0
            _ = counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG, isMagnitudeOnly: magnitudeOnly))
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

/// Heart rate over a recording, with the band's `HeartRateEstimator`, one estimate every
/// `stepSeconds` from the window length on, each from samples before its time only.
struct HeartRateAnalysis {
    struct Row {
        var timeSeconds: Double
        var estimate: HeartRateEstimate?
    }

    var rows: [Row]

    static func run(recording: PPGRecording, windowSeconds: Double, stepSeconds: Double) throws -> HeartRateAnalysis {
        var configuration = HeartRateEstimator.Configuration()
        configuration.windowSeconds = windowSeconds
        var estimator = HeartRateEstimator(configuration: configuration)
        var rows: [Row] = []
        var start: Double?
        var nextOutput = 0.0
        var last = 0.0
        try recording.forEachRow { row in
            if start == nil { start = row.timeSeconds; nextOutput = row.timeSeconds + windowSeconds }
            // Estimates due before this sample are made before it is seen.
            while row.timeSeconds >= nextOutput {
                rows.append(Row(timeSeconds: nextOutput - start!, estimate: estimator.estimate()))
                nextOutput += stepSeconds
            }
            last = row.timeSeconds
            let acceleration = row.acceleration.map {
                AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG)
            }
            estimator.process(PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg, acceleration: acceleration))
        }
        // The last output may fall just after the last sample (a recording ends mid-period).
        if let start, nextOutput <= last + stepSeconds * 0.5, nextOutput - start >= windowSeconds {
            rows.append(Row(timeSeconds: nextOutput - start, estimate: estimator.estimate()))
        }
        return HeartRateAnalysis(rows: rows)
    }

    func summary(file: String) -> String {
        let values = rows.compactMap { $0.estimate?.bpm }
        let coverage = rows.isEmpty ? 0 : Double(values.count) / Double(rows.count) * 100
        let mean = values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
        var text = "\(file)\n"
        text += "  estimates  \(rows.count) (\(formatOne(coverage)) % with a value)\n"
        if let mean, let lo = values.min(), let hi = values.max() {
            text += "  heart rate mean \(formatOne(mean)) bpm, range \(formatOne(lo))-\(formatOne(hi)) bpm"
        } else {
            text += "  heart rate no trustworthy value in this recording"
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

func formatBPM(_ value: Double) -> String { formatOne(value) }

func formatDuration(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    let h = total / 3600, m = (total % 3600) / 60, s = total % 60
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
}
