import AmbleRecordings
import RealModule

/// Synthetic wrist recordings with known step counts, for testing step counters: walking
/// (the `SyntheticWearer`'s gait) at any cadence, and everyday motion that is not walking.
///
/// Everything is deterministic: the same seed gives the same recording. Sampling is
/// described by a `SamplingPlan` (rate, timing jitter, dropped samples, gaps, 3-axis or
/// magnitude-only), so one activity can be rendered the way different watches record it.
public enum SyntheticActivities {
    /// What the wrist does. Walking segments are rendered by `SyntheticWearer`.
    public enum Segment: Equatable, Sendable {
        /// Standing with the arm still (small posture sway), for `seconds`.
        case still(seconds: Double)
        /// Walking at `cadenceStepsPerMinute` for `seconds`.
        case walking(cadenceStepsPerMinute: Double, seconds: Double)
        /// Slow walking (below 60 steps/min) where the arm settles after each step: a second,
        /// smaller pulse 0.3-0.4 s after each heel strike (`SyntheticWearer.armSettlesAfterSteps`).
        case walkingWithArmSettle(cadenceStepsPerMinute: Double, seconds: Double)
        /// Walking while the arm also makes large movements (1-2.5 g out-and-back over
        /// 0.3-0.6 s, the wrist turning) every 2-5 s: gesturing, adjusting a bag, waving.
        case walkingWithArmMovements(cadenceStepsPerMinute: Double, seconds: Double)
        /// Reaching, lifting a cup, pointing, scratching: irregular arm movements of 0.4-1.5 s,
        /// 0.2-0.9 g, with the wrist turning, every 1-5 s.
        case armGestures(seconds: Double)
        /// Typing: small irregular key taps (0.02-0.08 g, 4-10 per second) with slow drift.
        case typing(seconds: Double)
        /// Washing up: bursts of scrubbing at 3-5 Hz (0.15-0.5 g) with pauses and reaches.
        case washingUp(seconds: Double)
        /// A car: road bumps exciting the body bounce (about 1.2 Hz, damped), cornering and
        /// braking, engine vibration.
        case driving(seconds: Double)
        /// A train: rail-joint clicks at a steady rhythm (wheelsets passing joints), lateral
        /// sway, running vibration.
        case train(seconds: Double)
        /// Desk and PC work: knocks and taps as sharp and as large as a slow step's heel strike
        /// (0.1-0.45 g: a cup put down, a hand on the desk, a click), at irregular times, with
        /// quick runs, pauses and small reaches.
        case deskWork(seconds: Double)

        public var seconds: Double {
            switch self {
            case .still(let s), .walking(_, let s), .walkingWithArmSettle(_, let s), .walkingWithArmMovements(_, let s), .armGestures(let s), .typing(let s),
                 .washingUp(let s), .driving(let s), .train(let s), .deskWork(let s):
                return s
            }
        }
    }

    /// How a watch samples: nominal rate, jitter, dropped samples, gaps, axes.
    public struct SamplingPlan: Equatable, Sendable {
        /// Nominal sample rate, in Hz (12.5 ... 125).
        public var rateHz: Double
        /// Uniform timing jitter as a fraction of the nominal period (0 = regular).
        public var jitterFraction: Double = 0
        /// Probability that a sample is lost (0 ... 0.5).
        public var dropProbability: Double = 0
        /// Mean number of gaps per minute; each gap loses `gapSeconds`.
        public var gapsPerMinute: Double = 0
        /// Length of each gap, in seconds.
        public var gapSeconds: Double = 0.5
        /// Whether only |a| is recorded (in x, with y = z = 0), as on the Sensor Watch.
        public var magnitudeOnly = false
        /// Gain error of the sensor (1 = exact), as some watches read 1.3 g at rest.
        public var gain = 1.0

        public init(rateHz: Double, jitterFraction: Double = 0, dropProbability: Double = 0,
                    gapsPerMinute: Double = 0, gapSeconds: Double = 0.5, magnitudeOnly: Bool = false, gain: Double = 1) {
            self.rateHz = rateHz
            self.jitterFraction = jitterFraction
            self.dropProbability = dropProbability
            self.gapsPerMinute = gapsPerMinute
            self.gapSeconds = gapSeconds
            self.magnitudeOnly = magnitudeOnly
            self.gain = gain
        }
    }

    /// A rendered recording and its ground truth.
    public struct Recording: Sendable {
        public var rows: [AccelerationRow]
        /// Steps actually taken.
        public var trueSteps: Int
        public var durationSeconds: Double

        /// The recording in the steps CSV format (`time_s,x_g,y_g,z_g`).
        public var csv: String { SyntheticActivities.csv(rows) }
    }

    /// Rows in the steps CSV format (`time_s,x_g,y_g,z_g`).
    public static func csv(_ rows: [AccelerationRow]) -> String {
        var text = "time_s,x_g,y_g,z_g\n"
        text.reserveCapacity(rows.count * 36)
        for row in rows {
            text += fixed(row.timeSeconds, 4) + "," + fixed(row.xG, 5) + "," + fixed(row.yG, 5) + "," + fixed(row.zG, 5) + "\n"
        }
        return text
    }

    /// Renders `segments` one after the other, sampled as `sampling` says.
    public static func render(_ segments: [Segment], sampling: SamplingPlan, seed: UInt64) -> Recording {
        var renderer = Renderer(segments: segments, seed: seed)
        let duration = segments.reduce(0) { $0 + $1.seconds }
        let rows = sample(seconds: duration, sampling: sampling, seed: seed) { renderer.acceleration(at: $0) }
        return Recording(rows: rows, trueSteps: renderer.stepsTaken(until: duration), durationSeconds: duration)
    }

    /// Samples `acceleration` (g, called in time order) over `seconds` as `sampling` says:
    /// jittered times, dropped samples, gaps, |a| alone, gain.
    public static func sample(seconds duration: Double, sampling: SamplingPlan, seed: UInt64,
                              _ acceleration: (Double) -> (x: Double, y: Double, z: Double)) -> [AccelerationRow] {
        var random = SeededRandom(seed: seed ^ 0x5A5A_0000_1234)
        let period = 1 / sampling.rateHz
        var rows: [AccelerationRow] = []
        rows.reserveCapacity(Int(duration * sampling.rateHz) + 1)
        var gapUntil = -1.0
        var lastTime = -Double.infinity
        var k = 0
        while true {
            let nominal = Double(k) * period
            k += 1
            guard nominal < duration else { break }
            var t = nominal + (random.unit() - 0.5) * sampling.jitterFraction * period
            t = min(max(t, 0), duration)
            if sampling.gapsPerMinute > 0, random.unit() < sampling.gapsPerMinute / 60 * period {
                gapUntil = t + sampling.gapSeconds
            }
            if t < gapUntil || random.unit() < sampling.dropProbability || t <= lastTime { continue }
            lastTime = t
            let a = acceleration(t)
            let g = sampling.gain
            if sampling.magnitudeOnly {
                let m = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
                rows.append(AccelerationRow(timeSeconds: t, xG: m * g, yG: 0, zG: 0))
            } else {
                rows.append(AccelerationRow(timeSeconds: t, xG: a.x * g, yG: a.y * g, zG: a.z * g))
            }
        }
        return rows
    }
}

/// Renders segments in time order (times must not go backwards by more than a sample).
private struct Renderer {
    let segments: [SyntheticActivities.Segment]
    let starts: [Double]
    let wearer: SyntheticWearer
    var random: SeededRandom
    var motion: NonWalkingMotion
    var currentSegment = -1

    init(segments: [SyntheticActivities.Segment], seed: UInt64) {
        self.segments = segments
        var starts: [Double] = []
        var t = 0.0
        for s in segments { starts.append(t); t += s.seconds }
        self.starts = starts
        wearer = SyntheticWearer(seed: seed)
        random = SeededRandom(seed: seed &* 0x9E37_79B9 &+ 7)
        motion = NonWalkingMotion(seed: seed &+ 11)
    }

    private func segmentIndex(at t: Double) -> Int {
        var i = 0
        while i + 1 < segments.count, t >= starts[i + 1] { i += 1 }
        return i
    }

    mutating func acceleration(at t: Double) -> (x: Double, y: Double, z: Double) {
        let i = segmentIndex(at: t)
        if i != currentSegment {
            currentSegment = i
            switch segments[i] {
            case .walking(let cadence, _), .walkingWithArmSettle(let cadence, _), .walkingWithArmMovements(let cadence, _):
                wearer.activity = .walking(cadenceStepsPerMinute: cadence)
            default:
                wearer.activity = .still
            }
            if case .walkingWithArmSettle = segments[i] { wearer.armSettlesAfterSteps = true } else { wearer.armSettlesAfterSteps = false }
            motion.start(segments[i], at: starts[i])
        }
        // The wearer always advances (its gait state and orientation); non-walking motion is
        // added to a still wearer.
        let base = wearer.accelerationG(atSeconds: t)
        switch segments[i] {
        case .walking, .walkingWithArmSettle:
            return base
        default:
            return motion.acceleration(at: t, still: base)
        }
    }

    func stepsTaken(until t: Double) -> Int {
        _ = wearer.accelerationG(atSeconds: t)
        return wearer.stepsTaken
    }
}

/// `value` with `digits` decimals (at least 1), as the recordings' CSV cells are written.
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0 ..< digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    var fraction = String(Int(scaled - Double(whole) * scale))
    while fraction.count < digits { fraction = "0" + fraction }
    return (value < 0 && scaled > 0 ? "-" : "") + "\(whole).\(fraction)"
}
