/// Steps the counter released, and the stretch of sample time they were taken in.
///
/// The counter releases steps once no later end can take them back, about 10 s after they
/// were taken (a walk's first ones together, its last ones when it ends: docs/steps.md,
/// "Release"). A release says when its steps were taken, so that a recorder can put them into
/// the seconds they belong to rather than the second they came out in: they were taken over
/// `fromSeconds ... throughSeconds` at the walk's step rate, which is near enough uniform over
/// one release (a second's worth while a walk goes on; a walk's first or last few seconds).
public struct StepRelease: Equatable, Sendable {
    /// Steps released (0 or more).
    public var steps: Int
    /// The stretch of sample time they were taken in, seconds; equal ends when it is a moment
    /// (and both 0 when `steps` is 0).
    public var fromSeconds: Double
    public var throughSeconds: Double

    public init(steps: Int, fromSeconds: Double, throughSeconds: Double) {
        self.init(ordered: steps, Swift.min(fromSeconds, throughSeconds), Swift.max(fromSeconds, throughSeconds))
    }

    private init(ordered steps: Int, _ fromSeconds: Double, _ throughSeconds: Double) {
        self.steps = steps
        self.fromSeconds = fromSeconds
        self.throughSeconds = throughSeconds
    }

    /// Nothing released. (Made at each use, not a stored constant: the counter asks for it at
    /// every sample, and a global constant is checked for its initialisation each time.)
    public static var none: StepRelease { StepRelease(ordered: 0, 0, 0) }

    /// This release and `other` as one: their steps, over both stretches.
    public func merged(with other: StepRelease) -> StepRelease {
        guard other.steps > 0 else { return self }
        guard steps > 0 else { return other }
        return StepRelease(ordered: steps + other.steps, Swift.min(fromSeconds, other.fromSeconds), Swift.max(throughSeconds, other.throughSeconds))
    }

    /// The time step `index` (0 ..< `steps`) was taken, seconds: the steps spread evenly over
    /// the stretch, each in the middle of its share.
    public func timeOfStep(_ index: Int) -> Double {
        fromSeconds + (Double(index) + 0.5) / Double(Swift.max(1, steps)) * (throughSeconds - fromSeconds)
    }
}
