/// Finds heel-strike impulses in the fixed-rate magnitude: sharp, short rises of |a| above
/// its surroundings.
///
/// The impulse signal is the magnitude minus the mean of its values `halfWidth` samples
/// before and after, `s[n] = x[n] - (x[n - h] + x[n + h]) / 2`: it is zero on any straight
/// stretch (gravity, posture, a slow swing) and large on a peak narrower than `h` samples. Its
/// local maxima above `floorG` are impulses; of impulses closer than `refractorySeconds` only
/// the largest is kept (one foot strike rings for a few samples). The result comes
/// `halfWidth` samples plus the refractory period late; constant memory (`2 h + 1` values).
///
/// Slow, mindful walking moves the arm little: each step shows as one such impulse, 0.15-0.5 g
/// on a quiet signal, and the band-passed signal the swing channel uses hardly rises above its
/// noise (docs/steps.md).
struct ImpulseDetector: Sendable {
    /// Half-width of the second difference, samples (3 at 25 Hz: 0.12 s).
    let halfWidth: Int
    /// Smallest impulse, in g.
    let floorG: Double
    /// Impulses closer than this, in seconds, are one impulse (the largest).
    let refractorySeconds: Double
    /// Time between samples, in seconds.
    let samplePeriodSeconds: Double

    /// The last `2 halfWidth + 1` values.
    private var window: RingBuffer<Double>
    private var previous = -Double.infinity
    private var beforePrevious = -Double.infinity
    private var previousTime = 0.0
    private var previousIndex = 0
    private var pending: StepCandidate?
    /// The impulse signal at `lastValueIndex`, computed by the last `process` call (0 while
    /// the window fills): what a weak heel strike below `floorG` leaves.
    private(set) var lastValue = 0.0
    /// The sample index `lastValue` belongs to (`halfWidth` before the newest sample).
    private(set) var lastValueIndex = 0

    init(halfWidth: Int, floorG: Double, refractorySeconds: Double, samplePeriodSeconds: Double) {
        self.halfWidth = halfWidth
        self.floorG = floorG
        self.refractorySeconds = refractorySeconds
        self.samplePeriodSeconds = samplePeriodSeconds
        window = RingBuffer(capacity: 2 * halfWidth + 1, filling: 0)
    }

    /// Elements held (fixed at init).
    var bufferElementCount: Int { window.capacity }

    /// Starts over (after a restart of the stream).
    mutating func reset() {
        window.removeAll()
        previous = -.infinity
        beforePrevious = -.infinity
        pending = nil
    }

    /// Feeds one fixed-rate magnitude value ending at `timeSeconds`, the stream's
    /// `sampleIndex`-th; returns an impulse once it is confirmed.
    mutating func process(_ value: Double, timeSeconds: Double, sampleIndex: Int) -> StepCandidate? {
        window.append(value)
        lastValueIndex = sampleIndex - halfWidth
        guard window.count == window.capacity else {
            lastValue = 0
            return nil
        }
        let middle = window[age: halfWidth]
        let oldest = window[age: window.capacity - 1]
        let impulse = middle - 0.5 * (oldest + value)
        lastValue = impulse
        let time = timeSeconds - Double(halfWidth) * samplePeriodSeconds
        let index = sampleIndex - halfWidth
        var out: StepCandidate?
        if previous > floorG, previous >= beforePrevious, previous > impulse {
            let candidate = StepCandidate(timeSeconds: previousTime, amplitudeG: previous, sampleIndex: previousIndex)
            if let held = pending, candidate.timeSeconds - held.timeSeconds < refractorySeconds {
                if candidate.amplitudeG > held.amplitudeG { pending = candidate }
            } else {
                out = pending
                pending = candidate
            }
        } else if let held = pending, time - held.timeSeconds >= refractorySeconds {
            out = held
            pending = nil
        }
        beforePrevious = previous
        previous = impulse
        previousTime = time
        previousIndex = index
        return out
    }
}

/// The times of the last impulses (`ImpulseDetector`), for asking whether a peak of the
/// band-passed signal was a heel strike. Constant memory: a ring of `capacity` times.
struct ImpulseLog: Sendable {
    /// How much later the band-passed peak of a heel strike comes than its impulse, seconds
    /// (the band-pass filters' delay at the step rate).
    static let peakDelaySeconds = 0.05

    /// Impulse times, newest at age 0.
    private var times: RingBuffer<Double>

    init(capacity: Int) {
        times = RingBuffer(capacity: max(capacity, 1), filling: 0)
    }

    var capacity: Int { times.capacity }

    mutating func append(_ timeSeconds: Double) {
        times.append(timeSeconds)
    }

    /// The number of impulses where band-passed peaks between `fromPeakTime` and
    /// `toPeakTime` put their heel strikes (among those still held).
    func count(fromPeakTime: Double, toPeakTime: Double) -> Int {
        let from = fromPeakTime - ImpulseLog.peakDelaySeconds, to = toPeakTime - ImpulseLog.peakDelaySeconds
        var n = 0
        for age in 0 ..< times.count {
            let t = times[age: age]
            if t >= from, t <= to { n += 1 }
        }
        return n
    }

    /// The held impulse times, oldest first, passed to `body`.
    func forEachTime(_ body: (Double) -> Void) {
        for age in stride(from: times.count - 1, through: 0, by: -1) { body(times[age: age]) }
    }

    /// Whether an impulse lies within `window` seconds of where a band-passed peak at
    /// `peakTimeSeconds` puts its heel strike.
    func hasImpulse(nearPeakAt peakTimeSeconds: Double, within window: Double) -> Bool {
        let target = peakTimeSeconds - ImpulseLog.peakDelaySeconds
        for age in 0 ..< times.count {
            let t = times[age: age]
            if abs(t - target) <= window { return true }
            if t < target - window { return false }
        }
        return false
    }
}
