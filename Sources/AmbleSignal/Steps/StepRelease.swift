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

    /// This release and `other` as one: their steps, over both stretches (and the time between).
    func merged(with other: StepRelease) -> StepRelease {
        guard other.steps > 0 else { return self }
        guard steps > 0 else { return other }
        return StepRelease(ordered: steps + other.steps, Swift.min(fromSeconds, other.fromSeconds), Swift.max(throughSeconds, other.throughSeconds))
    }

    /// Seconds between this stretch and `other`'s (0 when they touch or overlap).
    func gapSeconds(to other: StepRelease) -> Double {
        Swift.max(0, Swift.max(fromSeconds, other.fromSeconds) - Swift.min(throughSeconds, other.throughSeconds))
    }

    /// The time step `index` (0 ..< `steps`) was taken, seconds: the steps spread evenly over
    /// the stretch, each in the middle of its share.
    public func timeOfStep(_ index: Int) -> Double {
        fromSeconds + (Double(index) + 0.5) / Double(Swift.max(1, steps)) * (throughSeconds - fromSeconds)
    }
}

/// The steps one call to the counter released, each stretch kept apart (`StepRelease`): a
/// walk's and a short bout's taken half a minute apart must not be spread over the time
/// between them, where the wearer took none (a bout held from before a mindful walk would
/// otherwise land partly inside it; docs/steps.md, "Release").
///
/// Releases that touch or overlap are one stretch (a walk's consecutive releases follow on
/// each other). Up to `capacity` stretches are kept apart, without allocating; beyond that a
/// release joins the stretch nearest to it (more than three bouts and a walk released by one
/// sample is rare: at the end of a stream, or after a long gap).
public struct StepReleases: Equatable, Sendable, Sequence {
    /// Stretches kept apart: a walk's release and the bouts one frame or one end releases.
    public static let capacity = 4

    /// Steps released, over all the stretches.
    public private(set) var steps = 0
    /// Stretches held: `stretches[0 ..< count]`.
    public private(set) var count = 0
    private var stretches = InlineArray<4, StepRelease>(repeating: .none)

    public init() {}

    public init(_ release: StepRelease) {
        append(release)
    }

    /// Adds `release`'s steps: to a stretch it touches, as a stretch of its own, or (when
    /// `capacity` are held) to the stretch nearest to it.
    public mutating func append(_ release: StepRelease) {
        guard release.steps > 0 else { return }
        steps += release.steps
        var nearest = -1
        var nearestGap = Double.infinity
        for index in 0 ..< count {
            let gap = stretches[index].gapSeconds(to: release)
            if gap < nearestGap { (nearest, nearestGap) = (index, gap) }
        }
        if nearestGap > 0, count < Self.capacity {
            stretches[count] = release
            count += 1
        } else {
            stretches[nearest] = stretches[nearest].merged(with: release)
        }
    }

    public mutating func append(contentsOf other: StepReleases) {
        for release in other { append(release) }
    }

    public static func == (lhs: StepReleases, rhs: StepReleases) -> Bool {
        lhs.count == rhs.count && (0 ..< lhs.count).allSatisfy { lhs.stretches[$0] == rhs.stretches[$0] }
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let releases: StepReleases
        fileprivate var index = 0

        public mutating func next() -> StepRelease? {
            guard index < releases.count else { return nil }
            defer { index += 1 }
            return releases.stretches[index]
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(releases: self)
    }
}
