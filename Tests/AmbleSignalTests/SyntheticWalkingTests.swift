import AmbleSignal
import AmbleSimulation
import Testing

/// Walking the project synthesises (`SyntheticWearer` through `SyntheticActivities`): known
/// step counts at slow mindful to brisk cadences, at 12.5-125 Hz, regular and irregular
/// sampling, 3-axis and magnitude-only, each seed wearing the band at another orientation.
/// Counts must be within 3 % of the steps taken (at least 2 steps of slack for the bout's
/// first and last step).
@Suite("Step counter on synthetic walking")
struct SyntheticWalkingTests {
    static let cadences: [Double] = [60, 70, 80, 105, 125]
    static let rates: [Double] = [12.5, 25, 50, 125]

    static func tolerance(_ trueSteps: Int) -> Int { max(2, Int((Double(trueSteps) * 0.03).rounded(.up))) }

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

    /// Slow, mindful walking: 30-55 steps/min (a step every 1.1-2 s), the arm nearly still,
    /// each step a small heel-strike impulse.
    @Test("slow mindful walking at 30-55 steps/min", arguments: [30.0, 36, 42, 48, 55], [12.5, 25, 100])
    func countsSlowWalking(cadence: Double, rateHz: Double) {
        for magnitudeOnly in [false, true] {
            for irregular in [false, true] {
                let seed = UInt64(cadence) * 977 + UInt64(rateHz * 10) + (magnitudeOnly ? 3 : 0) + (irregular ? 5 : 0)
                let recording = SyntheticActivities.render(
                    [.still(seconds: 4), .walking(cadenceStepsPerMinute: cadence, seconds: 100), .still(seconds: 4)],
                    sampling: plan(rateHz: rateHz, irregular: irregular, magnitudeOnly: magnitudeOnly), seed: seed)
                let counted = countSteps(recording, magnitudeOnly: magnitudeOnly).steps
                #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps),
                        "\(cadence) steps/min at \(rateHz) Hz, \(magnitudeOnly ? "magnitude" : "3-axis"), \(irregular ? "irregular" : "regular"): counted \(counted) of \(recording.trueSteps)")
            }
        }
    }

    /// Slow walking where the arm settles after each step: a second, smaller pulse 0.3-0.4 s
    /// after each heel strike. Its impulses are as many as the steps' and nearly as large;
    /// the steps' alike waveforms tell them apart (docs/steps.md, "alike waveforms"). Below
    /// 20 Hz the counter does not trust waveforms (gestures grow as alike as steps there), so
    /// at 12.5 Hz a walk may be confirmed later: within 10 % there.
    @Test("slow walking with the arm settling after each step", arguments: [36.0, 42, 48, 55], [12.5, 25, 100])
    func countsSlowWalkingWithArmSettle(cadence: Double, rateHz: Double) {
        for magnitudeOnly in [false, true] {
            let seed = UInt64(cadence) * 389 + UInt64(rateHz * 10) + (magnitudeOnly ? 3 : 0)
            let recording = SyntheticActivities.render(
                [.still(seconds: 4), .walkingWithArmSettle(cadenceStepsPerMinute: cadence, seconds: 100), .still(seconds: 4)],
                sampling: plan(rateHz: rateHz, irregular: false, magnitudeOnly: magnitudeOnly), seed: seed)
            let counted = countSteps(recording, magnitudeOnly: magnitudeOnly).steps
            let tolerance = rateHz < 20 ? max(Self.tolerance(recording.trueSteps), recording.trueSteps / 10) : Self.tolerance(recording.trueSteps)
            #expect(abs(counted - recording.trueSteps) <= tolerance,
                    "\(cadence) steps/min at \(rateHz) Hz, \(magnitudeOnly ? "magnitude" : "3-axis"): counted \(counted) of \(recording.trueSteps)")
        }
    }

    @Test("irregular intervals, dropped samples and gaps", arguments: [65.0, 75, 110], [12.5, 25, 100])
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
    /// 2-5 s), as in real clips where such movements keep the swing channel from confirming a
    /// bout: the rhythm channel counts by cadence there. Tolerance 6 % (at least 2 steps): it
    /// counts from about 4 s into the walk (docs/steps.md).
    @Test("brisk walking with large arm movements", arguments: [70.0, 85, 100, 115, 130], [12.5, 25, 50])
    func countsWalkingWithArmMovements(cadence: Double, rateHz: Double) {
        for magnitudeOnly in [false, true] {
            let seed = UInt64(cadence) * 613 + UInt64(rateHz * 10) + (magnitudeOnly ? 1 : 0)
            let recording = SyntheticActivities.render(
                [.still(seconds: 5), .walkingWithArmMovements(cadenceStepsPerMinute: cadence, seconds: 90), .still(seconds: 5)],
                sampling: plan(rateHz: rateHz, irregular: false, magnitudeOnly: magnitudeOnly), seed: seed)
            let counted = countSteps(recording, magnitudeOnly: magnitudeOnly).steps
            let tolerance = max(2, Int((Double(recording.trueSteps) * 0.06).rounded(.up)))
            #expect(abs(counted - recording.trueSteps) <= tolerance,
                    "\(cadence) steps/min at \(rateHz) Hz, \(magnitudeOnly ? "magnitude" : "3-axis"): counted \(counted) of \(recording.trueSteps)")
        }
    }

    @Test("the count does not depend on how the band is worn", arguments: 1 ... 6)
    func orientation(seed: Int) {
        // Each seed gives the synthetic wearer another random wrist orientation.
        let recording = SyntheticActivities.render(
            [.walking(cadenceStepsPerMinute: 72, seconds: 60), .still(seconds: 3)],
            sampling: plan(rateHz: 25, irregular: false, magnitudeOnly: false), seed: UInt64(seed) * 7919)
        let counted = countSteps(recording, magnitudeOnly: false).steps
        #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps), "seed \(seed): counted \(counted) of \(recording.trueSteps)")
    }

    @Test("short walks are counted from their first step")
    func shortWalks() {
        // Ten 12-step walks with pauses: steps held until a bout is confirmed are released.
        var segments: [SyntheticActivities.Segment] = []
        for _ in 0 ..< 10 { segments += [.still(seconds: 6), .walking(cadenceStepsPerMinute: 100, seconds: 7.2)] }
        segments.append(.still(seconds: 6))
        let recording = SyntheticActivities.render(segments, sampling: plan(rateHz: 25, irregular: false, magnitudeOnly: false), seed: 5)
        let counted = countSteps(recording, magnitudeOnly: false).steps
        #expect(abs(counted - recording.trueSteps) <= max(3, recording.trueSteps * 5 / 100), "counted \(counted) of \(recording.trueSteps)")
    }

    @Test("walking between other activities")
    func mixedDay() {
        let recording = SyntheticActivities.render(
            [.typing(seconds: 60), .walking(cadenceStepsPerMinute: 75, seconds: 60), .armGestures(seconds: 60),
             .walking(cadenceStepsPerMinute: 115, seconds: 60), .washingUp(seconds: 60), .still(seconds: 5)],
            sampling: plan(rateHz: 25, irregular: true, magnitudeOnly: false), seed: 77)
        let counted = countSteps(recording, magnitudeOnly: false).steps
        #expect(abs(counted - recording.trueSteps) <= Self.tolerance(recording.trueSteps) + 2, "counted \(counted) of \(recording.trueSteps)")
    }
}
