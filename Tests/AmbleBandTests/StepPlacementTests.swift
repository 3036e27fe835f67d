@testable import AmbleBand
import AmbleModel
import AmbleSignal
import Testing

/// The band files each step under the second it was taken in, although the counter releases
/// it about 10 s later: a session's rows add up to its summary and hold its steps where the
/// wearer walked (issue 30, item 2).
struct StepPlacementTests {
    @Test func releasedStepsGoToTheSecondsTheyWereTakenIn() {
        var placement = StepPlacement()
        for end in 1...5 { #expect(placement.closeSecond(at: Double(end)).isEmpty) }
        // Four steps taken over 2-4 s (at 2.25, 2.75, 3.25, 3.75), one in the open second.
        placement.add(StepRelease(steps: 4, fromSeconds: 2, throughSeconds: 4))
        placement.add(StepRelease(steps: 1, fromSeconds: 5.2, throughSeconds: 5.4))
        #expect(placement.closeSecond(at: 6) == [1, 0, 2, 2], "this second, then 4-5 s, 3-4 s, 2-3 s")
        #expect(placement.closeSecond(at: 7).isEmpty)
        // Older than every second remembered: the oldest one. At a session's end the open
        // second's steps count in the last one closed.
        placement.add(StepRelease(steps: 1, fromSeconds: -500, throughSeconds: -500))
        placement.add(StepRelease(steps: 2, fromSeconds: 7.5, throughSeconds: 7.5))
        #expect(placement.takeIntoLastSecond() == [2, 0, 0, 0, 0, 0, 1])
        #expect(placement.takeIntoLastSecond().isEmpty, "nothing is given twice")
    }

    /// Calibrate, then a walk at 86 steps/min: walk 50 s, stand 30 s, walk 40 s, stand, end
    /// with a long press.
    static let walkStandWalk = BandPracticeScenarioTests.calibrateThenWalk + """
    +50    stop
    +30    walk 86
    +40    stop
    +6     hold select 1.5
    +4     end
    """

    @Test func theRowsHoldEveryStepWhereTheWearerWalked() throws {
        let run = try ScenarioRun(script: Self.walkStandWalk)
        run.run(seconds: 180)
        let sessions = try run.band.store.finishedSessions()
        try #require(sessions.count == 2)
        for session in sessions {
            let record = try #require(try run.band.store.session(id: session.id))
            #expect(record.seconds.reduce(0) { $0 + $1.steps } == session.summary.steps, "the rows add up to the summary")
        }
        let rows = try #require(try run.band.store.session(id: sessions[1].id)).seconds
        // The session begins as the countdown ends, 2 s into the first walk (band time 43):
        // walking at offsets 0-48, standing 48-78, walking 78-118, standing to the end.
        let steps = rows.map(\.steps)
        func stepsIn(_ offsets: ClosedRange<Int>) -> [Int] { Array(steps[offsets.clamped(to: 0...(steps.count - 1))]) }
        #expect(stepsIn(52...76).allSatisfy { $0 == 0 }, "standing: \(stepsIn(46...80))")
        #expect(stepsIn(123...200).allSatisfy { $0 == 0 }, "standing at the end: \(stepsIn(114...200))")
        // Walking at 86 steps/min, 1.4 a second: every second holds a step, from the first.
        #expect(stepsIn(1...46).filter { $0 == 0 }.count <= 1, "first walk: \(stepsIn(0...48))")
        #expect(stepsIn(81...115).filter { $0 == 0 }.count <= 1, "second walk: \(stepsIn(78...118))")
        let first = stepsIn(0...50).reduce(0, +), second = stepsIn(76...120).reduce(0, +)
        #expect(abs(first - 69) <= 6 && abs(second - 57) <= 6, "\(first) and \(second) steps for 48 s and 40 s at 86 steps/min")
    }
}
