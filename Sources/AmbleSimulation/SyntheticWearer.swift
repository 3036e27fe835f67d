import AmbleEmulators
import RealModule

/// A synthetic person wearing the band: wrist acceleration while standing or walking at a
/// chosen cadence, and the light a PPG sensor sees from their pulse, with motion artefact.
///
/// Walking: the forearm swings as a pendulum at half the step rate (one swing per stride),
/// which tilts gravity and adds tangential acceleration; each step adds a vertical bounce at
/// the step rate and a short heel-strike transient; step intervals vary a few per cent.
/// Slow, mindful walking (below 60 steps/min, fully at 40 and slower) barely swings the arm
/// or bounces: each step shows as a heel-strike pulse of varying size (0.2-0.45 g, about 0.1 s
/// wide) on a
/// wrist that wanders on its own (a random drift of about 0.04 g with a 0.3 s time constant),
/// and the steps are less even (5 % instead of 2.5 %). With `armSettlesAfterSteps` the arm
/// also settles after each slow step: a second, smaller pulse (0.4-0.7 of the heel strike)
/// 0.3-0.4 s after it, as hand-counted slow walks on a wrist show. The
/// band is worn at a fixed but arbitrary orientation. The pulse is a systolic peak plus a
/// dicrotic wave on a large DC level, with respiratory wander, beat-to-beat variation and an
/// artefact proportional to the wrist's acceleration. Times must be queried roughly in order;
/// the accelerometer and the PPG sensor may interleave their queries.
public final class SyntheticWearer: AccelerationSource, PPGSource {
    /// What the wearer is doing.
    public enum Activity: Equatable, Sendable {
        case still
        case walking(cadenceStepsPerMinute: Double)
    }

    public var activity: Activity = .still
    /// Heart rate at rest, beats per minute; walking raises it with cadence.
    public var restingHeartRateBPM: Double
    /// Whether the band sits on the wrist (false: the PPG sees only ambient light).
    public var isWorn = true
    /// Whether the arm settles after each slow step with a second, smaller pulse.
    public var armSettlesAfterSteps = false
    /// Steps actually taken (ground truth).
    public private(set) var stepsTaken = 0
    /// Current true heart rate, beats per minute.
    public private(set) var heartRateBPM: Double

    private var random: SeededRandom
    private let wearRotation: [[Double]]
    private var stateTime: Double?
    private var stepPhase = 0.0          // cycles; each integer crossing is a step
    private var stepRateHz = 0.0
    private var beatPhase = 0.0          // cycles; each integer crossing is a beat
    private var beatRateHz: Double
    private var jitter = 1.0
    private var stopping = false
    /// How slow and mindful the gait is (0 at 60 steps/min and faster, 1 at 40 and slower).
    private var mindfulness = 0.0
    /// Size of the current step's heel strike, g.
    private var heelStrikeG = 0.25
    /// The arm's settling after the current step: size (g) and delay after the strike (s).
    private var settleG = 0.0
    private var settleDelaySeconds = 0.35
    /// The wrist's own wandering while walking mindfully, g, in the forearm's frame.
    private var wander = (x: 0.0, y: 0.0, z: 0.0)

    public init(seed: UInt64 = 1, restingHeartRateBPM: Double = 68) {
        random = SeededRandom(seed: seed)
        self.restingHeartRateBPM = restingHeartRateBPM
        heartRateBPM = restingHeartRateBPM
        beatRateHz = restingHeartRateBPM / 60
        wearRotation = Self.rotation(random: &random)
    }

    // MARK: Time

    /// Integrates the gait and pulse up to `time`.
    private func advance(to time: Double) {
        guard let start = stateTime else {
            stateTime = time
            return
        }
        var t = start
        while t < time {
            let dt = min(0.005, time - t)
            step(dt: dt, at: t)
            t += dt
        }
        stateTime = max(start, time)
    }

    private func step(dt: Double, at t: Double) {
        let targetCadence: Double
        switch activity {
        case .still: targetCadence = 0
        case .walking(let cadence): targetCadence = cadence
        }
        if targetCadence > 0 {
            // Setting off from standing is itself a step: the gait starts at phase 0, where
            // `armAcceleration` puts a heel strike.
            if stepRateHz == 0 { stepsTaken += 1 }
            stepRateHz = targetCadence / 60 * jitter
            stopping = false
            mindfulness = min(1, max(0, (60 - targetCadence) / 20))
        } else if stepRateHz > 0 {
            stopping = true  // finish the step under way, then stand
        }
        if stepRateHz > 0 {
            let before = stepPhase
            stepPhase += stepRateHz * dt
            if stepPhase.rounded(.down) > before.rounded(.down) {
                stepsTaken += 1
                jitter = 1 + random.gaussian(standardDeviation: 0.025 * (1 + mindfulness))
                heelStrikeG = mindfulness > 0 ? 0.25 + mindfulness * (0.2 + 0.25 * random.unit() - 0.25) : 0.25
                if armSettlesAfterSteps {
                    settleG = heelStrikeG * (0.4 + 0.3 * random.unit())
                    settleDelaySeconds = 0.3 + 0.1 * random.unit()
                } else {
                    settleG = 0
                }
                if stopping { stepRateHz = 0; stepPhase = stepPhase.rounded(.down) }
            }
        }
        // The wrist wanders while walking mindfully (an Ornstein-Uhlenbeck drift), and settles
        // when the wearer stands.
        let wanderTau = 0.3
        if stepRateHz > 0, mindfulness > 0 {
            let kick = 0.04 * mindfulness * (2 * dt / wanderTau).squareRoot()
            wander.x += -wander.x * dt / wanderTau + random.gaussian(standardDeviation: kick)
            wander.y += -wander.y * dt / wanderTau + random.gaussian(standardDeviation: kick)
            wander.z += -wander.z * dt / wanderTau + random.gaussian(standardDeviation: kick)
        } else if wander.x != 0 || wander.y != 0 || wander.z != 0 {
            let decay = max(0, 1 - dt / wanderTau)
            wander = (wander.x * decay, wander.y * decay, wander.z * decay)
        }
        // Heart rate relaxes toward its target with a 20 s time constant.
        let targetHR = restingHeartRateBPM + max(0, targetCadence - 60) * 0.35
        heartRateBPM += (targetHR - heartRateBPM) * dt / 20
        let sinusArrhythmia = 1 + 0.03 * Double.sin(2 * .pi * 0.25 * t)
        beatRateHz = heartRateBPM / 60 * sinusArrhythmia
        beatPhase += beatRateHz * dt
    }

    /// Phases at `time`, extrapolated back when another sensor already moved the state on.
    private func phases(at time: Double) -> (step: Double, beat: Double, stepRate: Double) {
        advance(to: time)
        let behind = max(0, (stateTime ?? time) - time)
        return (stepPhase - stepRateHz * behind, beatPhase - beatRateHz * behind, stepRateHz)
    }

    // MARK: AccelerationSource

    public func accelerationG(atSeconds time: Double) -> (x: Double, y: Double, z: Double) {
        let p = phases(at: time)
        let arm = armAcceleration(stepPhase: p.step, stepRateHz: p.stepRate)
        let noise = (random.gaussian(standardDeviation: 0.008), random.gaussian(standardDeviation: 0.008), random.gaussian(standardDeviation: 0.008))
        let r = wearRotation
        return (
            r[0][0] * arm.0 + r[0][1] * arm.1 + r[0][2] * arm.2 + noise.0,
            r[1][0] * arm.0 + r[1][1] * arm.1 + r[1][2] * arm.2 + noise.1,
            r[2][0] * arm.0 + r[2][1] * arm.1 + r[2][2] * arm.2 + noise.2
        )
    }

    /// Specific force in the forearm's frame (x along the forearm's swing, z up the arm), in g.
    private func armAcceleration(stepPhase: Double, stepRateHz: Double) -> (Double, Double, Double) {
        guard stepRateHz > 0 else { return (0.02, 0, 0.9998) }
        let cadence = stepRateHz * 60
        let m = mindfulness
        let swingAmplitudeRadians = ((1 - m) * min(35, max(8, 10 + 0.25 * (cadence - 60))) + m * 3) * .pi / 180
        let bounceG = (1 - m) * min(0.4, max(0.04, 0.05 + 0.004 * (cadence - 60))) + m * 0.015
        // One swing per stride: half the step rate.
        let swingPhase = 2 * .pi * stepPhase / 2
        let theta = swingAmplitudeRadians * Double.sin(swingPhase)
        let omega = 2 * .pi * stepRateHz / 2
        let forearmLengthMeters = 0.6
        let tangentialG = -forearmLengthMeters * swingAmplitudeRadians * omega * omega * Double.sin(swingPhase) / 9.81
        let fraction = stepPhase - stepPhase.rounded(.down)
        // A heel strike: a sharp one-sided transient, or when walking mindfully a short pulse
        // (about 0.1 s wide) that peaks 0.05 s after the foot lands.
        var heelStrike = heelStrikeG * Double.exp(-(fraction / 0.04) * (fraction / 0.04))
        if mindfulness > 0 {
            let sinceStrike = (fraction < 0.5 ? fraction : fraction - 1) / stepRateHz - 0.05
            let pulse = heelStrikeG * Double.exp(-0.5 * (sinceStrike / 0.04) * (sinceStrike / 0.04))
            heelStrike = (1 - mindfulness) * heelStrike + mindfulness * pulse
            if settleG > 0 {
                let sinceSettle = fraction / stepRateHz - 0.05 - settleDelaySeconds
                heelStrike += mindfulness * settleG * Double.exp(-0.5 * (sinceSettle / 0.05) * (sinceSettle / 0.05))
            }
        }
        let bounce = bounceG * (Double.sin(2 * .pi * stepPhase) + 0.35 * Double.sin(4 * .pi * stepPhase + 0.6)) + heelStrike
        return (Double.sin(theta) + tangentialG + wander.x, 0.03 * Double.sin(2 * .pi * stepPhase) + wander.y, Double.cos(theta) + bounce + wander.z)
    }

    // MARK: PPGSource

    public func opticalCounts(atSeconds time: Double) -> (red: Double, infrared: Double) {
        let p = phases(at: time)
        guard isWorn else {
            return (900 + random.gaussian(standardDeviation: 15), 1100 + random.gaussian(standardDeviation: 15))
        }
        let fraction = p.beat - p.beat.rounded(.down)
        let systolic = Double.exp(-((fraction - 0.18) / 0.07) * ((fraction - 0.18) / 0.07))
        let dicrotic = 0.4 * Double.exp(-((fraction - 0.45) / 0.09) * ((fraction - 0.45) / 0.09))
        let pulse = systolic + dicrotic
        let respiration = 0.004 * Double.sin(2 * .pi * 0.25 * time)
        let arm = armAcceleration(stepPhase: p.step, stepRateHz: p.stepRate)
        let magnitude = (arm.0 * arm.0 + arm.1 * arm.1 + arm.2 * arm.2).squareRoot()
        let motion = 0.012 * (magnitude - 1)
        let infraredDC = 110_000.0, redDC = 80_000.0
        let infrared = infraredDC * (1 + respiration + motion) - 0.012 * infraredDC * pulse + random.gaussian(standardDeviation: 20)
        let red = redDC * (1 + respiration + motion * 1.2) - 0.008 * redDC * pulse + random.gaussian(standardDeviation: 20)
        return (red, infrared)
    }

    // MARK: Orientation

    /// A rotation about a random axis by a random angle: how this wearer wears the band.
    static func rotation(random: inout SeededRandom) -> [[Double]] {
        var axis = (random.gaussian(), random.gaussian(), random.gaussian())
        let norm = max(1e-9, (axis.0 * axis.0 + axis.1 * axis.1 + axis.2 * axis.2).squareRoot())
        axis = (axis.0 / norm, axis.1 / norm, axis.2 / norm)
        let angle = random.unit() * 2 * .pi
        let c = Double.cos(angle), s = Double.sin(angle), t = 1 - c
        let (x, y, z) = axis
        return [
            [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
        ]
    }
}
