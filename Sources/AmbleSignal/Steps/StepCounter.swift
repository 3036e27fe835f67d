/// A streaming step counter: one accelerometer sample in at a time, constant memory.
///
/// The pipeline (see docs/steps.md):
/// 1. |a| (from 3 axes, or the magnitude a magnitude-only sensor gives), resampled to 25 Hz
///    by box-averaging the piecewise-linear signal: any input rate from 12.5 to 125 Hz,
///    irregular intervals, gaps up to `maximumGapSeconds` bridged. The magnitude does not
///    depend on how the band is worn.
/// 2. Band-pass 0.5-3 Hz (2nd-order Butterworth high-pass and low-pass): gravity, posture
///    drift and vibration above 3 Hz go. A second band, 1.2-4 Hz, keeps the step rhythm
///    apart from the arm swing at the stride rate.
/// 3. Swing channel: peaks with adaptive hysteresis are step candidates
///    (`StepCandidateDetector`); `WalkingBoutTracker` confirms bouts by rhythm, periodicity
///    and peak likeness, releases the held steps of a confirmed bout all at once, decides
///    step or stride, and follows the rhythm.
/// 4. Impulse channel, for slow walking with little arm swing: heel-strike impulses of |a|
///    (`ImpulseDetector`) followed by `ImpulseBoutTracker`, which confirms a bout from a long,
///    metronome-like train of alike impulses that holds most of the impulse energy.
/// 5. Rhythm channel, for brisk walking the peak channels miss (large arm movements between
///    the steps break their chains): `RhythmTracker` estimates the step period from the
///    autocorrelation of 8 s of the band-passed signal, large movements masked, and counts
///    hop / period steps over the time a consistent rhythm covers (cadence integration).
/// 6. The swing channel has priority: the impulse channel counts only while the swing channel
///    is not walking, the rhythm channel only while neither is, and a bout confirmed by any
///    releases only steps later than the last step counted, so no step is counted twice.
///
/// Cadence is the mean of the last 8 step intervals (those within 20 % of their median) of
/// the peak channel that is walking, or the rhythm channel's period, as steps per minute,
/// published once per second of sample time, and 0 when no bout is under way.
public struct StepCounter: Sendable {
    /// Steps counted by each channel (docs/steps.md, "The algorithm"). Steps the swing channel
    /// finds hidden in an impulse bout's intervals, or in its own when it halves on the heel
    /// strikes, are the swing channel's.
    public struct ChannelSteps: Sendable, Equatable {
        public var swing = 0
        public var impulse = 0
        public var rhythm = 0
        public var total: Int { swing + impulse + rhythm }
        public init(swing: Int = 0, impulse: Int = 0, rhythm: Int = 0) {
            self.swing = swing
            self.impulse = impulse
            self.rhythm = rhythm
        }
    }

    public struct Configuration: Sendable, Equatable {
        /// Smallest rise of a peak that can be a step, in g (sensor noise floor).
        public var peakThresholdG: Double = 0.03
        /// Shortest time between two steps, in seconds (160 steps/min, the walk-run
        /// transition: faster rhythms at the wrist are running, scrubbing or shaking).
        public var minimumStepIntervalSeconds: Double = 0.375
        /// Longest time between two steps of one bout, in seconds (about 27 steps/min: the
        /// slowest mindful walking).
        public var maximumStepIntervalSeconds: Double = 2.2
        /// Steps in a steady rhythm needed to confirm a walking bout from rest.
        public var stepsToConfirmBout: Int = 7
        /// Smallest correlation (0...1) of the signal with itself one step or one stride
        /// later, over the steps that would confirm a bout.
        public var minimumPeriodicity: Double = 0.5
        /// Largest variation of the peak heights of those steps: 1.4826 x their median absolute
        /// deviation over their median (the coefficient of variation for normal spreads).
        public var maximumAmplitudeVariation: Double = 0.4
        /// Smallest median peak height of those steps, in g: a step moves the wrist by more
        /// than a car's or a train's vibration does.
        public var minimumStepAmplitudeG: Double = 0.12
        /// Input gaps longer than this, in seconds, end a bout and restart the stream.
        public var maximumGapSeconds: Double = 2.5
        public init() {}
    }

    /// Internal processing rate, in Hz: four times the fastest step rate passed (3 Hz).
    static let internalRateHz = 25.0
    /// Low edge of the band-pass, in Hz: below the slowest cadence (30 steps/min = 0.5 Hz)
    /// the output would be posture and drift.
    static let highPassHz = 0.5
    /// High edge of the band-pass, in Hz: a brisk walk's step rate (about 2.2 Hz) with margin.
    static let lowPassHz = 3.0
    /// Low edge of the high band, in Hz: above the arm swing of brisk walking (stride rate up
    /// to about 1.1 Hz), below its step rate; its high edge is 4 Hz.
    static let highBandHighPassHz = 1.2
    static let highBandLowPassHz = 4.0
    /// Filtered history kept for the periodicity check, in samples (41 s at 25 Hz): a full
    /// chain of candidates at the slowest cadence.
    static let historyCapacity = 1024
    /// Half-width of the impulse detector's second difference, in samples at 25 Hz (0.12 s:
    /// a heel strike's impulse is narrower, an arm swing much wider).
    static let impulseHalfWidth = 3
    /// Smallest impulse, in g (well above the noise of |a|, below the 0.15-0.5 g of a step).
    static let impulseFloorG = 0.08
    /// Impulses closer than this are one (a foot strike rings for a few samples), in seconds.
    static let impulseRefractorySeconds = 0.25
    /// Longest input sample interval, in seconds (20 Hz), at which the impulse channel trusts
    /// alike waveforms as a sign of steps. Measured on the 25 Hz clips averaged down to
    /// 12.5 Hz (`scripts/score-steps-variants`): the waveforms of shoe-lace tying there grow as
    /// alike as steps (best chain 0.68 -> 0.86) and real 12.5 Hz walks reach only 0.84-0.92, so
    /// at 12.5 Hz likeness is no evidence; it was found and checked on 25 Hz recordings.
    static let waveformIntervalLimitSeconds = 0.05
    /// A bout confirmed by one channel counts only steps this long after the last step
    /// counted, in seconds: the two channels see one step at times up to about 0.1 s apart.
    static let handoverMarginSeconds = 0.3
    /// Two step periods agree as step and stride when the longer is twice the shorter within
    /// this fraction of their sum (15 %: half the chains' interval tolerance of 30 %).
    static let strideTolerance = 0.15

    public let configuration: Configuration
    public private(set) var totalSteps = 0
    /// `totalSteps` by the channel that counted them.
    public private(set) var stepsByChannel = ChannelSteps()
    /// The steps the last `process` call returned, by channel.
    public private(set) var lastCounted = ChannelSteps()
    /// Steps per minute of the current bout, updated once per second; 0 when not walking.
    public private(set) var cadenceStepsPerMinute: Double = 0

    private var resampler: UniformResampler
    private var stepBand: BandPassFilter
    private var offsetG: Double?
    private var detector: StepCandidateDetector
    private var history: SignalHistory
    private var highBandFilter: BandPassFilter
    private var highBand: SignalHistory
    private var tracker: WalkingBoutTracker
    private var impulses: ImpulseDetector
    private var impulseLog = ImpulseLog(capacity: 40)
    private var impulseTracker: ImpulseBoutTracker
    /// The fixed-rate |a| around the latest impulse (its waveform): an impulse comes at most
    /// about 12 samples late, and its waveform reaches 8 samples either side.
    private var magnitudes = SignalHistory(capacity: 32)
    private var rhythm: RhythmTracker
    /// Time of the last step counted by any channel, in seconds.
    private var lastCountedStepSeconds = -Double.infinity
    /// Time of the last step counted by the swing or the impulse channel, in seconds.
    private var lastPeakStepSeconds = -Double.infinity
    private var nextCadenceUpdateSeconds: Double?
    /// The hand-over and rate limits in use (`Tuning`; the documented values are the static
    /// constants of the same names).
    private let waveformIntervalLimitSeconds: Double
    private let handoverMarginSeconds: Double
    private let strideTolerance: Double

    public init(configuration: Configuration = .init()) {
        self.init(configuration: configuration, tuning: Tuning(configuration: configuration))
    }

    init(configuration: Configuration, tuning: Tuning) {
        self.configuration = configuration
        let rate = StepCounter.internalRateHz
        resampler = UniformResampler(periodSeconds: 1 / rate, maximumGapSeconds: configuration.maximumGapSeconds)
        stepBand = BandPassFilter(lowCutoffHz: StepCounter.highPassHz, highCutoffHz: StepCounter.lowPassHz, sampleRateHz: rate)
        detector = StepCandidateDetector(floorG: tuning.candidateFloorG, relativeThreshold: tuning.candidateRelativeThreshold,
                                         envelopeWeight: 0.3, envelopeCap: 1.5, samplePeriodSeconds: 1 / rate)
        history = SignalHistory(capacity: StepCounter.historyCapacity)
        highBandFilter = BandPassFilter(lowCutoffHz: StepCounter.highBandHighPassHz, highCutoffHz: StepCounter.highBandLowPassHz,
                                        sampleRateHz: rate)
        highBand = SignalHistory(capacity: StepCounter.historyCapacity)
        tracker = WalkingBoutTracker(settings: tuning.swing)
        impulses = ImpulseDetector(halfWidth: tuning.impulseHalfWidth, floorG: tuning.impulseFloorG,
                                   refractorySeconds: tuning.impulseRefractorySeconds, samplePeriodSeconds: 1 / rate)
        impulseTracker = ImpulseBoutTracker(settings: tuning.impulse)
        rhythm = RhythmTracker(settings: tuning.rhythm)
        waveformIntervalLimitSeconds = tuning.waveformIntervalLimitSeconds
        handoverMarginSeconds = tuning.handoverMarginSeconds
        strideTolerance = tuning.strideTolerance
    }

    /// Elements held in the counter's buffers: fixed when it is made (constant memory).
    var bufferElementCount: Int {
        history.capacity + highBand.capacity + tracker.bufferElementCount + impulses.bufferElementCount + impulseLog.capacity
            + impulseTracker.bufferElementCount + rhythm.bufferElementCount + magnitudes.capacity
    }

    /// Whether a walking bout is under way.
    public var isWalking: Bool { tracker.isWalking || impulseTracker.isWalking || rhythm.isCounting }

    /// Feeds one sample; returns the number of steps it completed (0 or more), by channel in
    /// `lastCounted`. Steps held while a bout is unconfirmed are all released by the sample
    /// that confirms it.
    public mutating func process(_ sample: AccelerationSample) -> Int {
        let magnitude = sample.magnitudeG
        resampler.append(timeSeconds: sample.timeSeconds, value: magnitude)
        if resampler.didRestart {
            tracker.restart()
            impulseTracker.restart()
            rhythm.restart()
            if offsetG == nil { offsetG = magnitude }
            detector.reset(to: 0)
            impulses.reset()
        }
        impulseTracker.waveformsResolved = (resampler.inputIntervalSeconds ?? 0) <= waveformIntervalLimitSeconds
        var counted = ChannelSteps()
        while true {
            let time = resampler.nextOutputTimeSeconds
            guard let value = resampler.nextOutput() else { break }
            let centred = value - (offsetG ?? value)
            let filtered = stepBand.process(centred)
            let index = history.count
            history.append(filtered)
            let high = highBandFilter.process(centred)
            highBand.append(high)
            magnitudes.append(value)
            let committed = tracker.advance(to: time, history: history, highBand: highBand, impulses: impulseLog)
            if committed > 0 {
                counted.swing += committed
                countedPeakStep(at: tracker.lastStepTimeSeconds)
            }
            impulseTracker.advance(to: time)
            if let candidate = detector.process(filtered, timeSeconds: time, sampleIndex: index) {
                let wasWalking = tracker.isWalking
                let released = tracker.process(candidate, history: history, highBand: highBand, impulses: impulseLog,
                                               notBefore: lastCountedStepSeconds + handoverMarginSeconds,
                                               heelStrikePeriod: impulseTracker.isWalking ? impulseTracker.stepPeriodSeconds : nil,
                                               stepPeriodOnHeelStrikes: impulseTracker.walksOnEveryHeelStrike ? impulseTracker.stepPeriodSeconds : nil)
                // The swing channel has priority: its bout ends the impulse channel's.
                if tracker.isWalking, impulseTracker.isWalking {
                    // A swing chain on the heel strikes at half the impulse bout's period: the
                    // impulse bout followed strides (one foot's heel strikes show more at the
                    // wrist than the other's), and each of its intervals the chain spans hid a
                    // step. Earlier intervals are left as counted: the chain is the evidence,
                    // and a walker who speeds up after a slow stretch looks the same.
                    if !wasWalking, tracker.confirmedOnHeelStrikes,
                       abs(impulseTracker.stepPeriodSeconds - 2 * tracker.stepPeriodSeconds)
                       <= strideTolerance * (impulseTracker.stepPeriodSeconds + 2 * tracker.stepPeriodSeconds) {
                        counted.swing += impulseTracker.countedIntervals(since: tracker.confirmedFromSeconds)
                    }
                    impulseTracker.endBout()
                }
                if released > 0 {
                    counted.swing += released
                    countedPeakStep(at: tracker.lastStepTimeSeconds)
                }
            }
            let impulse = impulses.process(value, timeSeconds: time, sampleIndex: index)
            impulseTracker.recordImpulseSignal(impulses.lastValue, sampleIndex: impulses.lastValueIndex)
            if let impulse {
                impulseLog.append(impulse.timeSeconds)
                let released = impulseTracker.process(impulse, magnitude: magnitudes, notBefore: lastCountedStepSeconds + handoverMarginSeconds,
                                                      mayConfirm: !tracker.isWalking)
                // Heel strikes walking at half the swing bout's period: the bout follows strides.
                if let half = tracker.halfPeriodIfHalvable,
                   let heelStrikes = impulseTracker.everyHeelStrikeChain(period: half) {
                    counted.swing += tracker.halveOnHeelStrikes(since: heelStrikes.start, stepPeriod: heelStrikes.period, impulses: impulseLog)
                }
                if released > 0 {
                    counted.impulse += released
                    countedPeakStep(at: impulseTracker.lastStepTimeSeconds)
                }
            }
            // The rhythm channel counts only where neither peak channel is walking.
            let rhythmSteps = rhythm.process(history: history, highBand: highBand, timeSeconds: time,
                                             notBefore: lastPeakStepSeconds + handoverMarginSeconds,
                                             mayCount: !tracker.isWalking && !impulseTracker.isWalking)
            counted.rhythm += rhythmSteps
            lastCountedStepSeconds = max(lastCountedStepSeconds, rhythm.lastStepTimeSeconds)
        }
        lastCounted = counted
        stepsByChannel.swing += counted.swing
        stepsByChannel.impulse += counted.impulse
        stepsByChannel.rhythm += counted.rhythm
        totalSteps += counted.total
        updateCadence(at: sample.timeSeconds)
        return counted.total
    }

    private mutating func countedPeakStep(at timeSeconds: Double) {
        lastCountedStepSeconds = max(lastCountedStepSeconds, timeSeconds)
        lastPeakStepSeconds = max(lastPeakStepSeconds, timeSeconds)
    }

    private mutating func updateCadence(at timeSeconds: Double) {
        guard let due = nextCadenceUpdateSeconds else {
            nextCadenceUpdateSeconds = timeSeconds + 1
            return
        }
        guard timeSeconds >= due else { return }
        if tracker.isWalking {
            cadenceStepsPerMinute = tracker.cadenceStepsPerMinute()
        } else if impulseTracker.isWalking {
            cadenceStepsPerMinute = impulseTracker.cadenceStepsPerMinute()
        } else if rhythm.isCounting {
            cadenceStepsPerMinute = rhythm.cadenceStepsPerMinute
        } else {
            cadenceStepsPerMinute = 0
        }
        // The next whole second after this sample (gaps skip the seconds they cover).
        nextCadenceUpdateSeconds = due + (timeSeconds - due + 1).rounded(.down)
    }
}
