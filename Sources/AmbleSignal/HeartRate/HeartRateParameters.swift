extension HeartRateEstimator {
    /// Every number the estimator decides by, each with its physical or physiological reason
    /// (docs/heart-rate.md, "Parameters"). They are few on purpose: a stage that needs a
    /// fitted threshold to work on one device rarely works on the next.
    ///
    /// `scripts/score-hr` changes `evidenceScale`, `neutralEvidence` and `driftBPM` (with the
    /// confidence threshold) for leave-one-device-out; the documented values are `standard`.
    public struct Parameters: Sendable, Equatable {
        // MARK: Front end

        /// DC blocker, Hz: a second-order Butterworth high-pass at 30 /min, below the lowest
        /// heart rate, started settled on the first value so any DC level or slow drift gives
        /// no transient. There is no low-pass below the 2nd harmonic of 220 bpm (7.3 Hz): the
        /// pulse's harmonic is evidence.
        public var highPassHz = 0.5
        /// Gaps in the samples up to this long, seconds, are bridged by linear interpolation;
        /// a longer one (or time going backwards) restarts the window.
        public var longestBridgedGapSeconds = 0.5
        /// A change from one 25 Hz bin to the next of this many times the channel's typical
        /// change is a step of level (the sensor changed its exposure, or hit its rail), taken
        /// out rather than analysed (`LevelSteps`): the steepest part of a pulse moves the signal
        /// by about its amplitude in one bin, a few times the typical change. 0: none taken out.
        public var levelStepRatio = 15.0
        /// The typical change is a running mean of |change| over this long, seconds (two or
        /// three beats at rest).
        public var typicalChangeSeconds = 2.0
        /// After a step of level the window is withheld until this much signal, seconds, follows
        /// the step, and then only if that part is noise (the band was taken off): one beat at
        /// 40 bpm.
        public var afterStepSeconds = 1.5
        /// Each window of each channel is clipped at its median ± this many robust standard
        /// deviations (scaled MAD): a knock or a step of level cannot dominate the spectrum.
        public var clipRobustSDs = 4.0

        // MARK: Motion: cadence and the gait comb

        /// Step rates searched in |a|, steps per minute: the slowest mindful walk to a sprint,
        /// the step counter's range (`WalkingCadence`); the counter's cadence, when the comb
        /// takes it, is kept within it.
        public var slowestCadenceStepsPerMinute = WalkingCadence.slowestStepsPerMinute
        public var fastestCadenceStepsPerMinute = WalkingCadence.fastestStepsPerMinute
        /// Weight of the previous window's |a| spectrum in the running average (a cadence is
        /// steady over about 10 s; averaging two windows halves the noise).
        public var cadenceSpectrumMemory = 0.5
        /// Share of the |a| power (30-240 /min) within ±2 FFT bins of the step peak at which
        /// the rhythm starts to count (noise spread over ~75 bins puts about 0.1 there), and at
        /// which it counts fully (steady walking); linear in between. Not a threshold on the
        /// amplitude: a steady 10 mg step rhythm counts fully.
        public var rhythmShareNone = 0.15
        public var rhythmShareFull = 0.35
        /// RMS of |a| over the window, g, at which the wrist starts to count as moving (MEMS
        /// accelerometer noise is 1-2 mg RMS); the weight ramps up to twice this.
        public var stillWristRMSG = 0.004
        /// Teeth of the gait comb (k × cadence / 2: the stride, the step and their harmonics)
        /// are kept up to this rate, per minute: the 2nd harmonic of the fastest heart rate
        /// (2 × 220) plus the width of a zone.
        public var highestToothPerMinute = 450.0
        /// The lowest teeth removed from the PPG by least squares, as sinusoids, while the
        /// wrist walks (weight ≥ 0.5): eight cover the stride and step up to the 4th step
        /// harmonic and bound the cost (at most 26 regressors); every tooth gets a zone.
        public var fittedTeeth = 8
        /// Half-width of the zone around tooth f: `toothHalfWidthBPM` + `toothHalfWidthShare`
        /// × f. The cadence wobbles by about 2 % within 8 s, and tooth k inherits k times the
        /// error of the stride estimate.
        public var toothHalfWidthBPM = 2.0
        public var toothHalfWidthShare = 0.02
        /// The acceleration axes enter the fit delayed by −, 0 and + this, seconds: the PPG
        /// artefact follows velocity or displacement as much as acceleration, and a quarter
        /// period at 2 Hz is 125 ms, so three taps take any phase.
        public var accelerationLagSeconds = 0.12

        // MARK: Pulse evidence

        /// Weight of the second harmonic: a pulse at f also shows at 2f, typically with
        /// 10-50 % of the power.
        public var secondHarmonicWeight = 0.3
        /// Evidence inside a gait zone, in noise-floor units: what a modest pulse peak gives,
        /// so that the track neither seeks nor avoids a rate on a gait line (the heart rate
        /// does run on the step rate for minutes).
        public var neutralEvidence = 10.0
        /// Log-likelihood = `evidenceScale` × evidence ^ `evidenceExponent`: a peak 100 times
        /// the noise floor is worth 4 nats, noise 0.4 nats. Sub-linear because artefact
        /// residuals are heavier-tailed than Gaussian noise and successive windows share 75 %
        /// of their samples.
        public var evidenceScale = 0.4
        public var evidenceExponent = 0.5
        /// While the wrist moves rhythmically (weight ≥ 0.5), rates below this, bpm, are
        /// `walkingFloorOdds` times as likely: walking raises the heart rate above rest, and
        /// the stride artefact and slow arm motion sit at 35-60 /min.
        public var walkingFloorBPM = 55.0
        public var walkingFloorOdds = 0.1

        // MARK: Pulse or gait, without an accelerometer

        /// A line at half or 1.5 times the value's rate, in noise-floor units, from which the
        /// value's line counts as a step with its stride beneath (a pulse has no power there).
        /// Noise exceeds 5 units in under 1 % of readings (exponential power, mean 1).
        public var strideLineEvidence = 5.0
        /// A second harmonic this share of the value's line or more makes it a stride (whose
        /// step line is stronger) rather than a pulse (10-50 % of its power at 2f).
        public var pulseHarmonicShareLimit = 0.5

        // MARK: Tracker

        /// Standard deviation of the change of heart rate per `referenceStepSeconds`, bpm
        /// (growing with the square root of time): the onset of exercise raises it by up to
        /// 2-3 bpm/s.
        public var driftBPM = 5.0
        /// Probability per `referenceStepSeconds` of a jump anywhere on the grid: recovery
        /// from a wrong lock within 10-20 s of clear contrary evidence.
        public var jumpProbability = 0.002
        /// The interval at which one window counts as one full observation, seconds (the
        /// reference's step); windows asked for sooner overlap more and count less.
        public var referenceStepSeconds = 2.0
        /// Before the first window: the heart rate of a population at the start of a session
        /// (rest or walking), bpm, with a floor so that any rate stays possible.
        public var startBPM = 85.0
        public var startSpreadBPM = 25.0
        public var startFloor = 0.01
        /// Confidence = the posterior mass within this many bpm of the value: calibrated as
        /// the probability that the value is within 5 bpm.
        public var confidenceHalfWidthBPM = 5.0

        public init() {}

        /// The documented values.
        public static let standard = Parameters()

        // Key paths are not in Embedded Swift, which scripts/bench-pipeline-aarch64 builds the
        // estimator with to count its instructions on the band's processor.
        #if !hasFeature(Embedded)
        /// A parameter by name, for developer tools that change them (`scripts/score-hr`).
        public struct Named {
            public let name: String
            public let keyPath: WritableKeyPath<Parameters, Double>
        }

        /// The parameters that form the confidence (`scripts/score-hr --draws` moves them).
        public static let confidenceNames = ["strideLineEvidence", "pulseHarmonicShareLimit"]

        /// The continuous numbers above, by their property names (the bridged gap and the
        /// count of fitted teeth are left out).
        public static var all: [Named] { [
            Named(name: "highPassHz", keyPath: \.highPassHz),
            Named(name: "levelStepRatio", keyPath: \.levelStepRatio),
            Named(name: "typicalChangeSeconds", keyPath: \.typicalChangeSeconds),
            Named(name: "afterStepSeconds", keyPath: \.afterStepSeconds),
            Named(name: "clipRobustSDs", keyPath: \.clipRobustSDs),
            Named(name: "slowestCadenceStepsPerMinute", keyPath: \.slowestCadenceStepsPerMinute),
            Named(name: "fastestCadenceStepsPerMinute", keyPath: \.fastestCadenceStepsPerMinute),
            Named(name: "cadenceSpectrumMemory", keyPath: \.cadenceSpectrumMemory),
            Named(name: "rhythmShareNone", keyPath: \.rhythmShareNone),
            Named(name: "rhythmShareFull", keyPath: \.rhythmShareFull),
            Named(name: "stillWristRMSG", keyPath: \.stillWristRMSG),
            Named(name: "highestToothPerMinute", keyPath: \.highestToothPerMinute),
            Named(name: "toothHalfWidthBPM", keyPath: \.toothHalfWidthBPM),
            Named(name: "toothHalfWidthShare", keyPath: \.toothHalfWidthShare),
            Named(name: "accelerationLagSeconds", keyPath: \.accelerationLagSeconds),
            Named(name: "secondHarmonicWeight", keyPath: \.secondHarmonicWeight),
            Named(name: "neutralEvidence", keyPath: \.neutralEvidence),
            Named(name: "evidenceScale", keyPath: \.evidenceScale),
            Named(name: "evidenceExponent", keyPath: \.evidenceExponent),
            Named(name: "walkingFloorBPM", keyPath: \.walkingFloorBPM),
            Named(name: "walkingFloorOdds", keyPath: \.walkingFloorOdds),
            Named(name: "strideLineEvidence", keyPath: \.strideLineEvidence),
            Named(name: "pulseHarmonicShareLimit", keyPath: \.pulseHarmonicShareLimit),
            Named(name: "driftBPM", keyPath: \.driftBPM),
            Named(name: "jumpProbability", keyPath: \.jumpProbability),
            Named(name: "startBPM", keyPath: \.startBPM),
            Named(name: "startSpreadBPM", keyPath: \.startSpreadBPM),
            Named(name: "startFloor", keyPath: \.startFloor),
            Named(name: "confidenceHalfWidthBPM", keyPath: \.confidenceHalfWidthBPM),
        ] }
        #endif

        /// The band |a| power is measured in, per minute: from the high-pass edge (30 /min) to
        /// 1.2 times the fastest cadence (240 /min).
        var rhythmBandPerMinute: ClosedRange<Double> { highPassHz * 60 ... 1.2 * fastestCadenceStepsPerMinute }
    }
}
