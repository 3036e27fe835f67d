import AmbleStateMachines
import Testing

struct PaceMonitorTests {
    func feed(_ cadences: [Double], limit: Double = 88) -> [(overLimit: Bool, alert: Bool)] {
        var monitor = PaceMonitor(limitStepsPerMinute: limit, settings: PracticeSettings())
        return cadences.map { monitor.secondElapsed(cadenceStepsPerMinute: $0) }
    }

    @Test func alertsOnlyAfterThreeSecondsOver() {
        let result = feed([85, 92, 93, 94, 95])
        #expect(result.map(\.overLimit) == [false, true, true, true, true])
        #expect(result.map(\.alert) == [false, false, false, true, false])
    }

    @Test func briefSurgeIsForgiven() {
        let result = feed([92, 93, 80, 92, 93, 80])
        #expect(result.allSatisfy { !$0.alert })
    }

    @Test func repeatsEveryTenSecondsWhileStillFast() {
        let result = feed(Array(repeating: 100, count: 25))
        let alertSeconds = result.enumerated().filter { $0.element.alert }.map(\.offset)
        #expect(alertSeconds == [2, 12, 22])
    }

    @Test func hysteresisKeepsAWalkHoveringAtTheLimitOver() {
        let result = feed([95, 95, 95, 87, 86.5, 85])
        #expect(result.map(\.overLimit) == [true, true, true, true, true, false])
    }
}
