import AmbleSignal
import AmbleSimulation
import Testing

/// The step counter's thresholds by name, as the developer tool `steps-sensitivity` changes
/// them (docs/steps.md, "How much the figures hang on the thresholds").
struct StepCounterTuningTests {
    static let walk = SyntheticActivities.render([.still(seconds: 5), .walking(cadenceStepsPerMinute: 100, seconds: 60), .still(seconds: 5)],
                                                 sampling: plan(rateHz: 25, irregular: false, magnitudeOnly: false), seed: 7)

    @Test("without overrides the counter is the documented one")
    func noOverridesIsTheDefault() throws {
        let plain = countSteps(Self.walk, magnitudeOnly: false)
        let tuned = countSteps(Self.walk, magnitudeOnly: false, counter: try StepCounter(overrides: [:]))
        #expect(abs(plain.steps - Self.walk.trueSteps) <= 2, "the walk is counted: \(plain.steps) of \(Self.walk.trueSteps)")
        #expect(tuned.steps == plain.steps)
        #expect(tuned.counter.stepsByChannel == plain.counter.stepsByChannel)
    }

    @Test("an override reaches the channel it names")
    func overridesReachEachChannel() throws {
        // Chains no walk can make: each channel in turn is the only one that may count.
        let noSwing = ["swing.stepsToConfirm": 500.0, "swing.stepsToResume": 500]
        let noImpulses = ["impulseBouts.stepsToConfirm": 500.0, "impulseBouts.stepsToResume": 500]
        let noRhythm = ["rhythm.minimumStrength": 2.0]
        let none = try countSteps(Self.walk, magnitudeOnly: false, counter: StepCounter(overrides: noSwing.merging(noImpulses) { $1 }.merging(noRhythm) { $1 }))
        #expect(none.steps == 0)
        let swingOnly = try countSteps(Self.walk, magnitudeOnly: false, counter: StepCounter(overrides: noImpulses.merging(noRhythm) { $1 }))
        #expect(swingOnly.steps > 0 && swingOnly.steps == swingOnly.counter.stepsByChannel.swing)
        let withoutSwing = try countSteps(Self.walk, magnitudeOnly: false, counter: StepCounter(overrides: noSwing))
        #expect(withoutSwing.counter.stepsByChannel.swing == 0)
        #expect(withoutSwing.steps > 0, "the other channels count a brisk walk the swing channel may not")
    }

    @Test("an unknown name is refused, listing the names")
    func unknownNameIsRefused() {
        let error = #expect(throws: StepCounter.UnknownTunableParameter.self) { try StepCounter(overrides: ["impulses.floor": 0.07]) }
        #expect(error?.description.contains("\"impulses.floor\" is not a step-counter setting") == true)
        #expect(error?.description.contains("impulses.floorG") == true)
    }

    @Test("names are unique, and counts are marked as counts")
    func namesAreUnique() {
        let names = StepCounter.tunableParameters.map(\.name)
        #expect(Set(names).count == names.count)
        let floor = StepCounter.tunableParameters.first { $0.name == "impulses.floorG" }
        #expect(floor?.value() == 0.08 && floor?.isCount == false)
        let confirm = StepCounter.tunableParameters.first { $0.name == "swing.stepsToConfirm" }
        #expect(confirm?.value() == 7 && confirm?.isCount == true)
        #expect(confirm?.value(for: { var c = StepCounter.Configuration(); c.stepsToConfirmBout = 9; return c }()) == 9)
    }
}
