import AmbleModel
import AmbleStateMachines
import PropertyBased
import Testing

/// Invariants of the mindful walk over random walks: random cadences second by second, with
/// pauses, resumes and abandoned "end the walk?" questions at random moments.
struct PracticePropertyTests {
    static let calibration = Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 0)
    static let limit = 88.0

    /// A walk as codes: 0...7 a second at the cadence, 8 select (pause or resume), 9 back and
    /// back again (the question asked and abandoned).
    static let walks = zip(Gen.int(in: 0 ... 9), Gen.int(in: 60 ... 120)).array(of: 20 ... 300)

    /// Plays a walk; returns the seconds recorded and the summary.
    static func play(_ codes: [(Int, Int)]) -> (rows: [SessionSecond], summary: SessionSummary, alertsGiven: Int) {
        var band = PracticeDriver(calibration: calibration)
        band.startWalk()
        for (code, cadence) in codes {
            switch code {
            case 8: band.press(.select)
            case 9:
                band.press(.back)
                band.press(.back)
            default: band.seconds(1, cadence: Double(cadence))
            }
        }
        band.press(.longPressed(.select))
        let alerts = band.actions.filter { if case .vibrate(let p) = $0 { return p.name == "pace" } else { return false } }.count
        return (band.recordedSeconds, band.summaries.last!, alerts)
    }

    @Test func noAlertUnlessTheCadenceStayedAboveTheLimitForTheGracePeriod() async {
        let grace = PracticeSettings().sustainSecondsBeforeAlert
        await propertyCheck(count: 300, input: Self.walks) { codes in
            let (rows, _, _) = Self.play(codes)
            for (i, row) in rows.enumerated() where row.alerts > 0 {
                // The grace period's seconds, up to this one, all walking and over the limit...
                guard i + 1 >= grace else {
                    Issue.record("an alert at second \(i), inside the grace period")
                    return
                }
                let run = rows[(i + 1 - grace) ... i]
                #expect(run.allSatisfy { $0.overLimit && !$0.paused }, "alert at \(i) after \(run.map(\.cadenceStepsPerMinute))")
                // ...and the run of seconds over the limit began above it (not within the hysteresis).
                var start = i
                while start > 0 && rows[start - 1].overLimit && !rows[start - 1].paused { start -= 1 }
                #expect(rows[start].cadenceStepsPerMinute > Self.limit)
            }
        }
    }

    @Test func pausedTimeNeverCountsAsOverTheLimit() async {
        await propertyCheck(count: 300, input: Self.walks) { codes in
            let (rows, summary, alertsGiven) = Self.play(codes)
            let paused = rows.filter(\.paused)
            #expect(paused.allSatisfy { !$0.overLimit && $0.alerts == 0 })
            #expect(summary.pausedSeconds == paused.count)
            #expect(summary.timeOverLimitSeconds == rows.filter { $0.overLimit && !$0.paused }.count)
            #expect(summary.alerts == alertsGiven)
            #expect(summary.walkingSeconds == rows.filter(\.isWalking).count)
            if let share = summary.withinLimitShare { #expect((0 ... 1).contains(share)) }
            #expect(summary.steps == rows.reduce(0) { $0 + $1.steps })
            #expect(rows.map(\.offsetSeconds) == Array(0 ..< rows.count), "one row per second, none lost to a question")
        }
    }

    @Test func everyWalkEndsSavedAndTheBandIsBackAtRest() async {
        await propertyCheck(count: 200, input: Self.walks) { codes in
            var band = PracticeDriver(calibration: Self.calibration)
            band.startWalk()
            for (code, cadence) in codes {
                switch code {
                case 8: band.press(.select)
                case 9:
                    band.press(.back)
                    band.press(.back)
                default: band.seconds(1, cadence: Double(cadence))
                }
            }
            band.actions += band.machine.finish()
            #expect(band.summaries.count == 1)
            #expect(band.discards == 0)
            #expect(!band.machine.isRecording)
            #expect(band.actions.last(where: { if case .metronome = $0 { return true } else { return false } }) == .metronome(periodSeconds: nil)
                    || !band.actions.contains { if case .metronome = $0 { return true } else { return false } })
        }
    }
}
