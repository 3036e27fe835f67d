import AmbleModel

/// A vibration pattern: segments of motor on or off, each with a duration and, when on, a
/// strength (0...1, made by switching the motor with that duty cycle).
public struct HapticPattern: Equatable, Sendable {
    public struct Segment: Equatable, Sendable {
        public var durationSeconds: Double
        /// 0 is off; 1 is full strength.
        public var strength: Double

        public init(durationSeconds: Double, strength: Double) {
            self.durationSeconds = durationSeconds
            self.strength = strength
        }
    }

    public var name: String
    public var segments: [Segment]

    public init(name: String, segments: [Segment]) {
        self.name = name
        self.segments = segments
    }

    public var durationSeconds: Double { segments.reduce(0) { $0 + $1.durationSeconds } }

    static func on(_ seconds: Double, _ strength: Double = 1) -> Segment { Segment(durationSeconds: seconds, strength: strength) }
    static func off(_ seconds: Double) -> Segment { Segment(durationSeconds: seconds, strength: 0) }

    /// A tick: a menu move, a countdown second.
    public static let short = HapticPattern(name: "short", segments: [on(0.08)])
    /// Something began or ended: a walk, a calibration.
    public static let long = HapticPattern(name: "long", segments: [on(0.5)])
    /// Confirmed: a choice made, a calibration saved.
    public static let double = HapticPattern(name: "double", segments: [on(0.1), off(0.12), on(0.1)])
    /// Not possible (walk before calibration) or failed.
    public static let refuse = HapticPattern(name: "refuse", segments: [on(0.3, 0.6), off(0.15), on(0.3, 0.6)])
    /// Too fast: slow down. Three firm pulses, distinct from every other pattern.
    public static let paceAlert = HapticPattern(name: "pace", segments: [on(0.2), off(0.1), on(0.2), off(0.1), on(0.2)])

    /// The pace alert in the wearer's style: firm (three pulses), gentle (one long soft
    /// pulse), silent (nil: the screen only), at `strength` (0...1).
    public static func paceAlert(style: AlertStyle, strength: Double) -> HapticPattern? {
        let level = max(0.1, min(1, strength))
        switch style {
        case .silent: return nil
        case .gentle: return HapticPattern(name: "pace", segments: [on(0.6, level * 0.6)])
        case .firm: return HapticPattern(name: "pace", segments: [on(0.2, level), off(0.1), on(0.2, level), off(0.1), on(0.2, level)])
        }
    }

    /// A metronome tick: short and soft, so it guides without startling.
    public static let metronomeTick = HapticPattern(name: "tick", segments: [on(0.04, 0.5)])

    /// Paused or resumed.
    public static let pause = HapticPattern(name: "pause", segments: [on(0.15, 0.7), off(0.1), on(0.15, 0.7)])
}

/// How strongly a pace alert vibrates: the wearer's setting, raised while the wrist moves.
///
/// A vibration is felt less on a moving limb (tactile gating: detection thresholds rise
/// during active movement), so an alert given while the arm swings hard is made stronger, up
/// to `maximumBoost` times the setting at `motionForFullBoostG` of wrist motion
/// (`SecondReport.wristMotionG`: the standard deviation of |a| over a second; brisk arm swing
/// is about 0.3 g).
public enum AlertStrength {
    /// The motor's duty cycle at each of the wearer's levels, 0...1.
    public static func base(_ level: AlertStrengthLevel) -> Double {
        switch level {
        case .low: return 0.45
        case .medium: return 0.7
        case .high: return 1.0
        }
    }
    public static let maximumBoost = 1.5
    public static let motionForFullBoostG = 0.3

    public static func strength(setting: AlertStrengthLevel, wristMotionG: Double) -> Double {
        let base = base(setting)
        let boost = 1 + (maximumBoost - 1) * max(0, min(1, wristMotionG / motionForFullBoostG))
        return min(1, base * boost)
    }
}
