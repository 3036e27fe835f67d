import AmbleRecordings
@testable import AmbleSignal
import AmbleSimulation
import RealModule
import Testing

/// What the estimator promises whatever the signal: the values do not depend on the sensor's
/// gain, DC level or drift; an estimate uses nothing after its time; memory is fixed; the
/// confidence says how likely the value is within 5 bpm.
@Suite("Heart-rate estimator properties")
struct HeartRatePropertiesTests {
    /// Walking, two channels (an inverted infrared-like one and a red-like one), three axes.
    static func walkingRows() -> [PPGRow] {
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 78), (40, 78), (100, 112), (160, 112)]
        s.cadence = [(0, 0), (30, 108)]
        s.artefactCountsPerG = [3_000, 2_000]
        s.seed = 21
        return SyntheticPPG(s).rows(sampleRateHz: 100, durationSeconds: 160)
    }

    static func values(_ rows: [PPGRow]) -> [Double?] { streamHeartRate(rows).outputs.map { $0.estimate?.bpm } }

    @Test("Gains x0.3 and x3 (variant (c)) give the same values", arguments: [0.3, 3])
    func gain(_ gain: Double) {
        let rows = Self.walkingRows()
        let scaled = rows.map { row -> PPGRow in
            var r = row
            r.ppg = row.ppg.map { $0 * gain }
            return r
        }
        let original = Self.values(rows), changed = Self.values(scaled)
        #expect(original.count == changed.count)
        for (a, b) in zip(original, changed) {
            #expect((a == nil) == (b == nil))
            if let a, let b { #expect(abs(a - b) < 1e-6, "\(a) vs \(b)") }
        }
    }

    @Test("Raw counts (variant (b)): a DC level of 90 000-150 000, a slow drift of ±3 %, a channel upside down, whole counts")
    func rawCounts() {
        let rows = Self.walkingRows()
        let span = rows.last!.timeSeconds
        let dc = [150_000.0, 90_000.0], phase = [3.8, 1.6]
        let raw = rows.map { row -> PPGRow in
            var r = row
            // The synthetic channels already sit on a DC level: take it out, as the variant's
            // source recordings have none.
            r.ppg = row.ppg.indices.map { c in
                let drift = 0.03 * dc[c] * Double.sin(2 * .pi * row.timeSeconds / span * 1.5 + phase[c])
                let sign = c % 2 == 1 ? -1.0 : 1.0
                return (dc[c] + drift + sign * row.ppg[c]).rounded()
            }
            return r
        }
        let original = Self.values(rows), changed = Self.values(raw)
        var differences: [Double] = []
        var sameStatus = 0
        for (a, b) in zip(original, changed) {
            if (a == nil) == (b == nil) { sameStatus += 1 }
            if let a, let b { differences.append(abs(a - b)) }
        }
        let mean = differences.reduce(0, +) / Double(differences.count)
        #expect(mean <= 0.3, "values differ by \(mean) bpm on average")
        #expect(Double(sameStatus) >= 0.97 * Double(original.count), "\(sameStatus) of \(original.count) outputs agree on giving a value")
    }

    @Test("Causal: an estimate uses only the samples before its time")
    func causal() {
        let rows = Self.walkingRows()
        let cut = 90.0
        // The same stream up to the cut, then something else entirely (noise, no walking).
        var random = SeededRandom(seed: 5)
        let other = rows.map { row -> PPGRow in
            guard row.timeSeconds >= cut else { return row }
            var r = row
            r.ppg = row.ppg.map { _ in 100_000 + 5_000 * random.gaussian() }
            r.acceleration = AccelerationRow(timeSeconds: row.timeSeconds, xG: random.gaussian(), yG: 0, zG: 1)
            return r
        }
        let a = streamHeartRate(rows).outputs, b = streamHeartRate(other).outputs
        let before = zip(a, b).filter { $0.0.timeSeconds <= cut }
        #expect(before.count == Int((cut - 8) / 2) + 1)
        for (x, y) in before {
            #expect(x.estimate == y.estimate && x.status == y.status, "at \(x.timeSeconds) s")
        }
        #expect(zip(a, b).contains { $0.0.timeSeconds > cut && $0.0.estimate != $0.1.estimate })
    }

    @Test("Memory is fixed when the estimator is made: gaps, restarts, channel changes, acceleration coming and going")
    func fixedMemory() {
        var estimator = HeartRateEstimator()
        let before = estimator.bufferElementCount
        var s = SyntheticPPG.Scenario()
        s.heartRate = [(0, 70), (200, 120)]
        s.cadence = [(0, 0), (50, 100), (150, 140)]
        s.artefactCountsPerG = [2_000, 1_000]
        let rows = SyntheticPPG(s).rows(sampleRateHz: 50, durationSeconds: 300)
        var next = 8.0
        for (i, row) in rows.enumerated() {
            if (100.0..<102.0).contains(row.timeSeconds) { continue }           // a gap: restart
            var channels = row.ppg
            if row.timeSeconds > 250 { channels = [row.ppg[0]] }                  // one channel left
            let acceleration = (120.0..<140.0).contains(row.timeSeconds) || i % 7 == 0 ? nil
                : row.acceleration.map { AccelerationSample(timeSeconds: row.timeSeconds, xG: $0.xG, yG: $0.yG, zG: $0.zG) }
            while row.timeSeconds >= next {
                _ = estimator.estimate(atTimeSeconds: next)
                next += 1
            }
            estimator.process(PPGSample(timeSeconds: row.timeSeconds, channels: channels, acceleration: acceleration))
        }
        #expect(estimator.bufferElementCount == before)
        // Rings of one 8 s window at 25 Hz, the least-squares basis (26 columns), two
        // 512-point FFTs' tables and the grid's buffers (docs/heart-rate.md, "Cost and
        // memory"): a count that catches a buffer sized by mistake.
        #expect(before == 21_286, "buffers changed size: update docs/heart-rate.md, \"Cost and memory\"")
    }

    @Test("Confidence follows the evidence: high on a clear pulse, below the threshold within 12 s when the pulse fades into noise, back with it")
    func confidenceFollowsTheEvidence() {
        // At rest (no gait zones), one channel; the pulse is gone from 60 to 100 s, the sensor
        // still on the skin (noise of the same size as before, so no channel check fires).
        let scenario = GaitArtefactScenario(seconds: 150, heartRate: { _ in 66 }, cadence: { _ in 0 },
                                            pulseAmplitude: { (60...100).contains($0) ? 0 : 1 }, seed: 4)
        let outputs = scenario.outputs { $0.minimumConfidence = 0 }
        func confidences(_ range: ClosedRange<Double>) -> [Double] {
            outputs.filter { range.contains($0.timeSeconds) }.map { $0.estimate?.confidence ?? 0 }
        }
        #expect(confidences(20...60).allSatisfy { $0 >= 0.9 }, "\(confidences(20...60))")
        #expect(confidences(72...100).allSatisfy { $0 < 0.45 }, "\(confidences(72...100))")
        #expect(confidences(120...150).allSatisfy { $0 >= 0.9 }, "\(confidences(120...150))")
    }

    @Test("Confidence is calibrated on the gait scenarios: values at 0.9 or more are within 5 bpm, none given is more than 10 bpm off")
    func calibratedOnTheGaitScenarios() {
        let scenarios = [
            GaitArtefactScenario(seconds: 180, heartRate: { _ in 118 }, cadence: { _ in 100 }, seed: 7),
            GaitArtefactScenario(seconds: 240, heartRate: { 90 + 40 * min(1, max(0, ($0 - 20) / 200)) }, cadence: { _ in 110 }, seed: 7),
            GaitArtefactScenario(seconds: 240, heartRate: { 72 + 33 * min(1, max(0, ($0 - 60) / 60)) }, cadence: { $0 > 60 ? 96 : 0 },
                                 accelerationG: 0.03, seed: 7),
            GaitArtefactScenario(seconds: 180, heartRate: { _ in 112 }, cadence: { _ in 100 }, accelerationG: 0.03, quietArm: true, seed: 7),
            GaitArtefactScenario(seconds: 180, heartRate: { _ in 84 }, cadence: { _ in 60 }, seed: 7),
        ]
        var confident: [Double] = [], given: [Double] = []
        for scenario in scenarios {
            for o in scenario.outputs() {
                guard let e = o.estimate else { continue }
                let error = abs(e.bpm - scenario.truth(at: o.timeSeconds))
                given.append(error)
                if e.confidence >= 0.9 { confident.append(error) }
            }
        }
        let within = Double(confident.filter { $0 <= 5 }.count) / Double(confident.count)
        #expect(within >= 0.99, "\(within * 100) % of \(confident.count) values at confidence >= 0.9 within 5 bpm")
        #expect(given.allSatisfy { $0 <= 10 }, "worst \(given.max() ?? 0) bpm of \(given.count) values given")
    }
}
