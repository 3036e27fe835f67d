import AmbleModel
import AmbleStateMachines
import Testing

/// The practice files steps under the second they were taken in: the counter releases them
/// about 10 s late, and the rows already recorded get them (`recordSecond`'s `earlier`).
struct StepsTakenTests {
    @Test func lateStepsGoToTheSecondsTheyWereTakenInAndNotBeforeTheWalk() {
        var band = PracticeDriver(calibration: Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: 0.7, unixSeconds: 0))
        band.startWalk()
        band.actions = []
        // Seconds 0-3: nothing released. Second 4 releases 7 steps: 1 taken in it, 2 in
        // second 2, 2 in second 0, and 2 before the walk began (not the walk's).
        for _ in 0..<4 { report(&band, steps: 0, taken: []) }
        report(&band, steps: 7, taken: [1, 0, 2, 0, 2, 2])
        #expect(band.recordedSeconds.map(\.steps) == [0, 0, 0, 0, 1])
        let added = band.actions.compactMap { if case .recordSecond(_, let a, _) = $0, !a.isEmpty { return a } else { return nil } }
        #expect(added == [[StepsAdded(offsetSeconds: 2, steps: 2), StepsAdded(offsetSeconds: 0, steps: 2)]])
        #expect(band.lastWalkingScreen?.steps == 5, "the walk's own steps so far")
        band.press(.longPressed(.select))
        #expect(band.summaries.map(\.steps) == [5])
        #expect(abs((band.summaries.first?.distanceMeters ?? 0) - 3.5) < 1e-9)
    }

    @Test func aReportWithoutPlacementKeepsItsStepsInItsSecond() {
        let report = SecondReport(unixSeconds: 0, steps: 3, cadenceStepsPerMinute: 100)
        #expect(report.stepsTaken == [3])
        #expect(StepsAdded.toSeconds([4, 0, 5], newestOffset: 1) == [StepsAdded(offsetSeconds: 1, steps: 4)])
    }

    private func report(_ band: inout PracticeDriver, steps: Int, taken: [Int]) {
        band.unixSeconds += 1
        band.actions += band.machine.handle(.secondElapsed(SecondReport(unixSeconds: band.unixSeconds, steps: steps, stepsTaken: taken, cadenceStepsPerMinute: 100)))
    }
}
