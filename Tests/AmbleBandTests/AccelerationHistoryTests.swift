@testable import AmbleBand
import AmbleSignal
import Testing

@Suite struct AccelerationHistoryTests {
    @Test func nothingHeldGivesNil() {
        let history = AccelerationHistory()
        #expect(history.value(at: 0) == nil)
        #expect(history.value(at: 12.5) == nil)
    }

    /// The first accelerometer batch holds one sample and PPG samples of the same read are
    /// timed earlier: the only sample is the nearest end (this trapped in `2...count`).
    @Test func oneSampleAndAnEarlierTimeGivesThatSample() {
        var history = AccelerationHistory()
        history.append(AccelerationSample(timeSeconds: 10, xG: 0.1, yG: -0.2, zG: 0.9))
        #expect(history.value(at: 9.9) == AccelerationSample(timeSeconds: 9.9, xG: 0.1, yG: -0.2, zG: 0.9))
        #expect(history.value(at: 10) == AccelerationSample(timeSeconds: 10, xG: 0.1, yG: -0.2, zG: 0.9))
        #expect(history.value(at: 10.3) == AccelerationSample(timeSeconds: 10.3, xG: 0.1, yG: -0.2, zG: 0.9))
    }

    @Test func interpolatesBetweenTwoSamples() {
        var history = AccelerationHistory()
        history.append(AccelerationSample(timeSeconds: 1, xG: 0, yG: 1, zG: -1))
        history.append(AccelerationSample(timeSeconds: 2, xG: 1, yG: 3, zG: 1))
        #expect(history.value(at: 1.25) == AccelerationSample(timeSeconds: 1.25, xG: 0.25, yG: 1.5, zG: -0.5))
        #expect(history.value(at: 1) == AccelerationSample(timeSeconds: 1, xG: 0, yG: 1, zG: -1))
        // Before the oldest: the oldest.
        #expect(history.value(at: 0.5) == AccelerationSample(timeSeconds: 0.5, xG: 0, yG: 1, zG: -1))
    }

    @Test func staleLimit() {
        var history = AccelerationHistory()
        history.append(AccelerationSample(timeSeconds: 1, xG: 0, yG: 0, zG: 1))
        history.append(AccelerationSample(timeSeconds: 2, xG: 0, yG: 0, zG: 2))
        #expect(history.value(at: 2.5) == AccelerationSample(timeSeconds: 2.5, xG: 0, yG: 0, zG: 2))
        #expect(history.value(at: 2.51) == nil)
        #expect(history.value(at: 2.2, staleSeconds: 0.1) == nil)
        #expect(history.value(at: 2.05, staleSeconds: 0.1) != nil)
    }

    @Test func oldestOverwrittenPastCapacity() {
        var history = AccelerationHistory(capacity: 3)
        for t in 1...5 { history.append(AccelerationSample(timeSeconds: Double(t), xG: Double(t), yG: 0, zG: 0)) }
        // Holds 3, 4, 5: before 3 gives 3.
        #expect(history.value(at: 1.5) == AccelerationSample(timeSeconds: 1.5, xG: 3, yG: 0, zG: 0))
        #expect(history.value(at: 3.5) == AccelerationSample(timeSeconds: 3.5, xG: 3.5, yG: 0, zG: 0))
    }
}
