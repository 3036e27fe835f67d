import AmbleModel
import AmbleSimulation
import AmbleSync
import AmbleStudyAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Mindful walks in the band's session encoding (`SessionCoding`), made from AmbleSimulation's
/// synthetic wearer: each walk has its own seed, pace (a cadence that wanders around the
/// walker's own), length and resting heart rate. The seconds are the wearer's true steps and
/// heart rate (not the band's step counter and PPG estimator run on its signals, which would
/// cost the generator the CPU the server needs), the heart rate with an estimator's noise
/// (1.5 bpm, a confidence from 0.5 to 1) so that a walk compresses about as a recorded one
/// does; the summary is the band's own `SessionTally`.
/// Encoding with zlib's best compression costs about a millisecond a walk, so a pool of
/// distinct walks is made before the trial and items reuse them under new ids.
struct SessionPool: Sendable {
    struct Walk: Sendable {
        var bytes: [UInt8]
        var sha256: String
        var base64: String
        var seconds: Int
    }

    var walks: [Walk]

    /// `count` walks starting between `from` and `to` (seconds since 1970), each 10 to 45 minutes.
    init(count: Int, seed: UInt64, from: Double, to: Double) {
        var random = SeededRandom(seed: seed)
        walks = (0 ..< count).map { index in
            let minutes = 10 + Int(random.unit() * 36)
            let ownCadence = 95 + random.unit() * 25            // the walker's normal pace, steps/min
            let reduction = [10, 20, 30][Int(random.unit() * 3) % 3]
            let limit = ownCadence * Double(100 - reduction) / 100
            let start = from + (to - from - Double(minutes * 60)) * Double(index) / Double(max(1, count - 1))
            let bytes = Self.walk(seed: seed &+ UInt64(index) &* 7919, minutes: minutes, calibrated: ownCadence, reduction: reduction,
                                  limit: limit, restingHeartRate: 58 + random.unit() * 20, start: start.rounded())
            return Walk(bytes: bytes, sha256: Digest.sha256Hex(bytes), base64: Data(bytes).base64EncodedString(), seconds: minutes * 60)
        }
    }

    static func walk(seed: UInt64, minutes: Int, calibrated: Double, reduction: Int, limit: Double, restingHeartRate: Double, start: Double) -> [UInt8] {
        let wearer = SyntheticWearer(seed: seed, restingHeartRateBPM: restingHeartRate)
        var random = SeededRandom(seed: seed ^ 0x5eed)
        var cadence = limit * (0.9 + random.unit() * 0.2)
        var recent: [Int] = []
        var rows: [SessionSecond] = []
        var wasOver = false
        for t in 0 ..< minutes * 60 {
            if t % 20 == 0 { cadence = min(limit * 1.25, max(limit * 0.75, cadence + random.gaussian(standardDeviation: 3))) }
            wearer.activity = .walking(cadenceStepsPerMinute: cadence)
            let before = wearer.stepsTaken
            _ = wearer.accelerationG(atSeconds: Double(t + 1))
            let steps = wearer.stepsTaken - before
            recent.append(steps)
            if recent.count > 10 { recent.removeFirst() }
            let measured = Double(recent.reduce(0, +)) * 60 / Double(recent.count)
            let over = measured > limit
            rows.append(SessionSecond(offsetSeconds: t, steps: steps, cadenceStepsPerMinute: measured,
                                      heartRateBPM: ((wearer.heartRateBPM + random.gaussian(standardDeviation: 1.5)) * 10).rounded() / 10,
                                      heartRateConfidence: ((0.5 + random.unit() * 0.5) * 100).rounded() / 100,
                                      overLimit: over, alerts: over && !wasOver ? 1 : 0))
            wasOver = over
        }
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: calibrated.rounded(), reductionPercent: reduction,
                                           limitCadenceStepsPerMinute: limit.rounded(), stepLengthMeters: 0.7)
        let summary = SessionTally(rows).summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + Double(rows.count),
                                                 parameters: parameters)
        return SessionCoding.encode(SessionRecord(summary: summary, seconds: rows))
    }
}
