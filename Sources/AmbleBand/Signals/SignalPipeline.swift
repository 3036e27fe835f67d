import AmbleDrivers
import AmbleModel
import AmbleSignal
import AmbleStateMachines

/// From sensor batches to one report per second: the step counter and the heart-rate
/// estimator (the same code `amble analyze` runs), the acceleration history that pairs each
/// PPG sample with the wrist's motion at its time, and the gaps of sensors that failed.
///
/// Pure apart from its inputs: batches with the band time they were read at, and the health
/// of the sensor channels when a second closes. No I/O and no clock reads.
struct SignalPipeline {
    /// The wearer's height (m) and weight (kg), for the energy of a walk (board `[wearer]`,
    /// changed from a laptop with the `height_cm` and `weight_kg` settings).
    var wearer: (heightMeters: Double, weightKilograms: Double)

    private var stepCounter = StepCounter()
    private var heartRate = HeartRateEstimator()
    private var recentAcceleration = AccelerationHistory()
    /// Band time of the newest accelerometer and PPG sample taken in, seconds.
    private var lastAccelerationTime = -Double.infinity
    private var lastPPGTime = -Double.infinity
    /// A batch read this long before the newest sample taken in, seconds, is a clock that went
    /// back, not samples stamped a little early: its samples start the streams again (the step
    /// counter and the heart-rate estimator restart on a jump back as on a long gap) rather than
    /// being squeezed in after the newest. The step counter's longest bridged gap.
    static let clockJumpSeconds = StepCounter.maximumGapSeconds
    /// Steps counted since the last second closed.
    private var stepsThisSecond = 0
    /// The steps released, filed under the seconds they were taken in.
    private var placement = StepPlacement()
    /// The optical sensor's last word on skin contact (true until it says otherwise).
    private(set) var skinDetected = true
    /// The wearer lets the band measure heart rate (setting `consent_heart_rate`). Off, PPG
    /// samples are dropped unread and no second carries a heart rate, a gap or a variability.
    var heartRateConsent = true
    /// Raw capture of the session under way, when the wearer consents to it (setting
    /// `consent_raw_capture`): every sample taken in is also kept there; nil otherwise.
    var rawCapture: RawSampleCapture?
    /// |a| this second: count, sum and sum of squares (the wrist's motion, for the alert's strength).
    private var magnitudeCount = 0
    private var magnitudeSum = 0.0
    private var magnitudeSquares = 0.0

    /// `heartRateSensor`: the class of the board's PPG and accelerometer, whose display
    /// threshold the estimator uses (`HeartRateEstimator.Configuration.displayThresholds`).
    init(wearer: (heightMeters: Double, weightKilograms: Double), heartRateSensor: HeartRateSensorClass = .standardThreeAxis) {
        self.wearer = wearer
        heartRate = HeartRateEstimator(configuration: HeartRateEstimator.Configuration(sensor: heartRateSensor))
    }

    // MARK: Samples in

    /// Takes in an accelerometer batch read at band time `now` from a sensor at `rateHz`.
    mutating func ingest(_ batch: AccelerometerBatch, now: Double, rateHz: Double) {
        let period = 1 / rateHz
        let count = batch.samples.count
        if now < lastAccelerationTime - Self.clockJumpSeconds {
            // The walk under way ends where it was, its steps filed by the old times; the steps
            // to come are filed by the seconds that close from now on.
            take(stepCounter.finishTimed())
            placement.forgetClosedSeconds()
            lastAccelerationTime = -.infinity
            recentAcceleration = AccelerationHistory()
        }
        for (i, v) in batch.samples.enumerated() {
            // The newest sample was taken just before the read; the others one period apart.
            let t = max(now - Double(count - 1 - i) * period, lastAccelerationTime + period * 0.5)
            lastAccelerationTime = t
            let sample = AccelerationSample(timeSeconds: t, xG: v.xG, yG: v.yG, zG: v.zG)
            recentAcceleration.append(sample)
            rawCapture?.addAcceleration(atSeconds: t, xG: v.xG, yG: v.yG, zG: v.zG, rateHz: rateHz)
            take(stepCounter.processTimed(sample))
            let magnitude = (v.xG * v.xG + v.yG * v.yG + v.zG * v.zG).squareRoot()
            magnitudeCount += 1
            magnitudeSum += magnitude
            magnitudeSquares += magnitude * magnitude
        }
    }

    /// Takes in an optical batch read at band time `now` from a sensor at `rateHz`.
    mutating func ingest(_ batch: OpticalBatch, now: Double, rateHz: Double) {
        guard heartRateConsent else { return }
        let period = 1 / rateHz
        let count = batch.samples.count
        if let skin = batch.skinDetected { skinDetected = skin }
        if now < lastPPGTime - Self.clockJumpSeconds { lastPPGTime = -.infinity }
        for (i, s) in batch.samples.enumerated() {
            let t = max(now - Double(count - 1 - i) * period, lastPPGTime + period * 0.5)
            lastPPGTime = t
            rawCapture?.addPPG(atSeconds: t, infrared: s.infrared, red: s.red, rateHz: rateHz)
            heartRate.process(timeSeconds: t, channels: SIMD4(Double(s.infrared), Double(s.red), 0, 0), channelCount: 2,
                              acceleration: recentAcceleration.value(at: t))
        }
    }

    // MARK: Seconds out

    /// What the loop knows of a sensor channel when a second closes.
    struct ChannelState {
        /// Data was lost since the last second (taken from the channel).
        var gap: Bool
        var isHealthy: Bool
    }

    /// Closes the second ending at band time `bandSeconds` (dated `unixSeconds`).
    /// `heartRateSensor` is nil on a board without one. `calibratedStepLengthMeters` is the
    /// calibration's, when it measured one (for the energy).
    mutating func closeSecond(at bandSeconds: Double, unixSeconds: Double, accelerometer: ChannelState, heartRateSensor: ChannelState?,
                              calibratedStepLengthMeters: Double?) -> SecondReport {
        // A value only from a working sensor with fresh samples on skin: an unplugged sensor
        // must not leave its last value standing.
        let ppgFresh = heartRateSensor?.isHealthy == true && bandSeconds - lastPPGTime < 1.5
        heartRate.takeSteps(from: stepCounter)
        let estimate = heartRateConsent && ppgFresh && skinDetected ? heartRate.estimate() : nil
        if accelerometer.gap, stepCounter.isWalking {
            // The walk's samples stopped: it ends here, and its steps still pending come out
            // with this second (rather than the first second after the gap).
            take(stepCounter.finishTimed())
        }
        var report = SecondReport(
            unixSeconds: unixSeconds,
            steps: stepsThisSecond,
            stepsTaken: placement.closeSecond(at: bandSeconds),
            cadenceStepsPerMinute: accelerometer.gap && !accelerometer.isHealthy ? 0 : stepCounter.cadenceStepsPerMinute,
            heartRateBPM: estimate?.bpm, heartRateConfidence: estimate?.confidence,
            accelerometerGap: accelerometer.gap, heartRateGap: heartRateConsent && (heartRateSensor?.gap ?? false))
        stepsThisSecond = 0
        // What a session ended now would gain: the steps the counter holds, placed as at a
        // clean end, without taking them (a power cut then loses at most the second under way).
        let pending = stepCounter.pendingRelease
        if pending.steps > 0 {
            var ended = placement
            ended.add(pending)
            report.pendingStepsTaken = ended.takeIntoLastSecond()
        }

        // Energy (ACSM walking equation through `GaitModel`) and the resting RMSSD, once per
        // second; the practice sums them into the session's summary.
        let gait = GaitModel(heightMeters: wearer.heightMeters, weightKilograms: wearer.weightKilograms, calibratedStepLengthMeters: calibratedStepLengthMeters)
        report.activeKilocalories = gait.activeEnergyKilocalories(cadenceStepsPerMinute: report.cadenceStepsPerMinute, durationSeconds: 1)
        report.restingRMSSDMilliseconds = heartRateConsent ? heartRate.restingVariability?.rmssdMilliseconds : nil
        // The wrist's motion: the standard deviation of |a| over the second, g.
        if magnitudeCount > 1 {
            let mean = magnitudeSum / Double(magnitudeCount)
            report.wristMotionG = max(0, magnitudeSquares / Double(magnitudeCount) - mean * mean).squareRoot()
        }
        magnitudeCount = 0
        magnitudeSum = 0
        magnitudeSquares = 0
        return report
    }

    /// A session ends between two seconds: the steps the counter still holds (it releases
    /// steps once they are certain, about 10 s late) and those released since the last second
    /// closed, by the second they were taken in: `[0]` in the last second closed (or the one
    /// still open), `[n]` in the one n seconds before it. They are not reported again. The
    /// session's context goes with it.
    mutating func finishSteps() -> [Int] {
        take(stepCounter.finishTimed())
        stepCounter.context = nil
        stepsThisSecond = 0
        return placement.takeIntoLastSecond()
    }

    private mutating func take(_ releases: StepReleases) {
        stepsThisSecond += releases.steps
        placement.add(releases)
    }

    /// A session begins: the resting heart-rate variability is measured afresh. During a mindful
    /// walk the counter knows the wearer means to walk, at about the walk's limit
    /// (`StepCounter.Context`). A calibration walks at the wearer's normal pace, which the
    /// counter's typical cadence already expects.
    mutating func sessionBegan(_ kind: SessionKind, parameters: SessionParameters) {
        heartRate.restartVariability()
        stepCounter.context = kind == .mindfulWalk
            ? parameters.limitCadenceStepsPerMinute.map { .mindfulWalk(expectedStepsPerMinute: $0) } : nil
    }
}

