@testable import AmbleSignal
import RealModule
import Testing

/// The rhythm channel on its own (`RhythmTracker`): band signals made directly at 25 Hz, so
/// each of its decisions can be checked.
/// A `RhythmTracker` with the two band histories the step counter keeps for it: each sample
/// is appended to them and then handed to the tracker, as `StepCounter` does.
@dynamicMemberLookup
struct FedRhythmTracker {
    private(set) var tracker = RhythmTracker(settings: .init())
    private var band = SignalHistory(capacity: StepCounter.historyCapacity)
    private var high = SignalHistory(capacity: StepCounter.historyCapacity)

    mutating func process(band value: Double, highBand: Double, timeSeconds: Double, notBefore: Double, mayCount: Bool) -> Int {
        band.append(value)
        high.append(highBand)
        return tracker.process(history: band, highBand: high, timeSeconds: timeSeconds, notBefore: notBefore, mayCount: mayCount)
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<RhythmTracker, Value>) -> Value { tracker[keyPath: keyPath] }
}

@Suite("Rhythm channel")
struct RhythmTrackerTests {
    static let rate = 25.0

    /// Feeds `seconds` of `band` and `high` (functions of time) with `mayCount`; returns the
    /// steps counted and the cadences seen while counting.
    static func run(seconds: Double, mayCount: Bool = true, tracker: inout FedRhythmTracker, from start: Double = 0,
                    band: (Double) -> Double, high: (Double) -> Double) -> (steps: Int, cadences: [Double]) {
        var steps = 0
        var cadences: [Double] = []
        var n = 0
        while Double(n) / rate < seconds {
            let t = start + Double(n + 1) / rate
            steps += tracker.process(band: band(t), highBand: high(t), timeSeconds: t, notBefore: -.infinity, mayCount: mayCount)
            if tracker.isCounting { cadences.append(tracker.cadenceStepsPerMinute) }
            n += 1
        }
        return (steps, cadences)
    }

    /// A step every `period` seconds: a fundamental and a harmonic, 0.3 g.
    static func steps(_ t: Double, period: Double) -> Double {
        0.3 * Double.sin(2 * .pi * t / period) + 0.1 * Double.sin(4 * .pi * t / period + 0.7)
    }

    /// A large arm movement (2 g over 0.4 s) every 3.1 s.
    static func armMovements(_ t: Double) -> Double {
        let u = t.truncatingRemainder(dividingBy: 3.1)
        return u < 0.4 ? 2 * Double.sin(2 * .pi * u / 0.4) : 0
    }

    @Test("counts a steady rhythm by its cadence; large arm movements are masked", arguments: [0.45, 0.6, 0.8])
    func steadyRhythm(period: Double) {
        var tracker = FedRhythmTracker()
        let walk = Self.run(seconds: 90, tracker: &tracker,
                            band: { Self.steps($0, period: period) + Self.armMovements($0) },
                            high: { Self.steps($0, period: period) })
        let stop = Self.run(seconds: 20, tracker: &tracker, from: 90, band: { _ in 0 }, high: { _ in 0 })
        let counted = walk.steps + stop.steps
        // It counts from about 4 s into the rhythm (its first window ends 11.7 s in, and it
        // reaches back half a window) to its end.
        let taken = 90 / period
        #expect(Double(counted) >= taken * 0.9 && Double(counted) <= taken * 1.01, "counted \(counted) of \(taken)")
        #expect(!walk.cadences.isEmpty)
        for cadence in walk.cadences { #expect(abs(cadence - 60 / period) <= 0.02 * 60 / period, "cadence \(cadence)") }
        #expect(!tracker.isCounting, "still counting after the rhythm stopped")
    }

    @Test("a stride in the band with steps in the high band is counted step by step")
    func strideAndSteps() {
        var tracker = FedRhythmTracker()
        let result = Self.run(seconds: 60, tracker: &tracker,
                              band: { 0.3 * Double.sin(2 * .pi * $0 / 1.2) + 0.05 * Double.sin(2 * .pi * $0 / 0.6) },
                              high: { 0.2 * Double.sin(2 * .pi * $0 / 0.6) })
        #expect(!result.cadences.isEmpty)
        for cadence in result.cadences { #expect(abs(cadence - 100) <= 2, "cadence \(cadence)") }
    }

    @Test("a rhythm slower than brisk walking is left to the peak channels")
    func slowRhythm() {
        var tracker = FedRhythmTracker()
        // 1.2 s: the high band shows nothing at half of it, so it is not a stride of 0.6 s steps.
        let result = Self.run(seconds: 60, tracker: &tracker, band: { Self.steps($0, period: 1.2) }, high: { t in 0.001 * Double.sin(50 * t) })
        #expect(result.steps == 0)
    }

    @Test("scrubbing faster than steps, a quiet wrist, or a peak channel walking: nothing")
    func notCounted() {
        var scrubbing = FedRhythmTracker()
        #expect(Self.run(seconds: 60, tracker: &scrubbing, band: { 0.3 * Double.sin(2 * .pi * $0 / 0.3) },
                         high: { 0.3 * Double.sin(2 * .pi * $0 / 0.3) }).steps == 0)
        var quiet = FedRhythmTracker()
        #expect(Self.run(seconds: 60, tracker: &quiet, band: { 0.03 * Self.steps($0, period: 0.6) },
                         high: { 0.03 * Self.steps($0, period: 0.6) }).steps == 0)
        var busy = FedRhythmTracker()
        let result = Self.run(seconds: 60, mayCount: false, tracker: &busy, band: { Self.steps($0, period: 0.6) },
                              high: { Self.steps($0, period: 0.6) })
        #expect(result.steps == 0 && result.cadences.isEmpty)
    }

    @Test("nothing is counted before notBefore, and each stretch of time once")
    func handover() {
        var tracker = FedRhythmTracker()
        var steps = 0
        var n = 0
        while Double(n) / Self.rate < 60 {
            let t = Double(n + 1) / Self.rate
            // A peak channel counted up to 40 s.
            steps += tracker.process(band: Self.steps(t, period: 0.5), highBand: Self.steps(t, period: 0.5), timeSeconds: t,
                                     notBefore: 40, mayCount: true)
            n += 1
        }
        // From 40 s to the last counted centre (about 4 s before the end) at 2 steps per second.
        #expect(steps >= 2 * 14 && steps <= 2 * 20 + 1, "counted \(steps)")
        #expect(tracker.lastStepTimeSeconds <= 60)
    }
}
