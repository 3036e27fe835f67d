/// Heel strikes: the sharp, short rises of |a| that a foot landing sends up to the wrist.
///
/// Input is the heel-strike signal of |a| (`GaitSignal.Tick.heelStrike`): |a| minus the mean
/// of its values a heel strike's half-width before and after, zero on any straight stretch
/// (gravity, posture, a slow swing), large on a peak narrower than a heel strike. Its local
/// maxima above `floorG` are impulses; of impulses closer than `refractorySamples` only the
/// largest is kept (one landing rings for a few samples, and no two steps come closer than
/// the fastest cadence allows). The last `capacity` impulses are kept: constant memory.
struct HeelStrikes: Sendable {
    struct Impulse: Sendable, Equatable {
        var timeSeconds: Double
        var amplitudeG: Double
    }

    /// How far apart two heel strikes one step apart may be, as a fraction of the step: a
    /// slow walk, or one with a turn every few steps, varies that much from step to step.
    static let timingTolerance = 0.2
    /// Impulses smaller than this share of the window's larger ones (its upper quartile) are
    /// the arm's other movements, not landings.
    static let relativeSize = 0.4
    /// The share of the window's heel strikes that must have a neighbour one step away.
    static let onStepShare = 0.7
    /// How far the window's heel strikes per step may be from one, as a factor either way
    /// (1 / 1.5 to 1.5 per step): short of two, so that a step read at half or twice its length fails
    /// (two landings per step read, or one per two) while a missed or extra landing passes.
    static let perStepFactor = 1.5

    let floorG: Double
    let refractorySamples: Int

    private var previous = -Double.infinity
    private var previousTime = 0.0
    private var beforePrevious = -Double.infinity
    private var pending: Impulse?
    private var pendingAge = 0
    private(set) var impulses: RingBuffer<Impulse>
    /// Scratch for `confirm` (sized once).
    private var times: [Double]
    private var amplitudes: [Double]
    private var sortedAmplitudes: [Double]

    init(floorG: Double, refractorySamples: Int, capacity: Int) {
        self.floorG = floorG
        self.refractorySamples = refractorySamples
        impulses = RingBuffer(capacity: capacity, filling: Impulse(timeSeconds: 0, amplitudeG: 0))
        times = []
        times.reserveCapacity(capacity)
        amplitudes = []
        amplitudes.reserveCapacity(capacity)
        sortedAmplitudes = []
        sortedAmplitudes.reserveCapacity(capacity)
    }

    var bufferElementCount: Int { 2 * impulses.capacity + times.capacity + amplitudes.capacity + sortedAmplitudes.capacity }

    mutating func reset() {
        impulses.removeAll()
        previous = -.infinity
        beforePrevious = -.infinity
        pending = nil
    }

    /// Takes one fixed-rate value of the heel-strike signal (g), centred at `timeSeconds`;
    /// returns the impulse it settles (kept once no larger one can follow within the refractory
    /// period), if any.
    @discardableResult
    mutating func append(_ impulse: Double, timeSeconds: Double) -> Impulse? {
        var settled: Impulse?
        // `previous` (one sample older than `impulse`) is a local maximum.
        if previous > floorG, previous >= beforePrevious, previous > impulse {
            let candidate = Impulse(timeSeconds: previousTime, amplitudeG: previous)
            if let held = pending, pendingAge < refractorySamples {
                if candidate.amplitudeG > held.amplitudeG {
                    pending = candidate
                    pendingAge = 0
                }
            } else {
                if let held = pending {
                    impulses.append(held)
                    settled = held
                }
                pending = candidate
                pendingAge = 0
            }
        }
        if let held = pending {
            pendingAge += 1
            if pendingAge > refractorySamples {
                impulses.append(held)
                settled = held
                pending = nil
            }
        }
        beforePrevious = previous
        previous = impulse
        previousTime = timeSeconds
        return settled
    }

    /// Whether the heel strikes between `start` and `end` (seconds) fall on a step period of
    /// `stepPeriod` seconds: of the impulses at least `relativeSize` of the window's larger
    /// ones, there are between 1 / `perStepFactor` and `perStepFactor` per step, and at least
    /// `onStepShare` of them have another one a step (within `timingTolerance`) before or
    /// after them.
    mutating func confirm(stepPeriod: Double, from start: Double, to end: Double) -> Bool {
        guard stepPeriod > 0, end > start else { return false }
        times.removeAll(keepingCapacity: true)
        amplitudes.removeAll(keepingCapacity: true)
        for age in 0 ..< impulses.count {
            let impulse = impulses[age: age]
            if impulse.timeSeconds < start { break }
            if impulse.timeSeconds <= end {
                amplitudes.append(impulse.amplitudeG)
                times.append(impulse.timeSeconds)
            }
        }
        guard amplitudes.count >= 3 else { return false }
        // The upper quartile of the amplitudes (a partial selection would do; they are few).
        sortedAmplitudes.removeAll(keepingCapacity: true)
        sortedAmplitudes.append(contentsOf: amplitudes)
        sortedAmplitudes.sort()
        let limit = Self.relativeSize * sortedAmplitudes[(3 * (sortedAmplitudes.count - 1)) / 4]
        var kept = 0, onStep = 0
        let low = (1 - Self.timingTolerance) * stepPeriod, high = (1 + Self.timingTolerance) * stepPeriod
        for i in times.indices where amplitudes[i] >= limit {
            kept += 1
            for j in times.indices where j != i && amplitudes[j] >= limit {
                let d = abs(times[i] - times[j])
                if d >= low, d <= high {
                    onStep += 1
                    break
                }
            }
        }
        let perStep = Double(kept) * stepPeriod / (end - start)
        guard perStep >= 1 / Self.perStepFactor, perStep <= Self.perStepFactor else { return false }
        return Double(onStep) >= Self.onStepShare * Double(kept)
    }
}
