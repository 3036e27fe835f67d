@testable import AmbleSignal
import Testing

/// The impulse channel's bouts on their own (`ImpulseBoutTracker`): heel-strike impulses made
/// directly at 25 Hz, so a following or resuming decision can be checked.
@Suite("Impulse-channel bouts")
struct ImpulseBoutTrackerTests {
    static let rate = 25.0

    /// Feeds impulses (times, sizes) as the detector reports them, about 0.3 s after each
    /// (its refractory time), over a quiet |a| of 1 g, until `seconds`; returns the steps
    /// counted. `waveformsResolved` false is a 12.5 Hz input (no alike-waveform chains).
    static func run(seconds: Double, impulses: [(time: Double, size: Double)], waveformsResolved: Bool = false) -> Int {
        var tracker = ImpulseBoutTracker(settings: .init())
        tracker.waveformsResolved = waveformsResolved
        var magnitude = SignalHistory(capacity: 32)
        var next = 0, steps = 0, index = 0
        while Double(index) / rate < seconds {
            let t = Double(index) / rate
            let pulse = impulses.first { abs($0.time - t) < 0.5 / rate }
            magnitude.append(1 + (pulse?.size ?? 0))
            tracker.advance(to: t)
            while next < impulses.count, impulses[next].time + 0.3 <= t {
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
}
