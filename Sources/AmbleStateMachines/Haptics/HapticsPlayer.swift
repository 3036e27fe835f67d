/// Plays haptic patterns: given the time, says whether the motor should be on.
///
/// Strength below 1 is a duty cycle over `pwmPeriodSeconds`: the owner must ask at least a few
/// times per period while a pattern plays (`nextChangeSeconds` tells when to ask next).
public struct HapticsPlayer: Sendable {
    /// Period of the software PWM that makes a strength below 1, in seconds.
    public var pwmPeriodSeconds = 0.02
    private var pattern: HapticPattern?
    private var startSeconds = 0.0
    /// The metronome: a tick every `period` seconds from `origin`, under any pattern.
    private var metronome: (period: Double, origin: Double)?

    public init() {}

    public var isPlaying: Bool { pattern != nil }

    /// Starts a tick every `periodSeconds` (the limit's step period), or stops it (nil). A
    /// pattern played meanwhile takes the motor; the ticks go on after it.
    public mutating func setMetronome(periodSeconds: Double?, now: Double) {
        metronome = periodSeconds.flatMap { $0 > 0.2 ? ($0, now) : nil }
    }

    public var isMetronomeOn: Bool { metronome != nil }

    /// Starts `pattern` at `now`, replacing whatever was playing.
    public mutating func play(_ pattern: HapticPattern, now: Double) {
        self.pattern = pattern
        startSeconds = now
    }

    /// Whether the motor should be on at `now`; ends the pattern once it is over.
    public mutating func motorShouldRun(now: Double) -> Bool {
        guard let pattern else { return metronomeShouldRun(now: now) }
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
        return metronomeShouldRun(now: now)
    }

    private func metronomeShouldRun(now: Double) -> Bool {
        guard let metronome, now >= metronome.origin else { return false }
        let tick = HapticPattern.metronomeTick.segments[0]
        let phase = (now - metronome.origin).truncatingRemainder(dividingBy: metronome.period)
        guard phase < tick.durationSeconds else { return false }
        return (phase.truncatingRemainder(dividingBy: pwmPeriodSeconds) / pwmPeriodSeconds) < tick.strength
    }

    /// When the motor level may next change, so the owner can sleep until then.
    public func nextChangeSeconds(after now: Double) -> Double? {
        guard let pattern else {
            guard let metronome else { return nil }
            let phase = max(0, now - metronome.origin).truncatingRemainder(dividingBy: metronome.period)
            let tick = HapticPattern.metronomeTick.segments[0].durationSeconds
            return phase < tick ? now + pwmPeriodSeconds / 4 : now + (metronome.period - phase)
        }
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
