@testable import AmbleSignal
import AmbleSimulation
import RealModule
import Testing

/// The faster forms of the heart-rate estimator's inner loops (scripts/bench-pipeline-aarch64)
/// compute what the plain ones did, to the last bit, and the band's way of feeding samples
/// is the estimator's ordinary one.
@Suite("Signal kernels")
struct SignalKernelsTests {
    @Test("Two dot products in one pass, and four scaled subtractions in one, give the bits of one at a time",
          arguments: [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 26, 200, 201])
    func fusedKernels(count n: Int) {
        var random = SeededRandom(seed: UInt64(n + 1))
        let x = (0..<4).map { _ in UnsafeMutablePointer<Double>.allocate(capacity: max(1, n)) }
        let fused = UnsafeMutablePointer<Double>.allocate(capacity: max(1, n)), single = UnsafeMutablePointer<Double>.allocate(capacity: max(1, n))
        defer { (x + [fused, single]).forEach { $0.deallocate() } }
        for i in 0..<n {
            for column in x { column[i] = random.gaussian() * 1e3 }
            fused[i] = random.gaussian() * 35_000
            single[i] = fused[i]
        }
        let pair = VectorKernels.dot(x[0], x[1], x[2], n)
        #expect(pair.x == VectorKernels.dot(x[0], x[1], n))
        #expect(pair.y == VectorKernels.dot(x[0], x[2], n))
        let c = SIMD4(random.gaussian(), random.gaussian(), -random.gaussian(), random.gaussian() * 1e-3)
        VectorKernels.subtractScaled(c, x[0], x[1], x[2], x[3], from: fused, n)
        for k in 0..<4 { VectorKernels.subtractScaled(c[k], x[k], from: single, n) }
        #expect((0..<n).allSatisfy { fused[$0] == single[$0] })
    }

    @Test("The tracker's drift spreads a certain rate into its Gaussian, cut at the grid's ends",
          arguments: [(90, 2.0), (2, 2.0), (180, 2.0), (0, 0.5), (60, 200.0)])
    func driftSpreadsARate(at start: Int, elapsedSeconds: Double) {
        let parameters = HeartRateEstimator.Parameters.standard
        var tracker = HeartRateTracker(grid: HeartRateGrid(lowerBPM: 40, upperBPM: 220), parameters: parameters)
        let n = tracker.grid.count
        // A window that rules out every rate but one.
        tracker.update(logLikelihood: (0..<n).map { $0 == start ? 0 : -2_000 }, weight: 1)
        #expect(tracker.posterior[start] == 1)
        tracker.predict(elapsedSeconds: elapsedSeconds)
        let steps = elapsedSeconds / parameters.referenceStepSeconds
        let sigma = min(HeartRateTracker.widestDriftBPM, parameters.driftBPM * steps.squareRoot())
        let reach = Int((4 * sigma).rounded(.up))
        let jump = 1 - Double.pow(1 - parameters.jumpProbability, steps)
        func weight(_ i: Int) -> Double {
            abs(i - start) <= reach ? Double.exp(-0.5 * Double(i - start) * Double(i - start) / (sigma * sigma)) : 0
        }
        let inside = (0..<n).reduce(0) { $0 + weight($1) }
        for i in 0..<n {
            let expected = (1 - jump) * weight(i) / inside + jump / Double(n)
            #expect(abs(tracker.posterior[i] - expected) <= 1e-12 * max(expected, 1e-6), "rate \(i) of \(n)")
        }
    }

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
