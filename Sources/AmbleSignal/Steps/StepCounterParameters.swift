extension StepCounter {
    /// Every number the step counter decides by, each with its physical or physiological
    /// reason (docs/steps.md, "Parameters"). The window, hop, band-pass edges and the clipper's
    /// time constant are derived from these; nothing else is a free choice.
    ///
    /// `scripts/score-steps` moves every one of them at random by up to ±10 % and reports how
    /// much the figures move.
    public struct Parameters: Sendable, Equatable {
        /// Slowest walking counted, steps per minute: a mindful walk's slowest
        /// (`WalkingCadence`, shared with the heart-rate estimator). Sets the longest stride
        /// searched (4 s at 30 steps/min), the analysis window (2.5 such strides: 10 s) and the
        /// band-pass's low edge (1.2 x its stride rate: 0.3 Hz, so the arm swing of the slowest
        /// walk is kept).
        public var slowestCadenceStepsPerMinute = WalkingCadence.slowestStepsPerMinute
        /// Fastest gait counted, steps per minute: sprinting (`WalkingCadence`). Sets the
        /// shortest step searched (0.3 s) and the band-pass's high edge (1.2 x its step rate: 4 Hz).
        public var fastestCadenceStepsPerMinute = WalkingCadence.fastestStepsPerMinute
        /// Below this cadence, steps per minute, a wrist's slow rhythms are as often a car's
        /// or a chair's as a walk's (measured on the development drives): such a rhythm must
        /// be clearer (`periodicityToStartSlowWalk`) before it counts.
        public var clearRhythmBelowStepsPerMinute = 50.0
        /// The cadence a walker most likely has, steps per minute (self-selected walking:
        /// 100-115). When the signal cannot tell whether its period is one step or two, the
        /// reading nearer this one wins; for a runner, the reading nearer 1.5 times it
        /// (recreational running: 150-170).
        public var typicalCadenceStepsPerMinute = 105.0
        /// Above this RMS of the band-passed |a|, g, the wearer runs: a body in flight lands
        /// with 2-3 g at every step, while even brisk walking stays below about 0.4 g at the
        /// wrist.
        public var runningRMSG = 0.5

        /// Smallest periodicity (0...1: the mean normalised autocorrelation at the period and
        /// its multiples) with which a rhythm starts a walk.
        public var periodicityToStart = 0.45
        /// Smallest periodicity, at the rhythm already followed, that keeps a walk going: a
        /// walk under way needs less evidence than one starting (hysteresis).
        public var periodicityToContinue = 0.25
        /// Periodicity needed to start a walk slower than `clearRhythmBelowStepsPerMinute`.
        public var periodicityToStartSlowWalk = 0.6
        /// How long the rhythm must hold, in seconds, before a walk starts.
        public var secondsToConfirm = 2.0
        /// How far two estimates of the period may differ and still be the same rhythm, as a
        /// fraction (step-to-step variation while walking is 2-5 %; windows disagree more).
        public var periodTolerance = 0.12
        /// A shorter lag is the period when its periodicity reaches this share of the best
        /// one's: a rhythm also repeats after two and three of its periods, a little better
        /// where the steps differ; this keeps the shortest that holds.
        public var fundamentalShare = 0.8

        /// Smallest movement that can be walking, g RMS of the band-passed |a| over the window
        /// (above the sensor's noise, below the gentlest shuffle).
        public var noiseFloorG = 0.04
        /// Samples larger than this many times the recent mean absolute value are clipped
        /// before the rhythm is measured: a bump, a turn or a door handle lasts a moment and
        /// would otherwise outweigh many steps.
        public var clipRatio = 2.0
        /// Walking moves the body up and down with every step, so at least this share of the
        /// wrist's movement (band-passed, three axes) lies along gravity, where |a| sees it.
        /// Hand movements in the horizontal plane have far less (3-axis sensors only).
        public var verticalShare = 0.1
        /// On three axes: the arm swings once per stride and turns back at every step, so the
        /// three-axis signal repeats after a stride, not after a step. When the three-axis
        /// correlation one period later is this share or less of the correlation two periods
        /// later, the period is a step (between this share and 1, partly so). A quarter less:
        /// from one lag to the next the correlation of a stride-long rhythm varies by about a
        /// tenth (decay, noise), and 0.9 read that variation as steps (Bangle.js 2.8 % became
        /// 6.3 % at 0.98; docs/steps.md).
        public var strideCorrelationShare = 0.75

        /// The start and end of a walk are where the short-time RMS of |a| (over one stride)
        /// falls below this share of the walk's typical RMS.
        public var edgeEnergyShare = 0.35
        /// Smallest heel strike, g: how far a landing lifts |a| above the mean of |a| a heel
        /// strike's half-width before and after. A foot landing sends 0.2-1 g to the wrist;
        /// typing, stirring and a car's vibration stay below this.
        public var heelStrikeG = 0.1
        /// The shortest walk counted, in steps: fewer rhythmic movements in a row are more
        /// often gestures than a walk.
        public var minimumWalkSteps = 12.0

        public init() {}

        /// The documented values.
        public static let standard = Parameters()

        // Key paths are not in Embedded Swift, which scripts/bench-steps-aarch64 builds the
        // counter with to count its instructions on the band's processor.
        #if !hasFeature(Embedded)
        /// A parameter by name, for developer tools that move them (`scripts/score-steps`).
        public struct Named {
            public let name: String
            public let keyPath: WritableKeyPath<Parameters, Double>
        }

        /// All of them, by the names of the properties above.
        public static var all: [Named] { [
            Named(name: "slowestCadenceStepsPerMinute", keyPath: \.slowestCadenceStepsPerMinute),
            Named(name: "fastestCadenceStepsPerMinute", keyPath: \.fastestCadenceStepsPerMinute),
            Named(name: "clearRhythmBelowStepsPerMinute", keyPath: \.clearRhythmBelowStepsPerMinute),
            Named(name: "typicalCadenceStepsPerMinute", keyPath: \.typicalCadenceStepsPerMinute),
            Named(name: "runningRMSG", keyPath: \.runningRMSG),
            Named(name: "periodicityToStart", keyPath: \.periodicityToStart),
            Named(name: "periodicityToContinue", keyPath: \.periodicityToContinue),
            Named(name: "periodicityToStartSlowWalk", keyPath: \.periodicityToStartSlowWalk),
            Named(name: "secondsToConfirm", keyPath: \.secondsToConfirm),
            Named(name: "periodTolerance", keyPath: \.periodTolerance),
            Named(name: "fundamentalShare", keyPath: \.fundamentalShare),
            Named(name: "noiseFloorG", keyPath: \.noiseFloorG),
            Named(name: "clipRatio", keyPath: \.clipRatio),
            Named(name: "verticalShare", keyPath: \.verticalShare),
            Named(name: "strideCorrelationShare", keyPath: \.strideCorrelationShare),
            Named(name: "edgeEnergyShare", keyPath: \.edgeEnergyShare),
            Named(name: "heelStrikeG", keyPath: \.heelStrikeG),
            Named(name: "minimumWalkSteps", keyPath: \.minimumWalkSteps),
        ] }
        #endif

        /// The analysis window, seconds: 2.5 strides at the slowest cadence.
        var windowSeconds: Double { 2.5 * 120 / slowestCadenceStepsPerMinute }
        /// Band-pass edges, Hz: 1.2 x the slowest stride rate, 1.2 x the fastest step rate.
        var bandLowHz: Double { 1.2 * slowestCadenceStepsPerMinute / 120 }
        var bandHighHz: Double { 1.2 * fastestCadenceStepsPerMinute / 60 }
        /// A runner's typical cadence, steps per minute (recreational running: 150-170).
        var typicalRunningCadenceStepsPerMinute: Double { 1.5 * typicalCadenceStepsPerMinute }
        /// Shortest step and longest stride searched, seconds.
        var shortestStepSeconds: Double { 60 / fastestCadenceStepsPerMinute }
        var longestStrideSeconds: Double { 120 / slowestCadenceStepsPerMinute }
        /// The clipper's memory, seconds: one stride at the slowest cadence.
        var clipTimeConstantSeconds: Double { 120 / slowestCadenceStepsPerMinute }
    }
}
