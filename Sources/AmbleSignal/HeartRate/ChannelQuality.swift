/// Whether one PPG channel can be used over the analysis window.
///
/// - flat: the raw value did not change (a saturated or disconnected sensor);
/// - clipped: more than `maximumClippedFraction` of the window sat stuck at the window's
///   highest or lowest raw value (the ADC rail, or the top of every pulse cut off);
/// - levelJump: the DC-blocked signal swings over more than `maximumSwingToSpread` times
///   its robust standard deviation (scaled MAD): the level jumped (the band taken off or put
///   on, a sudden change of contact) and the DC blocker's transient fills the window. A slow
///   drift of the level, however large, is blocked and does not count. A step within one bin
///   has been taken out before (`LevelSteps`); it counts as a jump only until the signal after
///   it spans one beat at the slowest rate, and then only if that part is noise;
/// - noise: the power above 5 Hz, where a pulse has almost none, reaches
///   `maximumNoiseRatio`² times the power in the pulse band (off the wrist, only sensor
///   noise is left; white noise gives a ratio of about 1.4).
enum ChannelQuality: Equatable {
    case usable, flat, clipped, levelJump, noise

    /// The pulse band is the DC-blocked signal low-passed here, Hz (220 bpm is 3.7 Hz).
    static let pulseBandHighHz = 4.0
    /// Noise is measured above this, Hz, where a pulse has almost no power.
    static let noiseBandLowHz = 5.0
    static let maximumClippedFraction = 0.1
    /// A pulse, or an artefact, spans a few robust standard deviations (a sinusoid ±1.4, a
    /// peaked pulse wave ±3-4); sixty is a jump of level tens of times the pulse.
    static let maximumSwingToSpread = 60.0
    static let maximumNoiseRatio = 1.0

    /// `raw`: bin means; `stuck`: 1 where a bin was stuck; `dcBlocked`: the high-passed signal
    /// and `spread` its scaled MAD; `band`: the pulse band (0.5–4 Hz); `high`: above 5 Hz. All
    /// over the same `count` bins, oldest first. `binsSinceStep`: bins since a step of level
    /// was taken out of the channel, judged once there are `binsToJudgeStep` of them.
    static func judge(raw: [Double], stuck: [Double], dcBlocked: [Double], spread: Double, band: [Double], high: [Double],
                      count: Int, binsSinceStep: Int = .max, binsToJudgeStep: Int = 0) -> ChannelQuality {
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

        var swingLow = dcBlocked[0], swingHigh = dcBlocked[0]
        for i in 1..<count {
            swingLow = min(swingLow, dcBlocked[i])
            swingHigh = max(swingHigh, dcBlocked[i])
        }
        if swingHigh - swingLow > maximumSwingToSpread * spread { return .levelJump }

        if isNoise(band: band, high: high, bins: 0..<count) { return .noise }
        if binsSinceStep < count {
            if binsSinceStep < binsToJudgeStep { return .levelJump }
            if isNoise(band: band, high: high, bins: (count - 1 - binsSinceStep)..<count) { return .noise }
        }
        return .usable
    }

    /// Whether the power above 5 Hz reaches that of the pulse band over `bins`.
    static func isNoise(band: [Double], high: [Double], bins: Range<Int>) -> Bool {
        var bandPower = 0.0, highPower = 0.0
        for i in bins {
            bandPower += band[i] * band[i]
            highPower += high[i] * high[i]
        }
        return highPower >= maximumNoiseRatio * maximumNoiseRatio * bandPower
    }
}
