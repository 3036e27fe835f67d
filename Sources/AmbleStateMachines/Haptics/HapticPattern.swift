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
}
