/// Runs a recorded stream through a `HeartRateEstimator` as the band would have: an estimate
/// every `stepSeconds` from `windowSeconds` after the first sample on, each made from the
/// samples before its time only. `amble analyze hr`, `scripts/score-hr` and the tests replay
/// recordings this way, so that their figures are the same.
public struct HeartRateReplay: Sendable {
    /// One estimate asked for: its time from the first sample, seconds, and the answer.
    public struct Output: Sendable {
        public var timeSeconds: Double
        public var estimate: HeartRateEstimate?
        public var status: HeartRateStatus
    }

    public private(set) var estimator: HeartRateEstimator
    public private(set) var outputs: [Output] = []
    public let stepSeconds: Double
    private var start: Double?
    private var nextOutput = 0.0
    private var lastSample = 0.0

    public init(estimator: HeartRateEstimator, stepSeconds: Double) {
        self.estimator = estimator
        self.stepSeconds = stepSeconds
    }

    /// Feeds one sample; the estimates due before it are made first.
    public mutating func process(_ sample: PPGSample) {
        if start == nil {
            start = sample.timeSeconds
            nextOutput = sample.timeSeconds + estimator.configuration.windowSeconds
        }
        while sample.timeSeconds >= nextOutput { emit() }
        lastSample = sample.timeSeconds
        estimator.process(sample)
    }

    /// Ends the stream: the last estimate is made when it falls within half a step after the
    /// last sample (a recording ends mid-period).
    public mutating func finish() {
        guard let start, nextOutput <= lastSample + stepSeconds * 0.5,
              nextOutput - start >= estimator.configuration.windowSeconds else { return }
        emit()
    }

    private mutating func emit() {
        let estimate = estimator.estimate(atTimeSeconds: nextOutput)
        outputs.append(Output(timeSeconds: nextOutput - (start ?? 0), estimate: estimate, status: estimator.status))
        nextOutput += stepSeconds
    }
}
