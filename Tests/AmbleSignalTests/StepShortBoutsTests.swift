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

/// A short bout and a walk released by one call (`StepReleases`): each stretch's steps stay in it.
@Suite("Step counter: a bout and a walk released together")
struct StepBoutAndWalkReleaseTests {
    /// A bout of ten steps (15-20.7 s), 20 s still, then a walk from 40.7 s; the stream ends
    /// (or breaks off for longer than a gap is bridged) at 48 s, with the walk under way and the
    /// bout still held: both come out together.
    @Test("the steps of a bout and of a walk released together are taken within their own stretches",
          arguments: [false, true])
    func boutAndWalkKeepTheirStretches(endsWithGap: Bool) {
        let recording = SyntheticActivities.render([.still(seconds: 15), .walking(cadenceStepsPerMinute: 105, seconds: 5.7), .still(seconds: 20),
                                                    .walking(cadenceStepsPerMinute: 100, seconds: 20)],
                                                   sampling: plan(rateHz: 25, irregular: false, magnitudeOnly: false), seed: 3)
        var counter = StepCounter()
        var before = 0
        for row in recording.rows where row.timeSeconds < 48 {
            before += counter.process(AccelerationSample(timeSeconds: row.timeSeconds, xG: row.xG, yG: row.yG, zG: row.zG))
        }
        #expect(before == 0 && counter.isWalking, "nothing released yet, the walk under way")
        let released = endsWithGap ? counter.processTimed(AccelerationSample(timeSeconds: 60, xG: 0, yG: 0, zG: 1)) : counter.finishTimed()
        let times = released.flatMap { release in (0 ..< release.steps).map(release.timeOfStep) }
        let inBout = times.filter { (15 ... 20.7).contains($0) }.count
        let inWalk = times.filter { (40.7 ... 48).contains($0) }.count
        #expect(inBout == 10 && inWalk >= 8 && inBout + inWalk == released.steps,
                "\(inBout) steps in the bout, \(inWalk) in the walk, of \(released.steps): \(Array(released))")
    }

    struct Case: Sendable {
        var releases: [(Int, Double, Double)]
        var stretches: [(Int, Double, Double)]
    }

    @Test("releases that touch are one stretch; apart, their own, up to the capacity; beyond it, the nearest's", arguments: [
        Case(releases: [(2, 10, 11), (3, 11, 12)], stretches: [(5, 10, 12)]),
        Case(releases: [(2, 10, 11), (3, 30, 35), (0, 50, 50)], stretches: [(2, 10, 11), (3, 30, 35)]),
        Case(releases: [(1, 0, 1), (1, 10, 11), (1, 20, 21), (1, 30, 31), (4, 12, 13)],
             stretches: [(1, 0, 1), (5, 10, 13), (1, 20, 21), (1, 30, 31)]),
    ])
    func stretchesKeptApart(_ row: Case) {
        var releases = StepReleases()
        for (steps, from, through) in row.releases { releases.append(StepRelease(steps: steps, fromSeconds: from, throughSeconds: through)) }
        #expect(Array(releases) == row.stretches.map { StepRelease(steps: $0.0, fromSeconds: $0.1, throughSeconds: $0.2) })
        #expect(releases.steps == row.releases.reduce(0) { $0 + $1.0 })
    }
}
