/// Runs a recorded stream through a `HeartRateEstimator` as the band would have: an estimate
/// every `stepSeconds` from `windowSeconds` after the first sample on, each made from the
/// samples before its time only. `amble analyze hr`, `scripts/score-hr` and the tests replay
/// recordings this way, so that their figures are the same.
///
/// A step counter runs on the samples' acceleration, as on the band (`SignalPipeline`), and
/// tells the estimator before each estimate whether, and at what cadence, the wearer walks.
///
/// Estimates are handed out as they are made, never kept: memory is the estimator's, whatever
/// the length of the recording or of its gaps. Across a gap in the samples longer than the
/// window, an estimate is asked for only while the window before it still holds a sample
/// (they have no value: the estimator restarts its window after a gap it cannot bridge); the
/// ones after that, up to the next sample, are skipped, not made one by one, and the next
/// estimate falls on the same grid of times. Times must resolve the step: at most 1e12 s in
/// size, as the recordings' reader checks.
public struct HeartRateReplay: Sendable {
    /// One estimate asked for: its time from the first sample, seconds, and the answer.
    public struct Output: Sendable {
        public var timeSeconds: Double
        public var estimate: HeartRateEstimate?
        public var status: HeartRateStatus
    }

    public private(set) var estimator: HeartRateEstimator
    /// Counts the steps in the samples' acceleration, for the estimator's gait comb.
    public private(set) var stepCounter = StepCounter()
    public let stepSeconds: Double
    /// Gaps between samples longer than the window, and the seconds they span in all.
    public private(set) var gapCount = 0
    public private(set) var gapSeconds = 0.0
    private var start: Double?
    private var nextOutput = 0.0
    private var lastSample = 0.0

    public init(estimator: HeartRateEstimator, stepSeconds: Double) {
        self.estimator = estimator
        self.stepSeconds = stepSeconds
    }

    /// Feeds one sample; the estimates due before it are made first, each handed to `output`.
    public mutating func process(_ sample: PPGSample, output: (Output) -> Void) {
        let window = estimator.configuration.windowSeconds
        if start == nil {
            start = sample.timeSeconds
            nextOutput = sample.timeSeconds + window
        } else if sample.timeSeconds - lastSample > window {
            gapCount += 1
            gapSeconds += sample.timeSeconds - lastSample
        }
        while sample.timeSeconds >= nextOutput {
            guard nextOutput <= lastSample + window else {
                // No sample in the window before any estimate due up to this one: the grid
                // moves past them in one go.
                nextOutput += (((sample.timeSeconds - nextOutput) / stepSeconds).rounded(.down) + 1) * stepSeconds
                if nextOutput <= sample.timeSeconds { nextOutput += stepSeconds }
                break
            }
            emit(output)
        }
        lastSample = sample.timeSeconds
        if let a = sample.acceleration {
            _ = stepCounter.process(.recorded(timeSeconds: a.timeSeconds, xG: a.xG, yG: a.yG, zG: a.zG))
        }
        estimator.process(sample)
    }

    /// Ends the stream: the last estimate is made when it falls within half a step after the
    /// last sample (a recording ends mid-period). The end is not a gap: that estimate is made
    /// from the samples as they are, even when its time is more than a bridged gap after them.
    public mutating func finish(output: (Output) -> Void) {
        guard let start, nextOutput <= lastSample + stepSeconds * 0.5,
              nextOutput <= lastSample + estimator.configuration.windowSeconds,
              nextOutput - start >= estimator.configuration.windowSeconds else { return }
        emit(output, samplesEndedBy: min(nextOutput, lastSample + estimator.parameters.longestBridgedGapSeconds))
    }

    /// The estimate due, made knowing that no sample before `samplesEndedBy` (its time,
    /// unless told otherwise) is still to come.
    private mutating func emit(_ output: (Output) -> Void, samplesEndedBy: Double? = nil) {
        estimator.takeSteps(from: stepCounter)
        let estimate = estimator.estimate(atTimeSeconds: samplesEndedBy ?? nextOutput)
        output(Output(timeSeconds: nextOutput - (start ?? 0), estimate: estimate, status: estimator.status))
        nextOutput += stepSeconds
    }
}
