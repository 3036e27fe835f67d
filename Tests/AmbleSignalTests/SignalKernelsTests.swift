import AmbleSignal
import AmbleSimulation
import Testing

/// The band's way of feeding samples is the estimator's ordinary one.
@Suite("Signal kernels")
struct SignalKernelsTests {
    @Test("Channels in a vector give what the same channels in a sample give; the lanes past the count are not read")
    func channelsInAVector() {
        var scenario = SyntheticPPG.Scenario()
        scenario.heartRate = [(0, 72), (40, 104)]
        scenario.cadence = [(0, 0), (20, 100)]
        scenario.artefactCountsPerG = [3_000, 2_000]
        let rows = SyntheticPPG(scenario).rows(sampleRateHz: 100, durationSeconds: 60)
        var bySample = HeartRateEstimator(), byVector = HeartRateEstimator()
        var estimates = 0
        for (i, row) in rows.enumerated() {
            // Now and then a value that is not finite: both skip that sample.
            let channels = i % 997 == 500 ? [row.ppg[0], .nan] : row.ppg
            let acceleration = row.acceleration.map { AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) }
            bySample.process(PPGSample(timeSeconds: row.timeSeconds, channels: channels, acceleration: acceleration))
            byVector.process(timeSeconds: row.timeSeconds, channels: SIMD4(channels[0], channels[1], -7e9, .nan), channelCount: 2,
                             acceleration: acceleration)
            if i % 100 == 99 {
                let expected = bySample.estimate()
                #expect(byVector.estimate() == expected && byVector.status == bySample.status, "at \(row.timeSeconds) s")
                if expected != nil { estimates += 1 }
            }
        }
        #expect(estimates > 30)
    }
}
