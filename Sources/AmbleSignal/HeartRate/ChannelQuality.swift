/// Whether one PPG channel can be used over the analysis window.
///
/// - flat: the raw value did not change (a saturated or disconnected sensor);
/// - clipped: more than `maximumClippedFraction` of the window sat stuck at the window's
///   highest or lowest raw value (the ADC rail, or the top of every pulse cut off);
/// - levelJump: the raw level moved by more than `maximumRangeToPulse` times the pulse
///   band's robust standard deviation (the band taken off or put on, a sudden change of
///   contact): the filters' transient would masquerade as a rhythm;
/// - noise: the power above 5 Hz, where a pulse has almost none, reaches
///   `maximumNoiseRatio`² times the power in the pulse band (off the wrist, only sensor
///   noise is left; white noise gives a ratio of about 1.4).
enum ChannelQuality: Equatable {
    case usable, flat, clipped, levelJump, noise

    static let maximumClippedFraction = 0.1
    static let maximumRangeToPulse = 60.0
    static let maximumNoiseRatio = 1.0

    /// `raw`: bin means; `stuck`: 1 where a bin was stuck; `band`: the pulse band (0.5–4 Hz)
    /// and `bandSpread` its robust standard deviation (scaled MAD); `high`: above 5 Hz. All
    /// over the same `count` bins.
    static func judge(raw: [Double], stuck: [Double], band: [Double], bandSpread spread: Double, high: [Double], count: Int) -> ChannelQuality {
        var lo = raw[0], hi = raw[0]
        for i in 1..<count {
            lo = min(lo, raw[i])
            hi = max(hi, raw[i])
        }
        let tolerance = 1e-9 * max(1, abs(lo), abs(hi))
        guard hi - lo > tolerance else { return .flat }
        var atRail = 0
        for i in 0..<count where stuck[i] > 0 && (hi - raw[i] <= tolerance || raw[i] - lo <= tolerance) {
            atRail += 1
        }
        if Double(atRail) > maximumClippedFraction * Double(count) { return .clipped }

        if hi - lo > maximumRangeToPulse * spread { return .levelJump }

        var bandPower = 0.0, highPower = 0.0
        for i in 0..<count {
            bandPower += band[i] * band[i]
            highPower += high[i] * high[i]
        }
        if highPower >= maximumNoiseRatio * maximumNoiseRatio * bandPower { return .noise }
        return .usable
    }
}
