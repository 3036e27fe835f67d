/// The whole seconds of sample time a stream's samples complete, counted from its first
/// sample: what reads the step counter's cadence once per second as the band does
/// (`amble analyze steps`, `StepCounter.countWithCadence`). The seconds of a gap come in one
/// step, never one by one: a gap of 1e12 s costs what a second does.
public struct SampleSeconds: Sendable {
    private var next: Double?

    public init() {}

    /// The whole seconds completed by a sample at `timeSeconds` (samples in time order): 0
    /// within the current second, 1 at its end, more across a gap (a count, kept as a
    /// `Double` because a gap may hold more seconds than an `Int` counts). Times that are not
    /// finite complete none.
    public mutating func completed(by timeSeconds: Double) -> Double {
        guard timeSeconds.isFinite else { return 0 }
        guard let due = next else {
            next = timeSeconds + 1
            return 0
        }
        guard timeSeconds >= due else { return 0 }
        let seconds = (timeSeconds - due).rounded(.down) + 1
        next = due + seconds
        return seconds
    }
}
