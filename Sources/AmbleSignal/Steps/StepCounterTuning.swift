extension StepCounter {
    /// Every threshold the counter decides by (docs/steps.md, "The algorithm"): the public
    /// `Configuration`, the documented constants and each stage's settings. The counter is
    /// built from it with the documented values; the developer tool `steps-sensitivity`
    /// changes its numbers by name (`TunableParameter`) to measure how much the development-set
    /// figures hang on each (docs/steps.md, "How much the figures hang on the thresholds").
    struct Tuning: Sendable {
        var candidateFloorG: Double
        /// Hysteresis of a step candidate as a fraction of the running envelope of peak rises.
        var candidateRelativeThreshold = 0.25
        var impulseHalfWidth = StepCounter.impulseHalfWidth
        var impulseFloorG = StepCounter.impulseFloorG
        var impulseRefractorySeconds = StepCounter.impulseRefractorySeconds
        var waveformIntervalLimitSeconds = StepCounter.waveformIntervalLimitSeconds
        var handoverMarginSeconds = StepCounter.handoverMarginSeconds
        var strideTolerance = StepCounter.strideTolerance
        var swing = WalkingBoutTracker.Settings()
        var impulse = ImpulseBoutTracker.Settings()
        var rhythm = RhythmTracker.Settings()

        init(configuration: Configuration) {
            candidateFloorG = configuration.peakThresholdG
            let rate = StepCounter.internalRateHz
            swing.minimumStepIntervalSeconds = configuration.minimumStepIntervalSeconds
            swing.maximumStepIntervalSeconds = configuration.maximumStepIntervalSeconds
            swing.stepsToConfirm = configuration.stepsToConfirmBout
            swing.minimumPeriodicity = configuration.minimumPeriodicity
            swing.maximumAmplitudeVariation = configuration.maximumAmplitudeVariation
            swing.minimumMedianAmplitudeG = configuration.minimumStepAmplitudeG
            swing.sampleRateHz = rate
            impulse.minimumStepIntervalSeconds = configuration.minimumStepIntervalSeconds
            impulse.maximumStepIntervalSeconds = configuration.maximumStepIntervalSeconds
            impulse.sampleRateHz = rate
            rhythm.sampleRateHz = rate
            rhythm.minimumStepIntervalSeconds = configuration.minimumStepIntervalSeconds
        }
    }

    /// One number of the counter's tuning, by name (`stage.setting`, as in the code), for
    /// developer tools that measure the counter's sensitivity. Sizes of buffers and windows,
    /// rates and filter edges are not among them: they shape the signal, not a decision.
    package struct TunableParameter: Sendable {
        /// `candidates.`, `impulses.` (the detector), `counter.` (hand-over between channels),
        /// `swing.`, `impulseBouts.` or `rhythm.`, then the setting's name.
        package let name: String
        /// Whether the number is a count (steps, samples), changed only in whole units.
        package let isCount: Bool
        fileprivate let read: @Sendable (Tuning) -> Double
        fileprivate let write: @Sendable (inout Tuning, Double) -> Void

        fileprivate init(_ name: String, _ path: WritableKeyPath<Tuning, Double> & Sendable) {
            self.name = name
            isCount = false
            read = { $0[keyPath: path] }
            write = { $0[keyPath: path] = $1 }
        }

        fileprivate init(_ name: String, _ path: WritableKeyPath<Tuning, Int> & Sendable) {
            self.name = name
            isCount = true
            read = { Double($0[keyPath: path]) }
            write = { $0[keyPath: path] = Int($1.rounded()) }
        }

        /// The value the counter uses with `configuration`.
        package func value(for configuration: Configuration = .init()) -> Double {
            read(Tuning(configuration: configuration))
        }
    }

    /// A tuning override naming no `TunableParameter`.
    package struct UnknownTunableParameter: Error, CustomStringConvertible {
        package let name: String
        package var description: String {
            "\"\(name)\" is not a step-counter setting; the settings are: "
                + StepCounter.tunableParameters.map(\.name).joined(separator: ", ")
        }
    }

    package static let tunableParameters: [TunableParameter] = [
        .init("candidates.floorG", \.candidateFloorG),
        .init("candidates.relativeThreshold", \.candidateRelativeThreshold),
        .init("impulses.halfWidthSamples", \.impulseHalfWidth),
        .init("impulses.floorG", \.impulseFloorG),
        .init("impulses.refractorySeconds", \.impulseRefractorySeconds),
        .init("counter.waveformIntervalLimitSeconds", \.waveformIntervalLimitSeconds),
        .init("counter.handoverMarginSeconds", \.handoverMarginSeconds),
        .init("counter.strideTolerance", \.strideTolerance),

        .init("swing.stepsToConfirm", \.swing.stepsToConfirm),
        .init("swing.stepsToResume", \.swing.stepsToResume),
        .init("swing.stepsToConfirmLongChain", \.swing.stepsToConfirmLongChain),
        .init("swing.intervalTolerance", \.swing.intervalTolerance),
        .init("swing.minimumStepIntervalSeconds", \.swing.minimumStepIntervalSeconds),
        .init("swing.maximumStepIntervalSeconds", \.swing.maximumStepIntervalSeconds),
        .init("swing.minimumMedianAmplitudeG", \.swing.minimumMedianAmplitudeG),
        .init("swing.minimumPeriodicity", \.swing.minimumPeriodicity),
        .init("swing.minimumPeriodicityToResume", \.swing.minimumPeriodicityToResume),
        .init("swing.minimumStepRepetition", \.swing.minimumStepRepetition),
        .init("swing.maximumAmplitudeVariation", \.swing.maximumAmplitudeVariation),
        .init("swing.maximumAmplitudeVariationToResume", \.swing.maximumAmplitudeVariationToResume),
        .init("swing.maximumFasterPeriodicity", \.swing.maximumFasterPeriodicity),
        .init("swing.minimumHalfPeriodicity", \.swing.minimumHalfPeriodicity),
        .init("swing.resumeWindowSeconds", \.swing.resumeWindowSeconds),
        .init("swing.earliestStepFraction", \.swing.earliestStepFraction),
        .init("swing.latestStepFraction", \.swing.latestStepFraction),
        .init("swing.maximumMissedSteps", \.swing.maximumMissedSteps),
        .init("swing.gapMarginFraction", \.swing.gapMarginFraction),
        .init("swing.middleAmplitudeFraction", \.swing.middleAmplitudeFraction),
        .init("swing.gapMiddleLargestRiseFraction", \.swing.gapMiddleLargestRiseFraction),
        .init("swing.heelStrikeWindowSeconds", \.swing.heelStrikeWindowSeconds),
        .init("swing.extensionAmplitudeFraction", \.swing.extensionAmplitudeFraction),
        .init("swing.walkingCheckSteps", \.swing.walkingCheckSteps),
        .init("swing.walkingCheckLargestHeelStrikeShare", \.swing.walkingCheckLargestHeelStrikeShare),

        .init("impulseBouts.horizonSeconds", \.impulse.horizonSeconds),
        .init("impulseBouts.stepsToConfirm", \.impulse.stepsToConfirm),
        .init("impulseBouts.minimumSpanSeconds", \.impulse.minimumSpanSeconds),
        .init("impulseBouts.intervalTolerance", \.impulse.intervalTolerance),
        .init("impulseBouts.minimumStepIntervalSeconds", \.impulse.minimumStepIntervalSeconds),
        .init("impulseBouts.maximumStepIntervalSeconds", \.impulse.maximumStepIntervalSeconds),
        .init("impulseBouts.maximumMissFraction", \.impulse.maximumMissFraction),
        .init("impulseBouts.weakStrikeFraction", \.impulse.weakStrikeFraction),
        .init("impulseBouts.weakStrikeFloorG", \.impulse.weakStrikeFloorG),
        .init("impulseBouts.weakStrikeMinimumPeriodSeconds", \.impulse.weakStrikeMinimumPeriodSeconds),
        .init("impulseBouts.maximumOthersPerStep", \.impulse.maximumOthersPerStep),
        .init("impulseBouts.otherAmplitudeFraction", \.impulse.otherAmplitudeFraction),
        .init("impulseBouts.minimumExplainedFraction", \.impulse.minimumExplainedFraction),
        .init("impulseBouts.maximumAmplitudeVariation", \.impulse.maximumAmplitudeVariation),
        .init("impulseBouts.minimumMedianAmplitudeG", \.impulse.minimumMedianAmplitudeG),
        .init("impulseBouts.earliestStepFraction", \.impulse.earliestStepFraction),
        .init("impulseBouts.latestStepFraction", \.impulse.latestStepFraction),
        .init("impulseBouts.maximumMissedSteps", \.impulse.maximumMissedSteps),
        .init("impulseBouts.minimumShapeLikeness", \.impulse.minimumShapeLikeness),
        .init("impulseBouts.alikeMaximumOthersPerStep", \.impulse.alikeMaximumOthersPerStep),
        .init("impulseBouts.alikeMinimumExplainedFraction", \.impulse.alikeMinimumExplainedFraction),
        .init("impulseBouts.alikeMaximumMedianAmplitudeG", \.impulse.alikeMaximumMedianAmplitudeG),
        .init("impulseBouts.alikeMinimumPeriodSeconds", \.impulse.alikeMinimumPeriodSeconds),
        .init("impulseBouts.alikeMinimumFollowCorrelation", \.impulse.alikeMinimumFollowCorrelation),
        .init("impulseBouts.stepsToResume", \.impulse.stepsToResume),
        .init("impulseBouts.resumeWindowSeconds", \.impulse.resumeWindowSeconds),
        .init("impulseBouts.resumeMinimumPeriodRatio", \.impulse.resumeMinimumPeriodRatio),
        .init("impulseBouts.resumeMaximumPeriodRatio", \.impulse.resumeMaximumPeriodRatio),

        .init("rhythm.minimumStepIntervalSeconds", \.rhythm.minimumStepIntervalSeconds),
        .init("rhythm.searchLimitSeconds", \.rhythm.searchLimitSeconds),
        .init("rhythm.maskThreshold", \.rhythm.maskThreshold),
        .init("rhythm.harmonicFraction", \.rhythm.harmonicFraction),
        .init("rhythm.minimumStrideContrast", \.rhythm.minimumStrideContrast),
        .init("rhythm.maximumFasterPeriodicity", \.rhythm.maximumFasterPeriodicity),
        .init("rhythm.trackLength", \.rhythm.trackLength),
        .init("rhythm.trackTolerance", \.rhythm.trackTolerance),
        .init("rhythm.minimumStrength", \.rhythm.minimumStrength),
        .init("rhythm.minimumScaleG", \.rhythm.minimumScaleG),
        .init("rhythm.maximumPeriodSeconds", \.rhythm.maximumPeriodSeconds),
    ]

    /// A counter whose tuning differs from the documented one by `overrides` (parameter name:
    /// value). For developer tools that measure the counter; the band and `amble` use
    /// `init(configuration:)`.
    package init(configuration: Configuration = .init(), overrides: [String: Double]) throws(UnknownTunableParameter) {
        var tuning = Tuning(configuration: configuration)
        for (name, value) in overrides {
            guard let parameter = Self.tunableParameters.first(where: { $0.name == name }) else {
                throw UnknownTunableParameter(name: name)
            }
            parameter.write(&tuning, value)
        }
        self.init(configuration: configuration, tuning: tuning)
    }
}
