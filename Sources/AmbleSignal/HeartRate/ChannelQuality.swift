/// Whether one PPG channel can be used over the analysis window, from its raw bin means and
/// stuck flags (see `ResampledBin.stuck`).
///
/// - flat: the raw value did not change over the window (sensor saturated or disconnected);
/// - clipped: more than `maximumClippedFraction` of the window sat stuck at the window's
///   highest or lowest raw value (the ADC rail, or the top of the pulse cut off).
struct ChannelQuality: Equatable {
    enum Verdict: Equatable { case usable, flat, clipped }

    static let maximumClippedFraction = 0.1

    static func judge(raw: [Double], stuck: [Double], count: Int) -> Verdict {
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
        return Double(atRail) > maximumClippedFraction * Double(count) ? .clipped : .usable
    }
}
