@testable @_spi(Diagnostics) import AmbleSignal
import AmbleSimulation
import Testing

/// The band's mindful-walk context (`StepCounter.Context`): what the wearer is expected to walk
/// at decides between reading a period as a step or as a stride where the wrist cannot tell.
@Suite("Step counter with the mindful-walk context")
struct StepCounterContextTests {
    @Test("the expected cadence, not the typical walker's, breaks a step-or-stride tie")
    func octavePrior() {
        let analysis = RhythmAnalysis(rateHz: 25, parameters: .standard, maximumLag: 102)
        // 1.1 s: 55 or 109 steps/min. Without evidence the typical cadence (105) says stride
        // (109); a mindful walk expected at 60 says step (55), one expected at 100 stride.
        #expect(analysis.strideVote(period: 1.1, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.2) > 0)
        #expect(analysis.strideVote(period: 1.1, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.2, expectedStepsPerMinute: 60) < 0)
        #expect(analysis.strideVote(period: 1.1, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.2, expectedStepsPerMinute: 100) > 0)
        // A runner is a runner whatever walk was planned: 0.65 s is a stride (185 steps/min).
        #expect(analysis.strideVote(period: 0.65, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.8, expectedStepsPerMinute: 50) > 0)
        // Clear evidence still outvotes the prior: a strong step line says stride at 1.1 s.
        #expect(analysis.strideVote(period: 1.1, vector: nil, magnitudeSpectrumRatio: 4, rmsG: 0.2, expectedStepsPerMinute: 60) > 0)
    }

    /// A synthetic mindful walk at 45 steps/min on |a| alone that the context-free counter reads
    /// at about 69, an octave up (`WristWalk`, `MindfulWalkKnownIssues`).
    static let readDoubleWithoutContext = WristWalk.mindfulCases(at: 45).first {
        $0.description == "45 spm, wearer 2 (12.5 Hz), swinging per step, |a|"
    }!

    @Test("a walk read at twice its pace is read at its pace when the band expects 0.8 to 1.2 times it", arguments: [0.8, 1, 1.2])
    func readAtItsPace(share: Double) {
        let mindful = Self.readDoubleWithoutContext
        let samples = mindful.recording.rows.map {
            AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG, isMagnitudeOnly: true)
        }
        let (steps, cadences, _) = StepCounter.countWithCadence(samples, context: .mindfulWalk(expectedStepsPerMinute: share * 45))
        let reading = WristWalk.Reading(steps: steps, cadences: cadences, trueSteps: mindful.recording.trueSteps, trueCadence: 45)
        #expect(reading.cadenceIsRight && reading.octaveShare == 0, "read \(reading.cadence) steps/min, \(Int(reading.octaveShare * 100)) % of seconds at an octave")
        // The walk is found and mostly counted (the context-free counter: 20 of 91).
        #expect(Double(reading.steps) >= 0.8 * Double(reading.trueSteps), "counted \(reading.steps) of \(reading.trueSteps)")
    }

    @Test("a context set and cleared before the samples changes nothing")
    func clearedContext() {
        let mindful = Self.readDoubleWithoutContext
        let samples = mindful.recording.rows.map {
            AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG, isMagnitudeOnly: true)
        }
        func count(_ prepare: (inout StepCounter) -> Void) -> (steps: Int, cadences: [Double]) {
            var counter = StepCounter()
            prepare(&counter)
            var cadences: [Double] = []
            for sample in samples {
                _ = counter.process(sample)
                cadences.append(counter.cadenceStepsPerMinute)
            }
            _ = counter.finish()
            return (counter.totalSteps, cadences)
        }
        let plain = count { _ in }
        let cleared = count { counter in
            counter.context = .mindfulWalk(expectedStepsPerMinute: 45)
            counter.context = nil
        }
        #expect(plain.steps == cleared.steps && plain.cadences == cleared.cadences)
        #expect(count { $0.context = .mindfulWalk(expectedStepsPerMinute: 45) }.steps != plain.steps)
    }
}
