@testable import AmbleSignal
import AmbleSimulation
import Testing

/// Short bouts (`ShortBouts`): a few steps counted by their landings where no walk starts.
@Suite("Step counter stages: short bouts")
struct StepShortBoutsTests {
    /// A stretch fed to `ShortBouts` at 25 Hz: movement of `rmsG` with `vertical` of its energy
    /// along gravity (the rest across), and landings at `landings` seconds; the steps released
    /// at `releasedAt` seconds (or once no walk can cover them), with a counted walk from
    /// `walk` if given.
    struct Stretch: CustomTestStringConvertible, Sendable {
        var name: String
        var landings: [Double]
        var vertical = 0.7
        var rmsG = 0.15
        /// Every second landing a third the size of the others (the arm's, not a foot's).
        var unlike = false
        var walk: ClosedRange<Double>? = nil
        var releasedAt: Double? = nil
        var expected: Int
        var testDescription: String { name }
    }

    /// `count` landings from 10 s, `interval` seconds apart, every second one `shift` earlier.
    static func landings(_ count: Int, _ interval: Double, shift: Double = 0) -> [Double] {
        (0 ..< count).map { (i: Int) -> Double in 10 + interval * Double(i) - (i % 2 == 1 ? shift : 0) }
    }
    static let steady = landings(8, 0.55)

    static let stretches: [Stretch] = [
        Stretch(name: "eight landings a step apart, along gravity: a bout of eight", landings: steady, expected: 8),
        Stretch(name: "five: fewer than half the shortest walk", landings: landings(5, 0.55), expected: 0),
        Stretch(name: "uneven intervals (0.45 and 0.7 s in turn): a gesture's", landings: landings(8, 0.575, shift: 0.125), expected: 0),
        Stretch(name: "every second impulse a third the size: the arm's, not a foot's", landings: steady, unlike: true, expected: 0),
        Stretch(name: "movement across gravity (typing, wiping)", landings: steady, vertical: 0.05, expected: 0),
        Stretch(name: "harder than walking moves the wrist (washing up, arms swung)", landings: steady, rmsG: 0.6, expected: 0),
        Stretch(name: "below the noise floor", landings: steady, rmsG: 0.02, expected: 0),
        Stretch(name: "slower than the slowest clear rhythm (1.4 s)", landings: landings(8, 1.4), expected: 0),
        Stretch(name: "covered by a counted walk: its steps", landings: steady, walk: 5 ... 12, expected: 0),
        Stretch(name: "within half a window of a counted walk's end: its edge's", landings: steady, walk: 0 ... 7, expected: 0),
        Stretch(name: "further from a counted walk: a bout of its own", landings: steady, walk: 0 ... 4, expected: 8),
        Stretch(name: "not before a walk can no longer start over it", landings: steady, releasedAt: 30, expected: 0),
    ]

    @Test("a run of landings counts as a bout only when regular, a walker's movement, and no walk's", arguments: stretches)
    func bouts(stretch: Stretch) {
        var bouts = ShortBouts(parameters: .standard, holdSeconds: 30)
        let horizontal = (1 / stretch.vertical - 1).squareRoot()
        var landings = stretch.landings[...]
        let end = stretch.releasedAt ?? 60
        var released = 0
        for i in 0 ..< Int(end * 25) {
            let t = Double(i) / 25
            // A sinusoid of RMS `rmsG` along gravity, and across it the rest of the energy.
            let along = stretch.rmsG * 2.squareRoot() * Double.sin(2 * Double.pi * 1.8 * t)
            bouts.append(magnitude: along, x: horizontal * along, y: 0, z: along)
            if let next = landings.first, next <= t {
                let small = stretch.unlike && landings.count % 2 == 0
                bouts.landed(atSeconds: next, amplitudeG: small ? 0.1 : 0.3)
                landings.removeFirst()
            }
            bouts.advance(toSeconds: t)
            if let walk = stretch.walk, t >= walk.upperBound { bouts.dropCovered(from: walk.lowerBound, to: walk.upperBound) }
            released += bouts.release(now: t, lastWalkEndSeconds: stretch.walk?.upperBound, walkStartSeconds: nil).steps
        }
        #expect(released == stretch.expected)
    }

    @Test("a bout of ten steps between still stretches is counted; no walk starts on it")
    func boutBetweenStillStretches() {
        let recording = SyntheticActivities.render([.still(seconds: 15), .walking(cadenceStepsPerMinute: 105, seconds: 5.7), .still(seconds: 40)],
                                                   sampling: plan(rateHz: 25, irregular: false, magnitudeOnly: false), seed: 3)
        let (steps, counter) = countSteps(recording, magnitudeOnly: false)
        #expect(counter.walkingSeconds == 0, "no walk: the bout is counted by its landings")
        #expect(abs(steps - recording.trueSteps) <= 2, "counted \(steps) of \(recording.trueSteps)")
        // |a| alone: nothing tells the landings from a hand's reversals, and nothing is counted.
        #expect(countSteps(recording, magnitudeOnly: true).steps == 0)
    }
}
