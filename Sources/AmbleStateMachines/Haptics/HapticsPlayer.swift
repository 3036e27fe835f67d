/// Plays haptic patterns: given the time, says whether the motor should be on.
///
/// Strength below 1 is a duty cycle over `pwmPeriodSeconds`: the owner must ask at least a few
/// times per period while a pattern plays (`nextChangeSeconds` tells when to ask next).
public struct HapticsPlayer: Sendable {
    /// Period of the software PWM that makes a strength below 1, in seconds.
    public var pwmPeriodSeconds = 0.02
    private var pattern: HapticPattern?
    private var startSeconds = 0.0

    public init() {}

    public var isPlaying: Bool { pattern != nil }

    /// Starts `pattern` at `now`, replacing whatever was playing.
    public mutating func play(_ pattern: HapticPattern, now: Double) {
        self.pattern = pattern
        startSeconds = now
    }

    /// Whether the motor should be on at `now`; ends the pattern once it is over.
    public mutating func motorShouldRun(now: Double) -> Bool {
        guard let pattern else { return false }
        var elapsed = now - startSeconds
        for segment in pattern.segments {
            if elapsed < segment.durationSeconds {
                guard segment.strength > 0 else { return false }
                if segment.strength >= 1 { return true }
                let phase = (now - startSeconds).truncatingRemainder(dividingBy: pwmPeriodSeconds) / pwmPeriodSeconds
                return phase < segment.strength
            }
            elapsed -= segment.durationSeconds
        }
        self.pattern = nil
        return false
    }

    /// When the motor level may next change, so the owner can sleep until then.
    public func nextChangeSeconds(after now: Double) -> Double? {
        guard let pattern else { return nil }
        var boundary = startSeconds
        for segment in pattern.segments {
            boundary += segment.durationSeconds
            if boundary > now {
                if segment.strength > 0 && segment.strength < 1 {
                    return min(boundary, now + pwmPeriodSeconds / 4)
                }
                return boundary
            }
        }
        return now
    }
}
