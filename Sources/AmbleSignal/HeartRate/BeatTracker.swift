/// Finds beats in the band-passed PPG of one channel and accumulates beat-to-beat intervals
/// and their successive differences while the wearer is at rest and the heart rate is
/// trusted, in constant memory.
///
/// A beat is the highest peak (above zero, the band-passed signal's mean) within
/// ±`refractoryFraction` of the expected interval, timed between samples by parabolic
/// interpolation. An interval counts when it lies within ±`intervalTolerance` of the expected
/// one; a successive difference counts when both intervals are consecutive and differ by at
/// most `maximumDifferenceFraction` of the first (an ectopic beat or a missed peak breaks the
/// chain instead of inflating RMSSD).
struct BeatTracker {
    static let recentCapacity = 64
    /// RMSSD is reported from this many successive differences on (about 20 s at rest).
    static let minimumDifferences = 20
    var refractoryFraction = 0.4
    var intervalTolerance = 0.3
    var maximumDifferenceFraction = 0.25

    let rateHz: Double
    private(set) var channel = 0
    private(set) var polarity = 1.0
    private var expectedIntervalSeconds: Double?
    private var atRest = false

    private var previous1 = 0.0, previous2 = 0.0
    private var samplesSeen = 0
    private var candidate: (time: Double, value: Double)?
    private var lastBeatTime: Double?
    private var lastInterval: Double?
    private var typicalAmplitude: Double?

    private var squaredDifferenceSum = 0.0
    private var differenceCount = 0
    private var intervalSum = 0.0
    private var intervalCount = 0
    private var recent: RingBuffer<Double>

    /// Values held, for tests of fixed memory.
    var bufferElementCount: Int { recent.capacity }

    init(rateHz: Double) {
        self.rateHz = rateHz
        recent = RingBuffer(capacity: Self.recentCapacity, filling: 0)
    }

    /// Starts a new variability tally (a new session), keeping the beat timing state.
    mutating func restartVariability() {
        squaredDifferenceSum = 0
        differenceCount = 0
        intervalSum = 0
        intervalCount = 0
    }

    var variability: RestingVariability? {
        guard differenceCount >= Self.minimumDifferences, intervalCount > 0 else { return nil }
        return RestingVariability(
            rmssdMilliseconds: (squaredDifferenceSum / Double(differenceCount)).squareRoot() * 1000,
            meanIntervalMilliseconds: intervalSum / Double(intervalCount) * 1000,
            intervalCount: intervalCount, differenceCount: differenceCount)
    }

    /// Which way up the beats of `values[0..<count]` (band-passed) are: +1 when its maxima
    /// are sharper than its minima (beats are timed at the sharper extremum), else -1;
    /// `current` is kept unless the other way is clearly (20 %) sharper.
    static func polarity(of values: [Double], count: Int, current: Double) -> Double {
        var hi = 0.0, lo = 0.0
        for i in 0..<count { hi = max(hi, values[i]); lo = min(lo, values[i]) }
        var maxima = 0.0, maximaCount = 0, minima = 0.0, minimaCount = 0
        for i in 1..<(count - 1) {
            let curvature = values[i - 1] + values[i + 1] - 2 * values[i]
            if values[i] > values[i - 1] && values[i] >= values[i + 1] && values[i] > 0.3 * hi {
                maxima -= curvature; maximaCount += 1
            } else if values[i] < values[i - 1] && values[i] <= values[i + 1] && values[i] < 0.3 * lo {
                minima += curvature; minimaCount += 1
            }
        }
        guard maximaCount > 0, minimaCount > 0 else { return current }
        let up = maxima / Double(maximaCount), down = minima / Double(minimaCount)
        if current > 0 { return down > 1.2 * up ? -1 : 1 }
        return up > 1.2 * down ? 1 : -1
    }

    var recentIntervalsMilliseconds: [Double] {
        var out = Array(repeating: 0.0, count: recent.count)
        recent.copyNewest(recent.count, into: &out)
        return out.map { $0 * 1000 }
    }

    /// What the latest estimate says: the expected interval (nil when the rate is not
    /// trusted), whether the wearer is at rest, which channel is cleanest and which way up
    /// its pulses are (+1: beats are maxima, -1: minima).
    mutating func setContext(expectedIntervalSeconds: Double?, atRest: Bool, channel: Int, polarity: Double) {
        self.expectedIntervalSeconds = expectedIntervalSeconds
        self.atRest = atRest && expectedIntervalSeconds != nil
        if channel != self.channel || polarity != self.polarity {
            self.channel = channel
            self.polarity = polarity
            interrupt()
        }
        if !self.atRest { lastInterval = nil }
    }

    /// The signal was interrupted: beats before and after are not consecutive.
    mutating func interrupt() {
        candidate = nil
        lastBeatTime = nil
        lastInterval = nil
        samplesSeen = 0
    }

    /// One band-passed sample of the tracked channel at bin `binIndex`.
    mutating func process(filteredPPG value: Double, binIndex: Int) {
        let x = polarity * value
        defer { previous2 = previous1; previous1 = x; samplesSeen += 1 }
        guard let expected = expectedIntervalSeconds else {
            interrupt()
            return
        }
        let now = Double(binIndex) / rateHz
        let refractory = refractoryFraction * expected
        if let c = candidate, now - c.time > refractory {
            confirm(c, expected: expected)
            candidate = nil
        }
        guard samplesSeen >= 2, previous1 > previous2, previous1 >= x, previous1 > 0 else { return }
        let curvature = previous2 - 2 * previous1 + x
        let offset = curvature < 0 ? max(-0.5, min(0.5, 0.5 * (previous2 - x) / curvature)) : 0
        let time = (Double(binIndex - 1) + offset) / rateHz
        let value = previous1 - 0.25 * (previous2 - x) * offset
        if let c = candidate, time - c.time <= refractory {
            if value > c.value { candidate = (time, value) }
        } else {
            candidate = (time, value)
        }
    }

    private mutating func confirm(_ beat: (time: Double, value: Double), expected: Double) {
        if let typical = typicalAmplitude {
            if beat.value < 0.4 * typical { return }             // a wave, not a beat
            if beat.value > 3 * typical {                         // an artefact: start again
                typicalAmplitude = 0.8 * typical + 0.2 * min(beat.value, 3 * typical)
                lastBeatTime = nil
                lastInterval = nil
                return
            }
            typicalAmplitude = 0.8 * typical + 0.2 * beat.value
        } else {
            typicalAmplitude = beat.value
        }
        defer { lastBeatTime = beat.time }
        guard let last = lastBeatTime else { return }
        let interval = beat.time - last
        guard atRest, abs(interval - expected) <= intervalTolerance * expected else {
            lastInterval = nil
            return
        }
        intervalSum += interval
        intervalCount += 1
        recent.append(interval)
        if let previous = lastInterval, abs(interval - previous) <= maximumDifferenceFraction * previous {
            let d = interval - previous
            squaredDifferenceSum += d * d
            differenceCount += 1
        }
        lastInterval = interval
    }
}
