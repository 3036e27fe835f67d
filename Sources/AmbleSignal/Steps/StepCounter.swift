/// A streaming step counter: one accelerometer sample in at a time, constant memory.
///
/// The pipeline (see docs/steps.md):
/// 1. |a| (3-axis) or the magnitude itself, resampled to 25 Hz by box-averaging the
///    piecewise-linear signal: any input rate from 12.5 to 125 Hz, irregular intervals, gaps
///    up to `maximumGapSeconds` bridged. The magnitude does not depend on how the band is worn.
/// 2. Band-pass 0.5-3 Hz (2nd-order Butterworth high-pass and low-pass): steps from 30 to
///    200 per minute pass; gravity, posture drift and vibration above 3 Hz do not.
/// 3. Peaks with adaptive hysteresis are step candidates (`StepCandidateDetector`).
/// 4. `WalkingBoutTracker` confirms bouts by rhythm, periodicity and peak likeness, releases
///    the held steps of a confirmed bout all at once, and follows its rhythm.
///
/// Cadence is the tracker's step period as steps per minute, published once per second of
/// sample time, and 0 when no bout is under way.
public struct StepCounter: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Smallest rise of a peak that can be a step, in g (sensor noise floor).
        public var peakThresholdG: Double = 0.03
        /// Shortest time between two steps, in seconds (200 steps/min).
        public var minimumStepIntervalSeconds: Double = 0.3
        /// Longest time between two steps of one bout, in seconds (about 27 steps/min: the
        /// slowest mindful walking).
        public var maximumStepIntervalSeconds: Double = 2.2
        /// Steps in a steady rhythm needed to confirm a walking bout from rest.
        public var stepsToConfirmBout: Int = 6
        /// Smallest correlation (0...1) of the signal with itself one step or one stride
        /// later, over the steps that would confirm a bout.
        public var minimumPeriodicity: Double = 0.5
        /// Largest coefficient of variation of the peak heights of those steps.
        public var maximumAmplitudeVariation: Double = 0.4
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
    /// Filtered history kept for the periodicity check, in samples (41 s at 25 Hz): a full
    /// chain of candidates at the slowest cadence.
    static let historyCapacity = 1024

    public let configuration: Configuration
    public private(set) var totalSteps = 0
    /// Steps per minute of the current bout, updated once per second; 0 when not walking.
    public private(set) var cadenceStepsPerMinute: Double = 0

    private var resampler: UniformResampler
    private var highPass: Biquad
    private var lowPass: Biquad
    private var offsetG: Double?
    private var detector: StepCandidateDetector
    private var history: SignalHistory
    private var tracker: WalkingBoutTracker
    private var nextCadenceUpdateSeconds: Double?

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        let rate = StepCounter.internalRateHz
        resampler = UniformResampler(periodSeconds: 1 / rate, maximumGapSeconds: configuration.maximumGapSeconds)
        highPass = .highPass(cutoffHz: StepCounter.highPassHz, sampleRateHz: rate)
        lowPass = .lowPass(cutoffHz: StepCounter.lowPassHz, sampleRateHz: rate)
        detector = StepCandidateDetector(floorG: configuration.peakThresholdG, relativeThreshold: 0.25,
                                         envelopeWeight: 0.3, envelopeCap: 1.5)
        history = SignalHistory(capacity: StepCounter.historyCapacity)
        var settings = WalkingBoutTracker.Settings()
        settings.minimumStepIntervalSeconds = configuration.minimumStepIntervalSeconds
        settings.maximumStepIntervalSeconds = configuration.maximumStepIntervalSeconds
        settings.stepsToConfirm = configuration.stepsToConfirmBout
        settings.minimumPeriodicity = configuration.minimumPeriodicity
        settings.maximumAmplitudeVariation = configuration.maximumAmplitudeVariation
        settings.sampleRateHz = rate
        tracker = WalkingBoutTracker(settings: settings)
    }

    /// Whether a walking bout is under way.
    public var isWalking: Bool { tracker.isWalking }

    /// Feeds one sample; returns the number of steps it completed (0 or more). Steps held
    /// while a bout is unconfirmed are all released by the sample that confirms it.
    public mutating func process(_ sample: AccelerationSample) -> Int {
        let magnitude = sample.magnitudeG
        resampler.append(timeSeconds: sample.timeSeconds, value: magnitude)
        if resampler.didRestart {
            tracker.restart()
            if offsetG == nil { offsetG = magnitude }
            detector.reset(to: 0)
        }
        var steps = 0
        while true {
            let time = resampler.nextOutputTimeSeconds
            guard let value = resampler.nextOutput() else { break }
            let filtered = lowPass.process(highPass.process(value - (offsetG ?? value)))
            let index = history.count
            history.append(filtered)
            tracker.advance(to: time)
            if let candidate = detector.process(filtered, timeSeconds: time, sampleIndex: index) {
                steps += tracker.process(candidate, history: history)
            }
        }
        totalSteps += steps
        updateCadence(at: sample.timeSeconds)
        return steps
    }

    private mutating func updateCadence(at timeSeconds: Double) {
        guard let due = nextCadenceUpdateSeconds else {
            nextCadenceUpdateSeconds = timeSeconds + 1
            return
        }
        guard timeSeconds >= due else { return }
        cadenceStepsPerMinute = tracker.isWalking && tracker.stepPeriodSeconds > 0 ? 60 / tracker.stepPeriodSeconds : 0
        // The next whole second after this sample (gaps skip the seconds they cover).
        nextCadenceUpdateSeconds = due + (timeSeconds - due + 1).rounded(.down)
    }
}
