import AmbleSignal
import AmbleSimulation
import Testing

/// Walking the project synthesises (`SyntheticWearer` through `SyntheticActivities`): known
/// step counts at mindful to brisk cadences, at 12.5-125 Hz, regular and irregular sampling,
/// 3-axis and magnitude-only, each seed wearing the band at another orientation. Counts must
/// be within 3 % of the steps taken (at least 3 steps of slack for the walk's edges).
@Suite("Step counter on synthetic walking")
struct SyntheticWalkingTests {
    static let cadences: [Double] = [65, 80, 95, 110, 125]
    static let rates: [Double] = [12.5, 25, 50, 125]

    static func tolerance(_ trueSteps: Int, percent: Double = 3) -> Int { max(3, Int((Double(trueSteps) * percent / 100).rounded(.up))) }

    @Test("counts within 3 % at every cadence and rate", arguments: cadences, rates)
    func countsWalking(cadence: Double, rateHz: Double) {
        for magnitudeOnly in [false, true] {
            let seed = UInt64(cadence) * 1000 + UInt64(rateHz * 10) + (magnitudeOnly ? 7 : 0)
            let recording = SyntheticActivities.render(
                [.still(seconds: 4), .walking(cadenceStepsPerMinute: cadence, seconds: 90), .still(seconds: 4)],
                sampling: plan(rateHz: rateHz, irregular: false, magnitudeOnly: magnitudeOnly), seed: seed)
            let counted = countSteps(recording, magnitudeOnly: magnitudeOnly).steps
            #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps),
                    "\(cadence) steps/min at \(rateHz) Hz, \(magnitudeOnly ? "magnitude" : "3-axis"): counted \(counted) of \(recording.trueSteps)")
        }
    }

    @Test("irregular intervals, dropped samples and gaps", arguments: [70.0, 90, 115], [12.5, 25, 100])
    func countsIrregular(cadence: Double, rateHz: Double) {
        for magnitudeOnly in [false, true] {
            let recording = SyntheticActivities.render(
                [.still(seconds: 4), .walking(cadenceStepsPerMinute: cadence, seconds: 90), .still(seconds: 4)],
                sampling: plan(rateHz: rateHz, irregular: true, magnitudeOnly: magnitudeOnly), seed: UInt64(cadence * 31 + rateHz))
            let counted = countSteps(recording, magnitudeOnly: magnitudeOnly).steps
            #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps),
                    "\(cadence) steps/min at \(rateHz) Hz irregular: counted \(counted) of \(recording.trueSteps)")
        }
    }

    /// Brisk walking while the arm also makes large movements (1-2.5 g for 0.3-0.6 s, every
    /// 2-5 s): the block median keeps the rhythm through most of them. Within 10 %.
    @Test("brisk walking with large arm movements", arguments: [100.0, 115, 130], [12.5, 25, 50])
    func countsWalkingWithArmMovements(cadence: Double, rateHz: Double) {
        for magnitudeOnly in [false, true] {
            let (counted, taken) = Self.walkWithArmMovements(cadence: cadence, rateHz: rateHz, magnitudeOnly: magnitudeOnly)
            #expect(abs(counted - taken) <= Self.tolerance(taken, percent: 10),
                    "\(cadence) steps/min at \(rateHz) Hz, \(magnitudeOnly ? "magnitude" : "3-axis"): counted \(counted) of \(taken)")
        }
    }

    /// At 85 steps/min the movements spoil more than two of the five blocks of a window often
    /// enough that walks are lost for several seconds (docs/steps.md, "Limitations").
    @Test("walking at 85 steps/min with large arm movements (known to lose stretches)", arguments: [12.5, 25, 50])
    func slowerWalkWithArmMovements(rateHz: Double) {
        for magnitudeOnly in [false, true] {
            let (counted, taken) = Self.walkWithArmMovements(cadence: 85, rateHz: rateHz, magnitudeOnly: magnitudeOnly)
            #expect(counted <= taken + Self.tolerance(taken), "overcounted: \(counted) of \(taken)")
            #expect(counted >= taken / 2, "\(counted) of \(taken)")
            withKnownIssue("85 steps/min with large arm movements: stretches lost", isIntermittent: true) {
                #expect(abs(counted - taken) <= Self.tolerance(taken, percent: 10), "\(counted) of \(taken)")
            }
        }
    }

    static func walkWithArmMovements(cadence: Double, rateHz: Double, magnitudeOnly: Bool) -> (counted: Int, taken: Int) {
        let seed = UInt64(cadence) * 613 + UInt64(rateHz * 10) + (magnitudeOnly ? 1 : 0)
        let recording = SyntheticActivities.render(
            [.still(seconds: 5), .walkingWithArmMovements(cadenceStepsPerMinute: cadence, seconds: 90), .still(seconds: 5)],
            sampling: plan(rateHz: rateHz, irregular: false, magnitudeOnly: magnitudeOnly), seed: seed)
        return (countSteps(recording, magnitudeOnly: magnitudeOnly).steps, recording.trueSteps)
    }

    @Test("the count does not depend on how the band is worn", arguments: 1 ... 8)
    func orientation(seed: Int) {
        // Each seed gives the synthetic wearer another random wrist orientation.
        let recording = SyntheticActivities.render(
            [.still(seconds: 3), .walking(cadenceStepsPerMinute: 88, seconds: 60), .still(seconds: 3)],
            sampling: plan(rateHz: 25, irregular: false, magnitudeOnly: false), seed: UInt64(seed) * 7919)
        let counted = countSteps(recording, magnitudeOnly: false).steps
        #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps), "seed \(seed): counted \(counted) of \(recording.trueSteps)")
    }

    @Test("short walks are counted from their first step")
    func shortWalks() {
        // Eight 25-step walks with pauses: each is counted once its rhythm is clear, from
        // where it began.
        var segments: [SyntheticActivities.Segment] = []
        for _ in 0 ..< 8 { segments += [.still(seconds: 12), .walking(cadenceStepsPerMinute: 100, seconds: 15)] }
        segments.append(.still(seconds: 12))
        let recording = SyntheticActivities.render(segments, sampling: plan(rateHz: 25, irregular: false, magnitudeOnly: false), seed: 5)
        let counted = countSteps(recording, magnitudeOnly: false).steps
        #expect(abs(counted - recording.trueSteps) <= recording.trueSteps * 6 / 100, "counted \(counted) of \(recording.trueSteps)")
    }

    @Test("walking between other activities")
    func mixedDay() {
        let recording = SyntheticActivities.render(
            [.typing(seconds: 60), .walking(cadenceStepsPerMinute: 75, seconds: 60), .armGestures(seconds: 60),
             .walking(cadenceStepsPerMinute: 115, seconds: 60), .washingUp(seconds: 60), .still(seconds: 15)],
            sampling: plan(rateHz: 25, irregular: true, magnitudeOnly: false), seed: 77)
        let counted = countSteps(recording, magnitudeOnly: false).steps
        #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps) + 2, "counted \(counted) of \(recording.trueSteps)")
    }

    /// Property: any walk from the mindful pace to brisk, at any rate and orientation, either
    /// sensor form, is counted within 4 % (3 steps).
    @Test("random walks, rates, orientations and sensor forms")
    func randomWalks() {
        var random = SeededRandom(seed: 20261126)
        for case_ in 0 ..< 24 {
            let cadence = 65 + 60 * random.unit()
            let rate = [12.5, 20, 25, 50, 100][Int(random.unit() * 5) % 5]
            let seconds = 45 + 60 * random.unit()
            let magnitudeOnly = random.unit() < 0.4
            let recording = SyntheticActivities.render(
                [.still(seconds: 5), .walking(cadenceStepsPerMinute: cadence, seconds: seconds), .still(seconds: 5)],
                sampling: plan(rateHz: rate, irregular: random.unit() < 0.5, magnitudeOnly: magnitudeOnly), seed: UInt64(case_) + 500)
            let counted = countSteps(recording, magnitudeOnly: magnitudeOnly).steps
            #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps, percent: 4),
                    "case \(case_): \(Int(cadence)) steps/min for \(Int(seconds)) s at \(rate) Hz, \(magnitudeOnly ? "magnitude" : "3-axis"): counted \(counted) of \(recording.trueSteps)")
        }
    }
}
