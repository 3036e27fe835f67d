import RealModule

/// A heart-rate estimate and how much to trust it.
public struct HeartRateEstimate: Equatable, Sendable {
    /// Beats per minute: the mean rate over the analysis window that ends at the estimate.
    public var bpm: Double
    /// 0...1: the probability, under the estimator's model, that the true rate is within
    /// 5 bpm of `bpm` (calibrated on the development recordings: docs/heart-rate.md,
    /// "Confidence"); 0 without an accelerometer when the value may be the gait's.
    /// Estimates below `Configuration.minimumConfidence` are never returned.
    public var confidence: Double

    public init(bpm: Double, confidence: Double) {
        self.bpm = bpm
        self.confidence = confidence
    }
}

/// Why the last call to `estimate()` gave, or did not give, a value.
public enum HeartRateStatus: Equatable, Sendable {
    /// Less than one window of signal since the start (or since a gap in the samples).
    case warmingUp
    /// Every channel was flat (saturated, disconnected), clipped or noise only over the window.
    case noUsableSignal
    /// The signal was there but too unclear (off the wrist, heavy motion): no value given.
    case lowConfidence
    /// A value was given.
    case tracking
}

/// A streaming heart-rate estimator from wrist PPG (1...3 channels, any rate 12.5...125 Hz),
/// using the accelerometer, when there is one, to take out the gait and the motion artefact.
///
/// Feed samples in time order with `process(_:)`; call `estimate()` whenever a value is wanted
/// (every 1–2 s): it uses only the samples fed so far. Memory is fixed at initialisation.
///
/// Method (docs/heart-rate.md; every number in `Parameters`, with its reason):
/// 1. Samples are averaged into 25 Hz bins and high-passed at 0.5 Hz (a DC blocker started
///    settled: any DC level, drift or gain).
/// 2. The cadence comes from the spectrum of |a| (`GaitComb`), with a weight for how rhythmic
///    the wrist's motion is; the gait comb has teeth at k × cadence / 2.
/// 3. One least-squares fit per window, shared by the channels (`LeastSquaresFit`): a
///    constant, sinusoids at the lowest comb teeth while walking, and each acceleration axis
///    delayed by −120, 0 and +120 ms.
/// 4. Each usable channel's residual spectrum, in units of its noise floor; inside the comb's
///    zones the evidence is neutral; the pulse's second harmonic adds support; while walking,
///    rates below 55 bpm are less likely (`PulseEvidence`).
/// 5. A forward filter on a 1-bpm grid (`HeartRateTracker`) carries the rate across windows,
///    with drift and a small chance of a jump. The value is the posterior mean near its mode;
///    the confidence is the posterior mass within ±5 bpm; below `minimumConfidence`, or when
///    no channel is usable (flat, clipped, a jump of level, noise only: `ChannelQuality`),
///    there is no value.
/// 6. Without an accelerometer, a value below the walking floor or whose line has a stride
///    line beneath it or a stride's strong second harmonic (`PulseEvidence.looksLikeGait`)
///    may be gait as well as the pulse: its confidence is 0 (withheld at any threshold).
public struct HeartRateEstimator: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Length of the analysis window, in seconds (2...60); also the time to the first value.
        public var windowSeconds: Double = 8
        /// Range of heart rates considered, beats per minute.
        public var minimumBPM: Double = 40
        public var maximumBPM: Double = 220
        /// Estimates with a lower confidence (0...1) are withheld. `init()` and `init(sensor:)`
        /// take it from `displayThresholds`: the display rule read from the reliability tables
        /// of the sensor's class (docs/heart-rate.md, "Confidence").
        public var minimumConfidence: Double = 0.45
        /// The band's own class's threshold (`displayThresholds`, `HeartRateSensorClass.standardThreeAxis`).
        public init() { minimumConfidence = Self.displayThresholds[.standardThreeAxis]?.value ?? minimumConfidence }

        /// The display threshold of `sensor`'s class (`displayThresholds`).
        public init(sensor: HeartRateSensorClass) {
            minimumConfidence = Self.displayThresholds[sensor]?.value ?? minimumConfidence
        }

        /// A class's display threshold, whether it meets the rule, and the table it came from.
        public struct DisplayThreshold: Sendable, Equatable {
            public var value: Double
            /// False: no bin edge meets the rule on this class; `value` is the edge with the
            /// fewest values more than 10 bpm off on its worst table (shown, and said so).
            public var meetsRule: Bool
            public var reason: String
        }

        /// Per sensor class, the threshold `HeartRateReliability.displayThreshold`'s rule reads
        /// from `scripts/score-hr`'s reliability tables of that class (every development set
        /// and variant whose sensor is of the class; the tool prints these and says when one
        /// differs from what it reads).
        public static let displayThresholds: [HeartRateSensorClass: DisplayThreshold] = [
            HeartRateSensorClass(ppg: .standard, accelerometer: .threeAxis): DisplayThreshold(
                value: 0.4, meetsRule: true,
                reason: "SPC and BAMI as recorded, (a), (b), (c) x0.3 and x3 (at 0.30 SPC's 0.3-0.4 bin is 36 % within 5 bpm)"),
            HeartRateSensorClass(ppg: .standard, accelerometer: .magnitudeOnly): DisplayThreshold(
                value: 0.45, meetsRule: true, reason: "SPC and BAMI magnitude-only (BAMI's 0.40-0.45 bin is 30 % within 5 bpm)"),
            HeartRateSensorClass(ppg: .standard, accelerometer: .none): DisplayThreshold(
                value: 0.8, meetsRule: false,
                reason: "SPC and BAMI (d): no edge meets it; from 0.8 the fewest far off on the worst (BAMI d, about 13 %)"),
            HeartRateSensorClass(ppg: .oneChannelLowRate, accelerometer: .threeAxis): DisplayThreshold(
                value: 0.8, meetsRule: true, reason: "Bangle.js as recorded, (a), (b), (c) x0.3 and x3"),
            HeartRateSensorClass(ppg: .oneChannelLowRate, accelerometer: .magnitudeOnly): DisplayThreshold(
                value: 0.9, meetsRule: true, reason: "Bangle.js magnitude-only"),
            HeartRateSensorClass(ppg: .oneChannelLowRate, accelerometer: .none): DisplayThreshold(
                value: 0.7, meetsRule: true, reason: "Bangle.js (d)"),
        ]
    }

    /// Internal sample rate, Hz: the pulse up to 220 bpm (3.7 Hz) and its second harmonic
    /// (7.3 Hz) lie below the Nyquist frequency; averaging into bins is the anti-alias filter.
    public static let internalRateHz = 25.0
    /// FFT length: 8 s (200 bins) zero-padded to 512 points, one bin every 2.9 bpm, read on the
    /// 1-bpm grid by interpolation; longer windows get the next power of two.
    static func fftSize(windowCount: Int) -> Int {
        var size = 512
        while size < windowCount { size *= 2 }
        return size
    }
    /// The value is the posterior mean within this many grid points of its mode.
    static let refineBins = 3
    /// The wearer counts as at rest for RMSSD when the wrist is not walking (`GaitComb`) and
    /// the confidence reaches this; a PPG-only device, which cannot see motion,
    /// needs `restingConfidenceWithoutAccelerometer`.
    static let restingConfidence = 0.6
    static let restingConfidenceWithoutAccelerometer = 0.8
    /// Beats move to another channel only when its pulse stands this many times higher above
    /// its noise floor than the current channel's (3 dB).
    static let beatChannelSwitchRatio = 2.0

    public let configuration: Configuration
    public let parameters: Parameters
    /// Why the last `estimate()` gave, or did not give, a value.
    public private(set) var status: HeartRateStatus = .warmingUp
    /// The last value given (nil after a call that gave none).
    public private(set) var latest: HeartRateEstimate?

    private let windowCount: Int
    private let accelerationLagBins: Int
    private let binsToJudgeStep: Int
    private let grid: HeartRateGrid
    private var resampler: PPGResampler
    private var channelCount = 0
    // Per PPG channel: the DC blocker (what is analysed), the pulse band after it (0.5-4 Hz:
    // channel quality and beats) and the band above 5 Hz (noise).
    private var levelSteps: [LevelSteps]
    private var highPass: [Biquad]
    private var pulseLowPass: [Biquad]
    private var noiseHighPass: [Biquad]
    private var accelerationHighPass: [Biquad]   // x, y, z, |a|
    private var highPassed: [RingBuffer<Double>]
    private var pulseBand: [RingBuffer<Double>]
    private var noiseBand: [RingBuffer<Double>]
    private var raw: [RingBuffer<Double>]
    private var stuck: [RingBuffer<Double>]
    private var motion: [RingBuffer<Double>]      // x, y, z, |a| high-passed
    private var accelerationPresent: RingBuffer<Double>
    private var accelerationBinsInWindow = 0.0
    private var binsSinceReset = 0
    private var accelerationIsMagnitude = false
    private var newestBinIndex: Int?
    private var lastEstimateBinIndex: Int?

    private var comb: GaitComb
    /// The step counter's cadence while it says the wearer walks, steps per minute; 0 when it
    /// says not, or before it is told (`takeSteps(from:)`).
    private var stepCadence = 0.0
    private var fit: LeastSquaresFit
    private var evidence: PulseEvidence
    private var tracker: HeartRateTracker
    private var beats: BeatTracker

    // Scratch, sized once.
    private var windowValues: [Double]
    private var windowRaw: [Double]
    private var windowStuck: [Double]
    private var windowBand: [Double]
    private var windowNoise: [Double]
    private var scratch: [Double]
    private var logLikelihood: [Double]
    private var usableChannel: [Bool]

    public init(configuration: Configuration = .init(), parameters: Parameters = .standard) {
        self.configuration = configuration
        self.parameters = parameters
        let rate = Self.internalRateHz
        let seconds = min(60, max(2, configuration.windowSeconds))
        windowCount = Int((seconds * rate).rounded())
        accelerationLagBins = Int((parameters.accelerationLagSeconds * rate).rounded())
        binsToJudgeStep = Int((parameters.afterStepSeconds * rate).rounded())
        let lower = max(20, configuration.minimumBPM)
        grid = HeartRateGrid(lowerBPM: lower, upperBPM: max(lower + 20, min(300, configuration.maximumBPM)))
        resampler = PPGResampler(rateHz: rate, maximumFilledGapSeconds: parameters.longestBridgedGapSeconds)
        let dcBlocker = Biquad.butterworthHighPass(cutoffHz: parameters.highPassHz, sampleRateHz: rate)
        highPass = Array(repeating: dcBlocker, count: 3)
        levelSteps = Array(repeating: LevelSteps(stepRatio: parameters.levelStepRatio, typicalChangeSeconds: parameters.typicalChangeSeconds,
                                                 rateHz: rate), count: 3)
        pulseLowPass = Array(repeating: .butterworthLowPass(cutoffHz: ChannelQuality.pulseBandHighHz, sampleRateHz: rate), count: 3)
        noiseHighPass = Array(repeating: .butterworthHighPass(cutoffHz: ChannelQuality.noiseBandLowHz, sampleRateHz: rate), count: 3)
        accelerationHighPass = Array(repeating: dcBlocker, count: 4)
        let ring = RingBuffer(capacity: windowCount, filling: 0.0)
        highPassed = Array(repeating: ring, count: 3)
        pulseBand = highPassed
        noiseBand = highPassed
        raw = highPassed
        stuck = highPassed
        motion = Array(repeating: ring, count: 4)
        accelerationPresent = ring
        let fftSize = Self.fftSize(windowCount: windowCount)
        comb = GaitComb(windowCount: windowCount, fftSize: fftSize, rateHz: rate, parameters: parameters)
        fit = LeastSquaresFit(maximumCount: windowCount, maximumColumns: 1 + 2 * parameters.fittedTeeth + 3 * 3)
        evidence = PulseEvidence(grid: grid, windowCount: windowCount, fftSize: fftSize, rateHz: rate, parameters: parameters)
        tracker = HeartRateTracker(grid: grid, parameters: parameters)
        beats = BeatTracker(rateHz: rate)
        windowValues = Array(repeating: 0, count: windowCount)
        windowRaw = windowValues
        windowStuck = windowValues
        windowBand = windowValues
        windowNoise = windowValues
        scratch = windowValues
        logLikelihood = Array(repeating: 0, count: grid.count)
        usableChannel = Array(repeating: false, count: 3)
    }

    /// Heart-rate variability at rest over everything fed since the start or the last
    /// `restartVariability()` (nil until enough clean beats at rest were seen). The band
    /// restarts it when a session begins and reads it when the session ends.
    public var restingVariability: RestingVariability? { beats.variability }

    /// Starts a new tally for `restingVariability` (the heart-rate tracking goes on).
    public mutating func restartVariability() { beats.restartVariability() }

    /// The most recent beat-to-beat intervals accepted at rest, oldest first, in milliseconds
    /// (at most `BeatTracker.recentCapacity`).
    public var recentBeatIntervalsMilliseconds: [Double] { beats.recentIntervalsMilliseconds }

    /// Values held (ring buffers, scratch, the stages' tables and state), for tests of fixed
    /// memory: about 8 bytes each.
    var bufferElementCount: Int {
        let rings = (highPassed + pulseBand + noiseBand + raw + stuck + motion).reduce(0) { $0 + $1.capacity }
        let scratches = windowValues.count + windowRaw.count + windowStuck.count + windowBand.count + windowNoise.count
            + scratch.count + logLikelihood.count + usableChannel.count
        return rings + accelerationPresent.capacity + scratches + comb.bufferElementCount + fit.bufferElementCount
            + evidence.bufferElementCount + tracker.bufferElementCount + beats.bufferElementCount + resampler.completed.count
    }

    // MARK: Input

    /// Feeds one sample (samples must come in time order). Channels past the third are
    /// ignored; a sample without channels, or with a non-finite value, is skipped.
    public mutating func process(_ sample: PPGSample) {
        let n = min(3, sample.channels.count)
        var ppg = SIMD4<Double>()
        for c in 0..<n { ppg[c] = sample.channels[c] }
        process(timeSeconds: sample.timeSeconds, channels: ppg, channelCount: n, acceleration: sample.acceleration)
    }

    /// The same as `process(PPGSample(timeSeconds:channels:acceleration:))` with the channels
    /// in the first `channelCount` lanes of `channels` (the others are ignored): no array is
    /// made, which is most of what the band's 100 samples a second would cost the heap.
    public mutating func process(timeSeconds: Double, channels: SIMD4<Double>, channelCount count: Int, acceleration sampleAcceleration: AccelerationSample?) {
        let n = min(3, count)
        guard n > 0, timeSeconds.isFinite else { return }
        var ppg = SIMD4<Double>()
        for c in 0..<n {
            guard channels[c].isFinite else { return }
            ppg[c] = channels[c]
        }
        if n != channelCount {
            channelCount = n
            resetSignal()
            resampler.reset()
        }
        var acceleration: SIMD4<Double>?
        if let a = sampleAcceleration, a.xG.isFinite, a.yG.isFinite, a.zG.isFinite {
            // Magnitude only: flagged, or a recording with |a| in x and zeros in y and z.
            accelerationIsMagnitude = a.isMagnitudeOnly || (a.yG == 0 && a.zG == 0)
            acceleration = accelerationIsMagnitude ? SIMD4(a.xG, 0, 0, 0) : SIMD4(a.xG, a.yG, a.zG, 0)
        }
        if !resampler.add(timeSeconds: timeSeconds, ppg: ppg, acceleration: acceleration) {
            resetSignal()
        }
        for i in 0..<resampler.completedCount { ingest(resampler.completed[i]) }
    }

    /// One 25 Hz bin into the filters and the window buffers.
    private mutating func ingest(_ bin: ResampledBin) {
        if binsSinceReset == 0 {
            for c in 0..<3 {
                highPass[c].settle(onConstantInput: bin.ppg[c])
                pulseLowPass[c].settle(onConstantInput: 0)
                noiseHighPass[c].settle(onConstantInput: bin.ppg[c])
            }
        }
        for c in 0..<channelCount {
            let x = parameters.levelStepRatio > 0 ? levelSteps[c].corrected(bin.ppg[c]) : bin.ppg[c]
            if levelSteps[c].binsSinceStep == 0 {
                // The filters start again at the step, so that what follows it is judged alone.
                highPass[c].settle(onConstantInput: x)
                pulseLowPass[c].settle(onConstantInput: 0)
                noiseHighPass[c].settle(onConstantInput: x)
            }
            let dcBlocked = highPass[c].process(x)
            highPassed[c].append(dcBlocked)
            pulseBand[c].append(pulseLowPass[c].process(dcBlocked))
            noiseBand[c].append(noiseHighPass[c].process(x))
            raw[c].append(bin.ppg[c])
            stuck[c].append(bin.stuck[c])
        }
        if bin.hasAcceleration {
            let a = bin.acceleration
            let magnitude = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).squareRoot()
            if accelerationPresent.count == 0 || accelerationPresent[age: 0] == 0 {
                // Acceleration (re)appears: start its filters from steady state.
                for j in 0..<3 { accelerationHighPass[j].settle(onConstantInput: a[j]) }
                accelerationHighPass[3].settle(onConstantInput: magnitude)
            }
            for j in 0..<3 { motion[j].append(accelerationHighPass[j].process(a[j])) }
            motion[3].append(accelerationHighPass[3].process(magnitude))
        } else {
            for j in 0..<4 { motion[j].append(0) }
        }
        if accelerationPresent.count == accelerationPresent.capacity {
            accelerationBinsInWindow -= accelerationPresent[age: accelerationPresent.capacity - 1]
        }
        accelerationPresent.append(bin.hasAcceleration ? 1 : 0)
        accelerationBinsInWindow += bin.hasAcceleration ? 1 : 0
        binsSinceReset += 1
        newestBinIndex = bin.index
        if channelCount > 0 {
            beats.process(filteredPPG: pulseBand[min(beats.channel, channelCount - 1)][age: 0], binIndex: bin.index)
        }
    }

    /// Drops the signal history (new channel layout, or a gap too long to bridge).
    private mutating func resetSignal() {
        for c in 0..<3 {
            levelSteps[c].reset()
            highPassed[c].removeAll(); pulseBand[c].removeAll(); noiseBand[c].removeAll()
            raw[c].removeAll(); stuck[c].removeAll()
        }
        for j in 0..<4 { motion[j].removeAll() }
        accelerationPresent.removeAll()
        accelerationBinsInWindow = 0
        binsSinceReset = 0
        comb.forget()
        beats.interrupt()
    }

    /// The step counter's word on the same accelerometer, for the estimates from now on: while
    /// it says the wearer walks and |a| shows no walking rhythm (hands held still in a mindful
    /// walk), its cadence is the gait comb's, with full weight (`GaitComb`). The band's
    /// pipeline and `HeartRateReplay` tell it before each estimate.
    public mutating func takeSteps(from counter: StepCounter) {
        stepCadence = counter.isWalking ? counter.cadenceStepsPerMinute : 0
    }

    // MARK: Estimation

    /// The estimate from the samples fed so far, or nil when there is none to trust (see
    /// `status` for why). Calling it twice without new samples returns the same answer.
    ///
    /// `atTimeSeconds` (the samples' clock), when given, says that no sample before that time
    /// is still to come: the newest bin, if it has ended by then, is closed and used (as
    /// `amble analyze hr` does); and if the samples stopped longer ago than a gap that can be
    /// bridged, the window starts again there (no samples, no value: the next sample would
    /// restart it anyway). Without it the newest bin waits for the next sample (as on the
    /// band, whose samples arrive in batches stamped back in time).
    public mutating func estimate(atTimeSeconds now: Double? = nil) -> HeartRateEstimate? {
        if let now {
            resampler.close(endedBy: now)
            for i in 0..<resampler.completedCount { ingest(resampler.completed[i]) }
            if resampler.cannotBridge(to: now) {
                resampler.reset()
                resetSignal()
            }
        }
        guard let newest = newestBinIndex, binsSinceReset >= windowCount else {
            status = .warmingUp
            latest = nil
            return nil
        }
        let elapsedSeconds: Double
        if let last = lastEstimateBinIndex {
            guard newest > last else { return latest }
            elapsedSeconds = Double(newest - last) / Self.internalRateHz
        } else {
            elapsedSeconds = parameters.referenceStepSeconds
        }
        lastEstimateBinIndex = newest
        tracker.predict(elapsedSeconds: elapsedSeconds)

        // The gait and the regressors, from acceleration present throughout the window.
        let withAcceleration = accelerationBinsInWindow == Double(windowCount)
        let withoutAcceleration = accelerationBinsInWindow == 0
        measureGaitAndFit(withAcceleration: withAcceleration)
        let walking = comb.isWalking

        // Each usable channel's evidence.
        let usable = addChannelEvidence()
        guard usable > 0 else {
            status = .noUsableSignal
            latest = nil
            beats.setContext(expectedIntervalSeconds: nil, atRest: false, channel: beats.channel, polarity: beats.polarity)
            return nil
        }

        evidence.logLikelihood(walking: walking, into: &logLikelihood)
        tracker.update(logLikelihood: logLikelihood, weight: min(1, elapsedSeconds / parameters.referenceStepSeconds))
        let best = tracker.mostProbable(refineBins: Self.refineBins, massBPM: parameters.confidenceHalfWidthBPM)
        var confidence = max(0, min(1, best.mass))
        if withoutAcceleration, best.bpm < parameters.walkingFloorBPM || evidence.looksLikeGait(atBPM: best.bpm) {
            // Without an accelerometer a gait line is a periodic signal like a pulse, and the
            // window cannot tell them apart: a value below the walking floor (the stride's
            // range) or whose line looks like gait gets no confidence and is withheld at any
            // threshold (on the development sets such values are within 5 bpm 39-55 % of the
            // time and more than 10 bpm off 39-57 %).
            confidence = 0
        }

        // Beats are timed on the channel whose pulse stands highest above its noise at the value;
        // the current one is kept unless another is clearly clearer (every switch breaks the
        // chain of beats).
        var beatChannel = beats.channel < channelCount && usableChannel[beats.channel] ? beats.channel : -1
        var clearest = beatChannel >= 0 ? Self.beatChannelSwitchRatio * evidence.channelSpectrum(beatChannel, at: best.index) : -1
        for c in 0..<channelCount where usableChannel[c] && c != beatChannel {
            let value = evidence.channelSpectrum(c, at: best.index)
            if value > clearest { clearest = value; beatChannel = c }
        }
        let atRest = withAcceleration
            ? !walking && confidence >= Self.restingConfidence
            : withoutAcceleration && confidence >= Self.restingConfidenceWithoutAccelerometer
        let trusted = confidence >= configuration.minimumConfidence
        pulseBand[beatChannel].copyNewest(windowCount, into: &windowBand)
        let polarity = BeatTracker.polarity(of: windowBand, count: windowCount,
                                            current: beatChannel == beats.channel ? beats.polarity : 1)
        beats.setContext(expectedIntervalSeconds: trusted ? 60 / best.bpm : nil,
                         atRest: atRest, channel: beatChannel, polarity: polarity)
        guard trusted else {
            status = .lowConfidence
            latest = nil
            return nil
        }
        status = .tracking
        latest = HeartRateEstimate(bpm: best.bpm, confidence: confidence)
        return latest
    }

    /// The gait comb from the window's |a| (or none without acceleration), and the fit's
    /// regressors: a constant, the lowest teeth while walking, each axis at three lags.
    private mutating func measureGaitAndFit(withAcceleration: Bool) {
        if withAcceleration {
            motion[3].copyNewest(windowCount, into: &windowValues)
            comb.measure(magnitude: windowValues, stepCadence: stepCadence)
        } else {
            comb.clear()
        }
        fit.begin(count: windowCount)
        fit.addConstant()
        let fittedTeeth = min(parameters.fittedTeeth, comb.toothCount)
        if comb.isWalking, fittedTeeth > 0 {
            // The lowest teeth: harmonics firstToothOrder... of the stride.
            fit.addHarmonics(fundamentalCyclesPerSample: comb.cadenceStepsPerMinute / 2 / 60 / Self.internalRateHz,
                             orders: comb.firstToothOrder...(comb.firstToothOrder + fittedTeeth - 1))
        }
        if withAcceleration {
            // A magnitude-only sensor has one axis, |a| (its other two are zero).
            for axis in 0..<(accelerationIsMagnitude ? 1 : 3) {
                motion[axis].copyNewest(windowCount, into: &windowValues)
                var mean = 0.0
                for i in 0..<windowCount { mean += windowValues[i] }
                mean /= Double(windowCount)
                for i in 0..<windowCount { windowValues[i] -= mean }
                fit.addDelayed(windowValues, lag: accelerationLagBins)
            }
        }
        fit.factor()
    }

    /// Each channel judged and, when usable, its spectrum added to the evidence; how many were.
    private mutating func addChannelEvidence() -> Int {
        evidence.begin(comb: comb)
        var usable = 0
        for c in 0..<channelCount {
            raw[c].copyNewest(windowCount, into: &windowRaw)
            usableChannel[c] = false
            stuck[c].copyNewest(windowCount, into: &windowStuck)
            pulseBand[c].copyNewest(windowCount, into: &windowBand)
            noiseBand[c].copyNewest(windowCount, into: &windowNoise)
            highPassed[c].copyNewest(windowCount, into: &windowValues)
            let level = RobustStatistics.centerAndSpread(of: windowValues, count: windowCount, scratch: &scratch)
            let quality = ChannelQuality.judge(raw: windowRaw, stuck: windowStuck, dcBlocked: windowValues, spread: level.spread,
                                               band: windowBand, high: windowNoise, count: windowCount,
                                               binsSinceStep: levelSteps[c].binsSinceStep, binsToJudgeStep: binsToJudgeStep)
            guard quality == .usable, evidence.add(channel: c, values: windowValues, level: level, fit: &fit) else { continue }
            usableChannel[c] = true
            usable += 1
        }
        return usable
    }
}

