/// Heart-rate variability at rest, from beat-to-beat intervals of the PPG.
public struct RestingVariability: Equatable, Sendable {
    /// Root mean square of successive differences of beat-to-beat intervals (RMSSD), ms.
    public var rmssdMilliseconds: Double
    /// Mean beat-to-beat interval over the accepted intervals, ms.
    public var meanIntervalMilliseconds: Double
    /// Beat-to-beat intervals accepted at rest.
    public var intervalCount: Int
    /// Successive differences the RMSSD is made of.
    public var differenceCount: Int

    public init(rmssdMilliseconds: Double, meanIntervalMilliseconds: Double, intervalCount: Int, differenceCount: Int) {
        self.rmssdMilliseconds = rmssdMilliseconds
        self.meanIntervalMilliseconds = meanIntervalMilliseconds
        self.intervalCount = intervalCount
        self.differenceCount = differenceCount
    }
}
