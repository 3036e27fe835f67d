@_spi(Diagnostics) import AmbleSignal
import AmbleSimulation
import Testing

/// Synthetic mindful walks (`WristWalk`, fitted to the development walks and extended below
/// 70 steps/min from gait biomechanics: docs/wrist-model.md) at 35-60 steps/min: three wearers
/// at 25 and 12.5 Hz, arms swinging once per stride, once per step and still, 3-axis and |a|.
/// Each must be read at its cadence (the median per-second cadence within ±5 %, no second at
/// double or half) and counted within ±5 %. `scripts/score-steps --synthetic-slow` prints the
/// same readings as a table.
@Suite("Step counter on synthetic mindful walks")
struct MindfulWalkTests {
    @Test("read at their cadence and counted within 5 %, never at double or half", arguments: WristWalk.mindfulCadences)
    func mindfulWalk(cadence: Double) {
        for mindful in WristWalk.mindfulCases(at: cadence) {
            let reading = Self.read(mindful)
            let check = {
                #expect(reading.cadenceIsRight && reading.octaveShare == 0,
                        "\(mindful): cadence read \(reading.cadence), \(Int(reading.octaveShare * 100)) % of seconds at an octave")
                #expect(reading.countIsRight, "\(mindful): counted \(reading.steps) of \(reading.trueSteps)")
            }
            if let how = Self.knownWrong[mindful.description] {
                withKnownIssue("\(mindful): \(how)") { check() }
            } else {
                check()
            }
        }
    }

    /// As the band runs the counter during a mindful walk: with the context expecting a cadence
    /// 0.8 and 1.2 times the walk's (the wearer's limit is not their pace). A walk must be found
    /// and not read at double or half; the full check above is known to fail for most
    /// (`knownWrongWithContext`: the counts stay short).
    @Test("with the band's mindful-walk context, found and never read at an octave", arguments: WristWalk.mindfulCadences)
    func mindfulWalkWithContext(cadence: Double) {
        for share in [0.8, 1.2] {
            for mindful in WristWalk.mindfulCases(at: cadence) {
                let reading = Self.read(mindful, context: .mindfulWalk(expectedStepsPerMinute: share * cadence))
                let octave = {
                    #expect(!["no walk", "double", "half"].contains(reading.verdict),
                            "\(mindful) @ \(share): \(reading.verdict), read \(reading.cadence)")
                }
                let check = {
                    #expect(reading.cadenceIsRight && reading.octaveShare == 0 && reading.countIsRight,
                            "\(mindful) @ \(share): read \(reading.cadence), counted \(reading.steps) of \(reading.trueSteps)")
                }
                if let how = Self.knownWrongWithContext["\(mindful) @ \(share)"] {
                    if how.hasSuffix("(half)") || how.hasSuffix("(double)") || how.hasSuffix("(no walk)") {
                        withKnownIssue("\(mindful) @ \(share): \(how)") { octave() }
                    } else {
                        octave()
                    }
                    withKnownIssue("\(mindful) @ \(share): \(how)") { check() }
                } else {
                    octave()
                    check()
                }
            }
        }
    }

    /// The counter's reading of one synthetic mindful walk.
    static func read(_ mindful: WristWalk.MindfulCase, context: StepCounter.Context? = nil) -> WristWalk.Reading {
        let recording = mindful.recording
        let samples = recording.rows.map {
            AccelerationSample(timeSeconds: $0.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG, isMagnitudeOnly: mindful.magnitudeOnly)
        }
        let (steps, cadences, _) = StepCounter.countWithCadence(samples, context: context)
        return WristWalk.Reading(steps: steps, cadences: cadences, trueSteps: recording.trueSteps, trueCadence: mindful.cadenceStepsPerMinute)
    }

    @Test("the model's walks hold the steps and cadence they are made with", arguments: [35.0, 60, 105])
    func modelTruth(cadence: Double) {
        for arms in WristWalk.Arms.allCases {
            let recording = WristWalk.recording(cadenceStepsPerMinute: cadence, seconds: 120, stillSeconds: 5, arms: arms,
                                                wearer: .init(seed: 4), sampling: .init(rateHz: 25), seed: 9)
            // 120 s at the cadence, the first landing at the start, the step under way finished.
            let expected = cadence * 2 + 1
            #expect(abs(Double(recording.trueSteps) - expected) <= 0.03 * expected + 1, "\(arms): \(recording.trueSteps) steps, expected about \(expected)")
            #expect(recording.rows.count == Int(130 * 25), "\(recording.rows.count) rows")
        }
    }
}
