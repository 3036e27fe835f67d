import AmbleCompanion
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
    /// Times the counter's per-second cadence was read: at most once a row, however long the
    /// gaps (the seconds a gap spans are taken together), the work a gap costs.
    var cadenceReadings: Int
    /// The median interval between the samples, seconds (nil for a single sample): what the
    /// file's rate is judged by.
    var medianIntervalSeconds: Double?

    /// The wearer assumed when none is given: 170 cm, 70 kg, uncalibrated.
    static let defaultGait = GaitModel(heightMeters: 1.70, weightKilograms: 70)

    /// One release of steps, for `--trace`: the input sample's time (steps are released about
    /// 10 s after they were taken, a walk's first ones together 1 s or more after it is
    /// confirmed, its last ones when it ends), the steps, the running total, the cadence the
    /// counter publishes, and the stretch of time the steps were taken in (where the band
    /// files them; a walk's and a bout's released together are a row each).
    struct Release {
        var timeSeconds: Double
        var steps: Int
        var totalSteps: Int
        var cadenceStepsPerMinute: Double
        var takenFromSeconds: Double
        var takenThroughSeconds: Double

        static let csvHeader = "time_s,steps,total_steps,cadence_spm,taken_from_s,taken_through_s"
        var csv: String {
            "\(formatSeconds(timeSeconds)),\(steps),\(totalSteps),\(formatOne(cadenceStepsPerMinute)),"
                + "\(formatSeconds(takenFromSeconds)),\(formatSeconds(takenThroughSeconds))"
        }
    }

    /// The sample rates the counter is made for, Hz (docs/steps.md), judged on a file's median
    /// interval with `rateAllowance` to spare: a sensor's clock runs a few percent off its
    /// nominal rate (a 12.5 Hz one may give 12). Within them the resampler's box filter
    /// averages fast input and its interpolation fills slow input to 25 Hz; below them the
    /// harmonics of a fast step (3.3 Hz) are lost, above them nothing has been measured.
    static let supportedRatesHz = 12.0...125.0
    static let rateAllowance = 0.1

    /// Counts the steps of a recording, as the band would have. Throws at a malformed line,
    /// and at the end when the samples' median interval is outside `supportedRatesHz`.
    /// `context`: what the band knows during the recording (a mindful walk's, as
    /// `--mindful-walk-limit` gives it); nil, the counter as it runs outside one.
    static func run(recording: AccelerationRecording, gait: GaitModel = defaultGait, context: StepCounter.Context? = nil,
                    trace: ((Release) -> Void)? = nil) throws -> StepAnalysis {
        let result = try count(recording: recording, gait: gait, context: context, trace: trace)
        try checkRate(medianIntervalSeconds: result.medianIntervalSeconds, file: recording.name)
        return result
    }

    /// `run` without the check of the rate.
    static func count(recording: AccelerationRecording, gait: GaitModel = defaultGait, context: StepCounter.Context? = nil,
                      trace: ((Release) -> Void)? = nil) throws -> StepAnalysis {
        var counter = StepCounter()
        var intervals = SampleIntervals()
        counter.context = context
        var first: Double?
        var last = 0.0
        var seconds = SampleSeconds()
        var cadenceSum = 0.0, cadenceCount = 0, cadenceReadings = 0
        var kilocalories = 0.0
        try recording.forEachRow { row in
            if first == nil { first = row.timeSeconds }
            last = row.timeSeconds
            intervals.add(timeSeconds: row.timeSeconds)
            let released = counter.processTimed(.recorded(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
            if let trace { traceReleases(released, atSeconds: row.timeSeconds, totalSteps: counter.totalSteps, cadenceStepsPerMinute: counter.cadenceStepsPerMinute, trace) }
            let completed = seconds.completed(by: row.timeSeconds)
            guard completed > 0 else { return }
            cadenceReadings += 1
            // The cadence is 0 across a gap the counter does not bridge (over 2.5 s).
            let cadence = counter.cadenceStepsPerMinute
            if cadence > 0 {
                cadenceSum += cadence * completed
                cadenceCount += Int(completed)
                kilocalories += gait.activeEnergyKilocalories(cadenceStepsPerMinute: cadence, durationSeconds: completed)
            }
        }
        let flushed = counter.finishTimed()
        if let trace { traceReleases(flushed, atSeconds: last, totalSteps: counter.totalSteps, cadenceStepsPerMinute: 0, trace) }
        return StepAnalysis(
            steps: counter.totalSteps,
            durationSeconds: last - (first ?? last),
            meanCadenceStepsPerMinute: cadenceCount > 0 ? cadenceSum / Double(cadenceCount) : nil,
            walkingSeconds: cadenceCount,
            distanceMeters: gait.distanceMeters(steps: counter.totalSteps),
            stepLengthMeters: gait.stepLengthMeters,
            activeKilocalories: kilocalories,
            cadenceReadings: cadenceReadings,
            medianIntervalSeconds: intervals.medianSeconds
        )
    }

    /// One `Release` row for each stretch that one sample (or the end) released, oldest first,
    /// each with the running total after it (`totalSteps`: after them all).
    private static func traceReleases(_ releases: StepReleases, atSeconds time: Double, totalSteps: Int, cadenceStepsPerMinute: Double,
                                      _ trace: (Release) -> Void) {
        var total = totalSteps - releases.steps
        for release in releases.sorted(by: { $0.fromSeconds < $1.fromSeconds }) {
            total += release.steps
            trace(Release(timeSeconds: time, steps: release.steps, totalSteps: total, cadenceStepsPerMinute: cadenceStepsPerMinute,
                          takenFromSeconds: release.fromSeconds, takenThroughSeconds: release.throughSeconds))
        }
    }

    /// Reads only the times of a recording and checks its rate (for `--trace`, which prints
    /// as it counts: a file it refuses prints nothing).
    static func checkRate(of recording: AccelerationRecording) throws {
        var intervals = SampleIntervals()
        try recording.forEachRow { intervals.add(timeSeconds: $0.timeSeconds) }
        try checkRate(medianIntervalSeconds: intervals.medianSeconds, file: recording.name)
    }

    /// Refuses a median interval outside `supportedRatesHz` (with `rateAllowance`), saying
    /// what the file's is and what to do.
    static func checkRate(medianIntervalSeconds: Double?, file: String) throws(RecordingError) {
        guard let median = medianIntervalSeconds else { return }
        let slowest = supportedRatesHz.lowerBound * (1 - rateAllowance), fastest = supportedRatesHz.upperBound * (1 + rateAllowance)
        guard median * fastest < 1 || median * slowest > 1 else { return }
        let rate = median > 0 ? "\(formatFigures(median * 1000)) ms (\(formatFigures(1 / median)) Hz)" : "0 (most times repeat the one before)"
        throw RecordingError(file: file, line: nil, message: "the median interval between samples is \(rate), but analyze steps "
            + "counts at \(Int(supportedRatesHz.lowerBound))-\(Int(supportedRatesHz.upperBound)) Hz: resample the recording to a rate "
            + "in that range (the counter works at 25 Hz), or check that time_s is in seconds")
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
/// samples before its time only. The estimates are handed to `row` as they are made and only
/// tallied here: memory is the estimator's, whatever the recording's length or gaps.
struct HeartRateAnalysis {
    struct Row {
        var timeSeconds: Double
        var estimate: HeartRateEstimate?
        var status: HeartRateStatus

        /// `time_s,bpm` or `time_s,bpm,confidence` (empty where no value is given).
        func csv(withConfidence: Bool) -> String {
            formatSeconds(timeSeconds) + "," + (estimate.map { formatOne($0.bpm) } ?? "")
                + (withConfidence ? "," + (estimate.map { formatTwo($0.confidence) } ?? "") : "")
        }

        /// `{"time_s": …, "bpm": …, "confidence": …, "status": …}` (null where no value is given).
        var json: String {
            "{\"time_s\": \(formatSeconds(timeSeconds)), \"bpm\": \(estimate.map { formatOne($0.bpm) } ?? "null"), "
                + "\"confidence\": \(estimate.map { formatTwo($0.confidence) } ?? "null"), \"status\": \"\(status.name)\"}"
        }
    }

    /// The summary's confidence bins: values given with a confidence from each lower bound up to the next.
    static let confidenceBins = [0.0, 0.6, 0.8]

    /// Estimates asked for, and those with a value.
    var estimates = 0
    var estimatesWithValue = 0
    var bpmSum = 0.0
    var lowestBPM: Double?
    var highestBPM: Double?
    /// The confidence of the lowest and the highest value.
    var lowestConfidence = 0.0
    var highestConfidence = 0.0
    var confidenceSum = 0.0
    /// Values given per `confidenceBins`.
    var valuesByConfidence = Array(repeating: 0, count: confidenceBins.count)
    /// Estimates without a value, by why not.
    var withheld: [HeartRateStatus: Int] = [:]
    /// Gaps between samples longer than the window (no estimates in them past their first
    /// window), and the seconds they span in all.
    var gaps = 0
    var gapSeconds = 0.0
    /// Heart-rate variability at rest over the whole recording (nil when too few clean beats).
    var restingVariability: RestingVariability?
    /// Values with a lower confidence were withheld.
    var minimumConfidence = HeartRateEstimator.Configuration().minimumConfidence

    /// The sensor class of the recording (`HeartRateSensorClass`), from its header and first rows.
    var sensor = HeartRateSensorClass.standardThreeAxis

    /// `minimumConfidence` nil: the display threshold of the recording's sensor class.
    static func run(recording: PPGRecording, windowSeconds: Double, stepSeconds: Double,
                    minimumConfidence: Double? = nil,
                    row: (Row) -> Void = { _ in }) throws -> HeartRateAnalysis {
        let sensor = try sensorClass(of: recording)
        var configuration = HeartRateEstimator.Configuration(sensor: sensor)
        configuration.windowSeconds = windowSeconds
        let minimumConfidence = minimumConfidence ?? configuration.minimumConfidence
        configuration.minimumConfidence = minimumConfidence
        var replay = HeartRateReplay(estimator: HeartRateEstimator(configuration: configuration), stepSeconds: stepSeconds)
        var analysis = HeartRateAnalysis()
        analysis.minimumConfidence = minimumConfidence
        analysis.sensor = sensor
        func take(_ output: HeartRateReplay.Output) {
            analysis.add(output)
            row(Row(timeSeconds: output.timeSeconds, estimate: output.estimate, status: output.status))
        }
        try recording.forEachRow { row in
            let acceleration = row.acceleration.map {
                AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG)
            }
            replay.process(PPGSample(timeSeconds: row.timeSeconds, channels: row.ppg, acceleration: acceleration), output: take)
        }
        replay.finish(output: take)
        analysis.gaps = replay.gapCount
        analysis.gapSeconds = replay.gapSeconds
        analysis.restingVariability = replay.estimator.restingVariability
        return analysis
    }

    /// The class read off the header's channel count and the first
    /// `HeartRateSensorClass.rowsToClassify` rows (what is known before the estimator starts).
    static func sensorClass(of recording: PPGRecording) throws -> HeartRateSensorClass {
        struct Enough: Error {}
        var times: [Double] = [], acceleration: [AccelerationSample?] = []
        let channels = try recording.channelCount()
        do {
            try recording.forEachRow { row in
                guard times.count < HeartRateSensorClass.rowsToClassify else { throw Enough() }
                times.append(row.timeSeconds)
                acceleration.append(row.acceleration.map { AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) })
            }
        } catch is Enough {}
        return HeartRateSensorClass(ppgChannels: channels, times: times, acceleration: acceleration)
    }

    private mutating func add(_ output: HeartRateReplay.Output) {
        estimates += 1
        guard let estimate = output.estimate else {
            withheld[output.status, default: 0] += 1
            return
        }
        estimatesWithValue += 1
        bpmSum += estimate.bpm
        confidenceSum += estimate.confidence
        if estimate.bpm < lowestBPM ?? .infinity { lowestBPM = estimate.bpm; lowestConfidence = estimate.confidence }
        if estimate.bpm > highestBPM ?? -.infinity { highestBPM = estimate.bpm; highestConfidence = estimate.confidence }
        valuesByConfidence[Self.confidenceBins.lastIndex { estimate.confidence >= $0 } ?? 0] += 1
    }

    var meanBPM: Double? { estimatesWithValue > 0 ? bpmSum / Double(estimatesWithValue) : nil }
    var meanConfidence: Double? { estimatesWithValue > 0 ? confidenceSum / Double(estimatesWithValue) : nil }

    func summary(file: String) -> String {
        let coverage = estimates == 0 ? 0 : Double(estimatesWithValue) / Double(estimates) * 100
        var text = "\(file)\n"
        text += "  estimates   \(estimates) (\(formatOne(coverage)) % with a value)\n"
        if HeartRateEstimator.Configuration.displayThresholds[sensor]?.meetsRule == false {
            text += "  sensor      \(sensor): this class meets the display rule at no confidence (docs/heart-rate.md); "
                + "values from \(formatTwo(minimumConfidence)) are shown but may be more than 10 bpm off\n"
        }
        if let mean = meanBPM, let lo = lowestBPM, let hi = highestBPM, let confidence = meanConfidence {
            text += "  heart rate  mean \(formatOne(mean)) bpm, range \(formatOne(lo)) bpm (confidence \(formatTwo(lowestConfidence)))"
            text += " to \(formatOne(hi)) bpm (confidence \(formatTwo(highestConfidence)))\n"
            let bins = Self.confidenceBins.indices.map { b in
                (b == 0 ? "below \(formatTwo(Self.confidenceBins[1]))"
                    : b + 1 < Self.confidenceBins.count ? "\(formatTwo(Self.confidenceBins[b]))-\(formatTwo(Self.confidenceBins[b + 1]))"
                    : "\(formatTwo(Self.confidenceBins[b]))-1") + ": \(valuesByConfidence[b])"
            }
            text += "  confidence  mean \(formatTwo(confidence)); values \(bins.joined(separator: ", ")) "
            text += "(the chance a value is within 5 bpm; below \(formatTwo(minimumConfidence)) withheld)\n"
        } else {
            text += "  heart rate  no trustworthy value in this recording\n"
        }
        if estimatesWithValue < estimates {
            text += "  no value    \(withheld[.warmingUp, default: 0]) warming up, \(withheld[.noUsableSignal, default: 0]) no usable signal "
            text += "(flat, clipped, off the wrist), \(withheld[.lowConfidence, default: 0]) too unclear\n"
        }
        if gaps > 0 {
            text += "  gaps        \(gaps) longer than the window (\(formatOne(gapSeconds)) s without samples): "
            text += "no values there\n"
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

extension HeartRateStatus {
    /// As `analyze hr --json` names it.
    var name: String {
        switch self {
        case .warmingUp: "warming_up"
        case .noUsableSignal: "no_usable_signal"
        case .lowConfidence: "low_confidence"
        case .tracking: "tracking"
        }
    }
}

/// Three significant figures, with no trailing zeros: 200, 0.1, 10000, 0.025.
func formatFigures(_ value: Double) -> String {
    guard value.isFinite, value > 0 else { return formatSeconds(value) }
    var scale = 1.0
    while value * scale < 100 { scale *= 10 }
    while value * scale >= 1000 { scale /= 10 }
    let rounded = (value * scale).rounded() / scale
    return rounded == rounded.rounded() && rounded < 1e15 ? String(Int(rounded)) : String(rounded)
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

/// `amble analyze` as the fuzz targets run it (`AmbleFuzzTargets`): a recording's text in, the
/// rows it held and the work its analysis did out, for their checks that the work stays bounded
/// by the rows whatever the times. Nil when a line is malformed.
public enum AnalysisWork {
    /// `analyze steps` (its rate checked too): the rows, and the times the per-second cadence
    /// was read.
    public static func steps(text: String) -> (rows: Int, cadenceReadings: Int)? {
        let recording = AccelerationRecording(text: text, name: "fuzz.csv")
        var rows = 0
        guard (try? recording.forEachRow { _ in rows += 1 }) != nil,
              let result = try? StepAnalysis.count(recording: recording) else { return nil }
        _ = try? StepAnalysis.checkRate(medianIntervalSeconds: result.medianIntervalSeconds, file: recording.name)
        return (rows, result.cadenceReadings)
    }

    /// `analyze hr` at its default window and step: the rows, and the estimates made.
    public static func heartRate(text: String) -> (rows: Int, estimates: Int, windowSeconds: Double, stepSeconds: Double)? {
        let recording = PPGRecording(text: text, name: "fuzz.csv")
        var rows = 0
        let window = 8.0, step = 2.0
        guard (try? recording.forEachRow { _ in rows += 1 }) != nil,
              let result = try? HeartRateAnalysis.run(recording: recording, windowSeconds: window, stepSeconds: step) else { return nil }
        _ = result.summary(file: recording.name) + result.jsonFields
        return (rows, result.estimates, window, step)
    }
}
