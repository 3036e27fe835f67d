import AmbleRecordings
import RealModule

/// A wrist-walking model for tests and the demo, fitted per cadence to statistics of the real
/// development walks (docs/wrist-model.md; `scripts/score-steps --wrist-model` prints the fit)
/// and extended below 70 steps/min from published gait biomechanics. It is for tests and the
/// demo, not a target to tune the counter on.
///
/// The wrist hangs from the shoulder at `forearmMeters` and may swing as a pendulum: the band
/// measures specific force in the arm's frame, tangential `L θ'' + g sin θ` and along the arm
/// `L θ'² + g cos θ` (a freely swinging arm near its natural frequency shows little
/// tangential force). The body adds, in the world frame, a vertical bounce at the step rate
/// (with its second harmonic), a fore-aft surge at the step rate, a lateral sway at the stride
/// rate and, at each foot's landing, a short heel-strike pulse (σ 35 ms) mostly along gravity.
/// The hand wanders slowly on its own (0.012 g, 0.5 s) and the sensor adds 0.008 g of noise.
///
/// Arms: swinging once per stride (the usual pattern), swinging once per step (seen at speeds
/// below about 0.75 m/s: Wagenaar & van Emmerik 2000, J Biomech 33:853-861, arm frequency
/// locked to the step frequency at 0.3-0.7 m/s; but in only 3 of 8 people at 1-2 km/h in
/// Donker et al. 2001, J Motor Behav 33:86-102, so both are modelled), or still (hands
/// clasped or in pockets: the body's movement alone, the arm swaying 1°).
public struct WristWalk: Sendable {
    /// What the arms do.
    public enum Arms: String, Sendable, CaseIterable {
        case swingingPerStride = "swinging per stride"
        case swingingPerStep = "swinging per step"
        case still
    }

    /// One wearer: how much more or less than the typical wrist they swing, bounce and land
    /// (log-normal factors whose spread is the development walks' spread across wearers), and
    /// how they wear the band.
    public struct Wearer: Sendable {
        public var swingScale: Double
        public var bounceScale: Double
        public var heelStrikeScale: Double
        public var forearmMeters: Double
        let rotation: [[Double]]

        /// A wearer drawn from `seed`.
        public init(seed: UInt64) {
            var random = SeededRandom(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 17)
            func factor(_ spread: Double) -> Double { Double.exp(random.gaussian(standardDeviation: spread)) }
            swingScale = factor(WristWalk.wearerSpread.swing)
            bounceScale = factor(WristWalk.wearerSpread.bounce)
            heelStrikeScale = factor(WristWalk.wearerSpread.heelStrike)
            forearmMeters = 0.55 + 0.1 * random.unit()
            rotation = SyntheticWearer.rotation(random: &random)
        }
    }

    /// The typical wrist at one cadence (the fitted table's values, interpolated).
    public struct Gait: Equatable, Sendable {
        /// Shoulder swing amplitude, degrees either side.
        public var swingDegrees: Double
        /// Vertical bounce at the step rate, g (amplitude of the fundamental).
        public var bounceG: Double
        /// Fore-aft surge at the step rate, g.
        public var surgeG: Double
        /// Peak of each heel strike at the wrist, g.
        public var heelStrikeG: Double
        /// The hand's own movement, not locked to the steps (RMS per axis of a 0.5-s random drift), g.
        public var handMotionG: Double
        /// Step-to-step variation of the step interval (standard deviation, share).
        public var stepVariation: Double
    }

    /// The fitted table: cadence (steps/min) and the typical wrist there. From 75 steps/min up
    /// fitted to the development walks (`scripts/score-steps --wrist-model`); below, the bounce
    /// and surge fall with the centre of mass's excursion (∝ step length² × step rate², step
    /// length ∝ cadence at slow speeds: Wu et al. 2019, Sci Rep 9:18079, found the fast-walking
    /// relations still hold at 0.1-0.6 m/s), so they fade as cadence⁴; the heel strikes and the
    /// arm keep the size the development slow walks show on |a| (Sensor Watch, 30-55 steps/min).
    public static let table: [(cadence: Double, gait: Gait)] = [
        (30, Gait(swingDegrees: 3, bounceG: 0.004, surgeG: 0.002, heelStrikeG: 0.28, handMotionG: 0.17, stepVariation: 0.06)),
        (45, Gait(swingDegrees: 3, bounceG: 0.012, surgeG: 0.006, heelStrikeG: 0.28, handMotionG: 0.17, stepVariation: 0.05)),
        (60, Gait(swingDegrees: 3.5, bounceG: 0.03, surgeG: 0.015, heelStrikeG: 0.28, handMotionG: 0.15, stepVariation: 0.04)),
        (75, Gait(swingDegrees: 4, bounceG: 0.05, surgeG: 0.03, heelStrikeG: 0.22, handMotionG: 0.09, stepVariation: 0.03)),
        (90, Gait(swingDegrees: 3.5, bounceG: 0.08, surgeG: 0.05, heelStrikeG: 0.18, handMotionG: 0.09, stepVariation: 0.025)),
        (105, Gait(swingDegrees: 2.5, bounceG: 0.15, surgeG: 0.07, heelStrikeG: 0.17, handMotionG: 0.1, stepVariation: 0.025)),
        (120, Gait(swingDegrees: 2, bounceG: 0.2, surgeG: 0.09, heelStrikeG: 0.17, handMotionG: 0.12, stepVariation: 0.025)),
        (140, Gait(swingDegrees: 2, bounceG: 0.27, surgeG: 0.11, heelStrikeG: 0.17, handMotionG: 0.15, stepVariation: 0.025)),
    ]

    /// Spread of the wearer factors (standard deviation of their logarithm).
    public static let wearerSpread = (swing: 0.35, bounce: 0.3, heelStrike: 0.3)

    /// The typical wrist at `cadence`, interpolated linearly in the table (held at its ends).
    public static func gait(at cadence: Double) -> Gait {
        guard cadence > table[0].cadence else { return table[0].gait }
        guard let upper = table.firstIndex(where: { $0.cadence >= cadence }) else { return table[table.count - 1].gait }
        let (c0, g0) = table[upper - 1], (c1, g1) = table[upper]
        let w = (cadence - c0) / (c1 - c0)
        func mix(_ a: Double, _ b: Double) -> Double { a + w * (b - a) }
        return Gait(swingDegrees: mix(g0.swingDegrees, g1.swingDegrees), bounceG: mix(g0.bounceG, g1.bounceG),
                    surgeG: mix(g0.surgeG, g1.surgeG), heelStrikeG: mix(g0.heelStrikeG, g1.heelStrikeG),
                    handMotionG: mix(g0.handMotionG, g1.handMotionG), stepVariation: mix(g0.stepVariation, g1.stepVariation))
    }

    public let cadenceStepsPerMinute: Double
    public let arms: Arms
    public let wearer: Wearer
    /// When the walk starts and ends, seconds; the wearer stands still before and after, the arm hanging.
    public let walkStart: Double
    public let walkEnd: Double
    private let gait: Gait
    private var random: SeededRandom
    private var time = 0.0
    private var stepPhase = 0.0
    private var stepRateHz: Double
    private var heelStrike: Double
    private var wander = (x: 0.0, y: 0.0, z: 0.0)
    /// Steps taken so far (each landing, the first at `walkStart`).
    public private(set) var stepsTaken = 0

    public init(cadenceStepsPerMinute: Double, arms: Arms, wearer: Wearer, seed: UInt64,
                walkStart: Double = 0, walkEnd: Double = .infinity) {
        self.cadenceStepsPerMinute = cadenceStepsPerMinute
        self.arms = arms
        self.wearer = wearer
        self.walkStart = walkStart
        self.walkEnd = walkEnd
        gait = Self.gait(at: cadenceStepsPerMinute)
        random = SeededRandom(seed: seed)
        stepRateHz = cadenceStepsPerMinute / 60
        heelStrike = gait.heelStrikeG * wearer.heelStrikeScale
    }

    /// Specific force at the band, g, in the band's frame; `time` must not go backwards.
    public mutating func acceleration(at t: Double) -> (x: Double, y: Double, z: Double) {
        let dt = max(0, t - time)
        time = max(time, t)
        let walking = t >= walkStart && (t <= walkEnd || stepPhase.rounded(.down) != stepPhase)
        if walking, stepsTaken == 0 { stepsTaken = 1 }
        let before = stepPhase
        // The step under way is finished after walkEnd; then the wearer stands.
        stepPhase = walking ? stepPhase + stepRateHz * min(dt, t - walkStart) : stepPhase
        if t > walkEnd, stepPhase.rounded(.down) > before.rounded(.down) {
            stepPhase = stepPhase.rounded(.down)
            stepsTaken += 1
        } else if stepPhase.rounded(.down) > before.rounded(.down) {
            stepsTaken += 1
            stepRateHz = cadenceStepsPerMinute / 60 * (1 + random.gaussian(standardDeviation: gait.stepVariation))
            heelStrike = gait.heelStrikeG * wearer.heelStrikeScale * max(0.3, 1 + random.gaussian(standardDeviation: 0.25))
        }
        // Standing, the hand still wanders a little (0.012 g).
        let tau = 0.5, kick = (walking ? gait.handMotionG : 0.012) * (2 * dt / tau).squareRoot()
        let keep = max(0, 1 - dt / tau)
        wander = (wander.x * keep + random.gaussian(standardDeviation: kick), wander.y * keep + random.gaussian(standardDeviation: kick),
                  wander.z * keep + random.gaussian(standardDeviation: kick))

        // The arm: θ = A sin(2π k φ), k = 1/2 per stride, 1 per step.
        var cyclesPerStep: Double, amplitude: Double
        switch arms {
        case .swingingPerStride: (cyclesPerStep, amplitude) = (0.5, gait.swingDegrees * wearer.swingScale)
        case .swingingPerStep: (cyclesPerStep, amplitude) = (1, gait.swingDegrees * wearer.swingScale)
        case .still: (cyclesPerStep, amplitude) = (0.5, 1)
        }
        let moving = walking ? 1.0 : 0.0
        amplitude *= moving
        let omega = 2 * Double.pi * cyclesPerStep * stepRateHz
        let a = amplitude * .pi / 180, angle = omega / stepRateHz * stepPhase
        let theta = a * Double.sin(angle), thetaDot = a * omega * Double.cos(angle), thetaDDot = -a * omega * omega * Double.sin(angle)
        let L = wearer.forearmMeters, g = 9.81

        // The body, world frame (forward, left, up), g.
        let fraction = stepPhase - stepPhase.rounded(.down)
        let sinceLanding = fraction / stepRateHz - 0.03
        let pulse = moving * heelStrike * Double.exp(-0.5 * (sinceLanding / 0.035) * (sinceLanding / 0.035))
        let bounce = moving * gait.bounceG * wearer.bounceScale, surge = moving * gait.surgeG * wearer.bounceScale
        let up = bounce * (Double.cos(2 * .pi * stepPhase) + 0.3 * Double.cos(4 * .pi * stepPhase + 0.5)) + pulse
        let forward = surge * Double.sin(2 * .pi * stepPhase) - 0.3 * pulse
        let left = 0.3 * surge * Double.sin(.pi * stepPhase)

        // In the arm's frame: tangential (forward at θ = 0), lateral, along the arm (up).
        let c = Double.cos(theta), s = Double.sin(theta)
        let tangential = (L * thetaDDot + g * s) / g + forward * c + up * s + wander.x
        let radial = (L * thetaDot * thetaDot + g * c) / g - forward * s + up * c + wander.z
        let lateral = left + wander.y
        let r = wearer.rotation
        let n = (random.gaussian(standardDeviation: 0.008), random.gaussian(standardDeviation: 0.008), random.gaussian(standardDeviation: 0.008))
        return (r[0][0] * tangential + r[0][1] * lateral + r[0][2] * radial + n.0,
                r[1][0] * tangential + r[1][1] * lateral + r[1][2] * radial + n.1,
                r[2][0] * tangential + r[2][1] * lateral + r[2][2] * radial + n.2)
    }

    /// A walk of `seconds` with `stillSeconds` of standing before and after, rendered as
    /// `sampling` says, with its true steps.
    public static func recording(cadenceStepsPerMinute: Double, seconds: Double, stillSeconds: Double = 0, arms: Arms, wearer: Wearer,
                                 sampling: SyntheticActivities.SamplingPlan, seed: UInt64) -> SyntheticActivities.Recording {
        var walk = WristWalk(cadenceStepsPerMinute: cadenceStepsPerMinute, arms: arms, wearer: wearer, seed: seed,
                             walkStart: stillSeconds, walkEnd: stillSeconds + seconds)
        let duration = seconds + 2 * stillSeconds
        let rows = SyntheticActivities.sample(seconds: duration, sampling: sampling, seed: seed) { walk.acceleration(at: $0) }
        _ = walk.acceleration(at: duration)
        return SyntheticActivities.Recording(rows: rows, trueSteps: walk.stepsTaken, durationSeconds: duration)
    }

    /// One synthetic mindful walk of the slow-walk evidence (`MindfulWalkTests`,
    /// `scripts/score-steps --synthetic-slow`): 5 s standing, 120 s walking, 5 s standing.
    public struct MindfulCase: Sendable, CustomStringConvertible {
        public var cadenceStepsPerMinute: Double
        public var arms: Arms
        public var wearerSeed: UInt64
        public var magnitudeOnly: Bool

        /// Wearer 1 at 25 Hz, 2 at 12.5 Hz with dropped samples (as a Bangle.js), 3 at 25 Hz
        /// with jittered timing.
        public var sampling: SyntheticActivities.SamplingPlan {
            switch wearerSeed % 3 {
            case 2: return .init(rateHz: 12.5, jitterFraction: 0.3, dropProbability: 0.03, magnitudeOnly: magnitudeOnly)
            case 0: return .init(rateHz: 25, jitterFraction: 0.5, magnitudeOnly: magnitudeOnly)
            default: return .init(rateHz: 25, jitterFraction: 0.05, magnitudeOnly: magnitudeOnly)
            }
        }

        public var description: String {
            "\(Int(cadenceStepsPerMinute)) spm, wearer \(wearerSeed) (\(sampling.rateHz) Hz), \(arms.rawValue), \(magnitudeOnly ? "|a|" : "3-axis")"
        }

        public var recording: SyntheticActivities.Recording {
            WristWalk.recording(cadenceStepsPerMinute: cadenceStepsPerMinute, seconds: 120, stillSeconds: 5, arms: arms,
                                wearer: Wearer(seed: wearerSeed), sampling: sampling,
                                seed: wearerSeed &* 7_919 &+ UInt64(cadenceStepsPerMinute) &* 31 &+ (magnitudeOnly ? 1 : 0))
        }
    }

    /// The mindful walks' cadences, steps/min.
    public static let mindfulCadences: [Double] = [35, 40, 45, 50, 55, 60]

    /// Every mindful case at `cadence`: three wearers, each arm style, 3-axis and |a|.
    public static func mindfulCases(at cadence: Double) -> [MindfulCase] {
        var cases: [MindfulCase] = []
        for wearer: UInt64 in 1 ... 3 {
            for arms in Arms.allCases {
                for magnitudeOnly in [false, true] {
                    cases.append(MindfulCase(cadenceStepsPerMinute: cadence, arms: arms, wearerSeed: wearer, magnitudeOnly: magnitudeOnly))
                }
            }
        }
        return cases
    }
}

extension WristWalk {
    /// What a counter made of one mindful walk, judged by the slow-walk evidence's rules: the
    /// median per-second cadence and the count within ±5 % of the truth, no second read at an
    /// octave (beyond 1.5 × or below 1/1.5 × the true cadence).
    public struct Reading: Sendable {
        public var steps: Int
        public var trueSteps: Int
        public var trueCadence: Double
        /// The median of the per-second cadence published while walking, steps/min (0: none).
        public var cadence: Double
        /// The share of published seconds read at an octave.
        public var octaveShare: Double

        /// `cadences`: the nonzero per-second cadences the counter published.
        public init(steps: Int, cadences: [Double], trueSteps: Int, trueCadence: Double) {
            self.steps = steps
            self.trueSteps = trueSteps
            self.trueCadence = trueCadence
            let sorted = cadences.sorted()
            cadence = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            octaveShare = cadences.isEmpty ? 0
                : Double(cadences.filter { $0 > 1.5 * trueCadence || $0 < trueCadence / 1.5 }.count) / Double(cadences.count)
        }

        public var cadenceIsRight: Bool { abs(cadence / trueCadence - 1) <= 0.05 }
        public var countIsRight: Bool { abs(Double(steps - trueSteps)) <= 0.05 * Double(trueSteps) }

        /// "ok", "no walk", "double", "half", or the faults ("cadence off", "count off", "octave N % of seconds").
        public var verdict: String {
            if cadence == 0 { return "no walk" }
            if cadence > 1.5 * trueCadence { return "double" }
            if cadence < trueCadence / 1.5 { return "half" }
            var faults: [String] = []
            if !cadenceIsRight { faults.append("cadence off") }
            if !countIsRight { faults.append("count off") }
            if octaveShare > 0 { faults.append("octave \(Int((octaveShare * 100).rounded())) % of seconds") }
            return faults.isEmpty ? "ok" : faults.joined(separator: ", ")
        }
    }
}
