/// Takes sudden steps of level out of one PPG channel, before its DC blocker.
///
/// A cheap sensor changes its own exposure (LED current, gain or offset) now and then, and the
/// level then jumps within one sample; so does a sensor whose reading hits its rail for a
/// moment. Blood volume cannot: the steepest part of a pulse, the systolic upstroke, takes
/// 100-200 ms, so in one 40 ms bin the signal moves by at most about the pulse's amplitude,
/// a few times its typical change from bin to bin. A change of `stepRatio` times the typical
/// change (a running mean of |change| over `typicalChangeSeconds`, into which a step enters
/// only up to the limit) is a step of level: it is subtracted from the bin and every later
/// one, as the offset it is. The DC blocker then sees no step, so the window is neither
/// withheld for a jump of level nor filled with the blocker's transient; the pulse's own
/// change within that one bin is lost with it.
///
/// Before `typicalChangeSeconds` of changing bins have set the typical change, nothing is taken
/// out.
/// Taking the band off makes a step too; so the signal after a step must show a pulse again
/// before the window counts (`ChannelQuality`, `binsSinceStep`).
struct LevelSteps {
    let stepRatio: Double
    let typicalChangeBins: Int
    /// The sum of the steps taken out so far, in the channel's units.
    private(set) var offset = 0.0
    /// Bins since the newest step taken out (`Int.max`: none since the start).
    private(set) var binsSinceStep = Int.max
    private var previous = 0.0
    private var typicalChange = 0.0
    private var started = false
    /// Changes seen (bins that differ from the one before).
    private var seen = 0

    init(stepRatio: Double, typicalChangeSeconds: Double, rateHz: Double) {
        self.stepRatio = stepRatio
        typicalChangeBins = max(1, Int((typicalChangeSeconds * rateHz).rounded()))
    }

    /// Forgets the level and the typical change (after a break in the samples).
    mutating func reset() {
        offset = 0
        binsSinceStep = Int.max
        previous = 0
        typicalChange = 0
        started = false
        seen = 0
    }

    /// The bin's value `x` with the steps so far taken out. A bin equal to the one before
    /// (a stuck or saturated reading) tells nothing of the typical change and leaves it as it
    /// was: else a sensor stuck at its start would make every later change a step.
    mutating func corrected(_ x: Double) -> Double {
        defer { previous = x; started = true }
        guard started else { return x - offset }
        if binsSinceStep < Int.max { binsSinceStep += 1 }
        let change = abs(x - previous)
        guard change > 0 else { return x - offset }
        seen += 1
        let limit = stepRatio * typicalChange
        if seen > typicalChangeBins, change > limit {
            offset += x - previous
            binsSinceStep = 0
        }
        // The running mean: a plain mean while it is being set, then exponential.
        let weight = 1 / Double(min(seen, typicalChangeBins))
        typicalChange += (min(change, seen > typicalChangeBins ? limit : change) - typicalChange) * weight
        return x - offset
    }
}
