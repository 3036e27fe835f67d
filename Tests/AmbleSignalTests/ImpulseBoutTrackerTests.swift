@testable import AmbleSignal
import Testing

/// The impulse channel's bouts on their own (`ImpulseBoutTracker`): heel-strike impulses made
/// directly at 25 Hz, so a following or resuming decision can be checked.
@Suite("Impulse-channel bouts")
struct ImpulseBoutTrackerTests {
    static let rate = 25.0

    /// Feeds impulses (times, sizes) as the detector reports them, `delay` after each (its
    /// refractory time; 0.37 s and more once the waveform either side is wanted), over a quiet
    /// |a| of 1 g, until `seconds`; returns the steps counted. `waveformsResolved` false is a
    /// 12.5 Hz input (no alike-waveform chains). `weak` pulses are in the impulse signal but
    /// below the detector's floor (not reported).
    static func run(seconds: Double, impulses: [(time: Double, size: Double)], weak: [(time: Double, size: Double)] = [],
                    waveformsResolved: Bool = false, delay: Double = 0.3) -> Int {
        var tracker = ImpulseBoutTracker(settings: .init())
        tracker.waveformsResolved = waveformsResolved
        var magnitude = SignalHistory(capacity: 32)
        var next = 0, steps = 0, index = 0
        while Double(index) / rate < seconds {
            let t = Double(index) / rate
            let pulse = (impulses + weak).first { abs($0.time - t) < 0.5 / rate }
            magnitude.append(1 + (pulse?.size ?? 0))
            // A one-sample pulse on a flat signal is its own height in the impulse signal.
            tracker.recordImpulseSignal(pulse?.size ?? 0, sampleIndex: index)
            tracker.advance(to: t)
            while next < impulses.count, impulses[next].time + delay <= t {
                let i = impulses[next]
                let impulse = StepCandidate(timeSeconds: i.time, amplitudeG: i.size, sampleIndex: Int((i.time * rate).rounded()))
                steps += tracker.process(impulse, magnitude: magnitude, notBefore: -.infinity, mayConfirm: true)
                next += 1
            }
            index += 1
        }
        return steps
    }

    /// A slow walk at 1.2 s per step whose bout lapses on a turn: one step 1.7 s after the one
    /// before (beyond the following window's 1.4 periods), and the steps after it, at 1.2-1.3 s,
    /// then fall between the windows (near 2.5 and 3.5 periods) until the bout lapses. The
    /// walker goes on with weak steps: from the fifth step after the lapse every fourth leaves
    /// no impulse, so a chain of 8 that misses at most 15 % of its steps forms, if at all, only
    /// from the first impulses after the lapse, and the steps the lapse swallowed are lost (the
    /// fifth version: 35 of 37 at 1.2 and 1.25 s, 12 of 37 at 1.3 s). Four impulses at the
    /// lapsed bout's pace resume it, and the steps since its last one are counted.
    @Test("a slow walk that lapsed on a turn is resumed by 4 impulses at its pace",
          arguments: [1.2, 1.25, 1.3])
    func resumeAfterLapse(periodAfterTurn: Double) {
        var steps: [Double] = (0 ..< 12).map { 1.0 + 1.2 * Double($0) }
        steps.append(steps.last! + 1.7)
        for _ in 0 ..< 24 { steps.append(steps.last! + periodAfterTurn) }
        let lapse = steps[11] + 3.5 * 1.2
        var impulses: [(time: Double, size: Double)] = []
        var afterLapse = 0
        for (k, t) in steps.enumerated() {
            if t > lapse {
                defer { afterLapse += 1 }
                if afterLapse > 0, afterLapse % 4 == 0 { continue }
            }
            impulses.append((time: t, size: k % 2 == 0 ? 0.22 : 0.28))
        }
        let counted = ImpulseBoutTrackerTests.run(seconds: steps.last! + 2, impulses: impulses)
        #expect(abs(counted - steps.count) <= 1, "counted \(counted) of \(steps.count)")
    }

    /// A slow walk at 1.3 s per step in which every third step is a weak heel strike: 0.075 g in
    /// the impulse signal, below the detector's 0.08 g floor, between steps of 0.15-0.18 g. A
    /// chain of 8 impulses then skips 3-4 of its 11 steps, beyond the 15 % a chain may miss,
    /// and without the weak-strike rule no bout is confirmed (0 steps). The weak strikes sit
    /// midway between their neighbours, where a step would be, and are at least 0.4 of the
    /// smaller neighbour: they are steps, and the walk is counted.
    @Test("weak heel strikes between a slow walk's steps are steps, not misses")
    func weakHeelStrikes() {
        let times = (0 ..< 36).map { 1.0 + 1.3 * Double($0) }
        var strong: [(time: Double, size: Double)] = []
        var weak: [(time: Double, size: Double)] = []
        for (k, t) in times.enumerated() {
            if k % 3 == 2 { weak.append((time: t, size: 0.075)) } else { strong.append((time: t, size: k % 2 == 0 ? 0.15 : 0.18)) }
        }
        let counted = ImpulseBoutTrackerTests.run(seconds: times.last! + 2, impulses: strong, weak: weak)
        #expect(abs(counted - times.count) <= 1, "counted \(counted) of \(times.count)")
    }

    /// The same walk with the weak pulses a third of the way into the interval instead of at
    /// its middle (the wrist settling after a step, not the other foot): they are not steps,
    /// the chains miss a third of their steps, and nothing is counted.
    @Test("a pulse away from the middle of a skipped step is not a weak heel strike")
    func offMiddlePulseIsNoStep() {
        let times = (0 ..< 36).map { 1.0 + 1.3 * Double($0) }
        var strong: [(time: Double, size: Double)] = []
        var weak: [(time: Double, size: Double)] = []
        for (k, t) in times.enumerated() {
            if k % 3 == 2 {
                weak.append((time: t - 1.3 + 0.45, size: 0.075))
            } else {
                strong.append((time: t, size: k % 2 == 0 ? 0.15 : 0.18))
            }
        }
        let counted = ImpulseBoutTrackerTests.run(seconds: times.last! + 2, impulses: strong, weak: weak)
        #expect(counted == 0, "counted \(counted)")
    }

    /// Slow steps every 1.14 s with the arm moving in every other interval (at 0.38-0.62 of
    /// it, irregularly): the chain then holds two thirds of the impulse energy, short of the
    /// 70 % a chain needs by its energy, and is walking by its alike waveforms alone. At a heel
    /// strike's size (0.3 g) that is a slow walk and is counted; the same train of 1 g jolts is
    /// the arm at work (dressing reached likeness 0.79 so, with 1 g impulses) and is not.
    @Test("alike waveforms make a slow walk only at a heel strike's size", arguments: [(0.3, true), (1.0, false)])
    func alikeChainsAreHeelStrikeSized(size: Double, isWalk: Bool) {
        let times = (0 ..< 30).map { 1.0 + 1.14 * Double($0) }
        let offsets = [0.38, 0.62, 0.45, 0.56, 0.4, 0.6]
        var impulses: [(time: Double, size: Double)] = []
        for (k, t) in times.enumerated() {
            impulses.append((time: t, size: size))
            if k % 2 == 0, k + 1 < times.count { impulses.append((time: t + 1.14 * offsets[(k / 2) % offsets.count], size: size)) }
        }
        let counted = Self.run(seconds: times.last! + 2, impulses: impulses, waveformsResolved: true, delay: 0.4)
        if isWalk {
            #expect(abs(counted - times.count) <= 2, "counted \(counted) of \(times.count)")
        } else {
            #expect(counted == 0, "counted \(counted)")
        }
    }

    /// The hidden-step count the swing channel asks for when it finds that an impulse bout
    /// followed strides: the intervals counted since a time, each as many steps as it counted.
    @Test("counted intervals since a time")
    func countedIntervalsSince() {
        var tracker = ImpulseBoutTracker(settings: .init())
        var magnitude = SignalHistory(capacity: 32)
        var index = 0, next = 0
        // Steps every 1.2 s from 1 s to 19 s; the one at 13 s left no impulse (counted with the
        // next, at 14.2 s).
        let times = (0 ..< 16).map { 1.0 + 1.2 * Double($0) }.filter { abs($0 - 13.0) > 0.01 }
        while Double(index) / Self.rate < times.last! + 0.5 {
            let t = Double(index) / Self.rate
            tracker.recordImpulseSignal(0, sampleIndex: index)
            tracker.advance(to: t)
            magnitude.append(1)
            while next < times.count, times[next] + 0.3 <= t {
                _ = tracker.process(StepCandidate(timeSeconds: times[next], amplitudeG: 0.25, sampleIndex: Int((times[next] * Self.rate).rounded())),
                                    magnitude: magnitude, notBefore: -.infinity, mayConfirm: true)
                next += 1
            }
            index += 1
        }
        #expect(tracker.isWalking)
        // Intervals with their middle after 14 s: 14.2-15.4, 15.4-16.6, 16.6-17.8, 17.8-19.0.
        #expect(tracker.countedIntervals(since: 14.0) == 4)
        // After 11 s also 10.6-11.8 and 11.8-14.2, which counted 2 steps.
        #expect(tracker.countedIntervals(since: 11.0) == 7)
        #expect(tracker.countedIntervals(since: 19.0) == 0)
    }
}
