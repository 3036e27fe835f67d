/// Short bouts: the few steps across a kitchen or to a door, counted by their landings.
///
/// A walk needs a clear rhythm over two 10-s windows (`WalkTracker`), which a bout of 4-11 steps
/// (2-6 s) fills only in part: on days at home most bouts never start a walk. Each step of a
/// bout still lands, and a landing sends a heel strike up the arm (`HeelStrikes`). A run of
/// landings counts as a bout when:
/// - it holds at least half the shortest walk (`minimumWalkSteps` / 2: three strides, each foot
///   landing three times), each interval a walker's step (from a runner's typical cadence,
///   1.5 × `typicalCadenceStepsPerMinute`, down to the slowest clear rhythm,
///   `clearRhythmBelowStepsPerMinute`: 0.38-1.2 s) and within `periodTolerance` of the one
///   before: a gesture's impulses come singly or in irregular bursts, and scrubbing's at 3-5 Hz;
/// - its landings are alike: none under `HeelStrikes.relativeSize` of the largest (each foot
///   lands alike; a smaller impulse is the arm's, as for a window's heel strikes);
/// - its movement is a walker's: at least `verticalShare` of it along gravity (walking moves
///   the body up and down; typing, stirring and wiping move the hand across), above the sensor's
///   noise (`noiseFloorG`) and below a runner's (`runningRMSG`; washing up and arms swung at the
///   side move the wrist harder than walking does). Three axes only: on |a| alone nothing tells
///   a bout's landings from a hand's reversals (docs/steps-history.md).
/// Each landing is one step: landings one foot's only (the stride) are counted at half, never
/// double. A bout is counted only where no counted walk covers it (the walk counts those steps),
/// so it is held until no walk can still start over it: `holdSeconds` after it and after the
/// last walk's end.
///
/// Pure: landings, the signal's energy and `now` in, released bouts out; constant memory.
struct ShortBouts: Sendable {
    /// Bouts held at once: a bout lasts at least five of a walker's shortest steps (1.9 s) and is
    /// held for `holdSeconds` (30 s): sixteen fill that time with bouts; more are dropped (the
    /// newest), and a walk that long is counted as a walk.
    static let capacity = 16

    private let leastLandings: Int
    private let shortestStepSeconds: Double
    private let longestStepSeconds: Double
    private let tolerance: Double
    private let verticalShare: Double
    private let noiseFloorG: Double
    private let runningRMSG: Double
    /// How long a bout is held after it, and after the end of the last walk: a walk's start is
    /// searched back up to `StepCounter.envelopeSeconds`, and a walk that resumes one within a
    /// window counts from it.
    let holdSeconds: Double
    /// How far beyond a counted walk its own landings may lie, seconds: half a window. A walk's
    /// edges are placed within half a window of its first and last frames, where the movement
    /// fades, which reaches about three quarters of a step past the last landing; a run that
    /// near is the walk's (without this margin Pebble's walking went 3.4 -> 3.5 %).
    private let reachSeconds: Double

    /// The run under way: its first and last landings, the interval before the last, and the
    /// signal's running energies at its first landing.
    private var first: (timeSeconds: Double, energy: SIMD4<Double>)?
    private var lastTimeSeconds = -Double.infinity
    private var lastInterval: Double?
    private var landings = 0
    /// The smallest and largest landing of the run, and the last one, g.
    private var amplitudes = (smallest: 0.0, largest: 0.0)
    private var lastAmplitudeG = 0.0
    /// Running sums of the band-passed |a|², the three axes' squares summed, and samples (a
    /// run's are the difference of two; at the sums a month of wearing reaches, about 10^7, a
    /// difference keeps eight decimal places).
    private var energy = SIMD4<Double>()
    private var energyAtLast = SIMD4<Double>()

    /// Runs of landings that passed, waiting to be released: a step a landing, over the run.
    private(set) var pending: [StepRelease] = []

    init(parameters: StepCounter.Parameters, holdSeconds: Double) {
        leastLandings = Swift.max(2, Int((parameters.minimumWalkSteps / 2).rounded(.up)))
        // A bout is walked: its steps come slower than a runner's.
        shortestStepSeconds = 60 / parameters.typicalRunningCadenceStepsPerMinute
        longestStepSeconds = 60 / parameters.clearRhythmBelowStepsPerMinute
        tolerance = parameters.periodTolerance
        verticalShare = parameters.verticalShare
        noiseFloorG = parameters.noiseFloorG
        runningRMSG = parameters.runningRMSG
        self.holdSeconds = holdSeconds
        reachSeconds = parameters.windowSeconds / 2
        pending.reserveCapacity(Self.capacity)
    }

    mutating func reset() {
        first = nil
        lastTimeSeconds = -.infinity
        lastInterval = nil
        landings = 0
        energy = SIMD4()
        pending.removeAll(keepingCapacity: true)
    }

    /// Takes one analysis sample's band-passed |a| and axes, g.
    mutating func append(magnitude: Double, x: Double, y: Double, z: Double) {
        energy += SIMD4(magnitude * magnitude, x * x + y * y + z * z, 1, 0)
    }

    /// Takes a landing of `amplitudeG` at `timeSeconds`: it goes on the run under way, or ends it
    /// and starts the next (with the landing before it, when the two are a bout's).
    mutating func landed(atSeconds time: Double, amplitudeG: Double) {
        let interval = time - lastTimeSeconds
        let isStep = interval >= shortestStepSeconds && interval <= longestStepSeconds
        if isStep, first != nil, lastInterval.map({ WalkTracker.same(interval, $0, tolerance: tolerance) }) ?? true,
           Self.alike(Swift.min(amplitudes.smallest, amplitudeG), Swift.max(amplitudes.largest, amplitudeG)) {
            landings += 1
            amplitudes = (Swift.min(amplitudes.smallest, amplitudeG), Swift.max(amplitudes.largest, amplitudeG))
        } else {
            closeRun()
            if isStep, Self.alike(Swift.min(lastAmplitudeG, amplitudeG), Swift.max(lastAmplitudeG, amplitudeG)) {
                first = (lastTimeSeconds, energyAtLast)
                landings = 2
                amplitudes = (Swift.min(lastAmplitudeG, amplitudeG), Swift.max(lastAmplitudeG, amplitudeG))
            } else {
                first = (time, energy)
                landings = 1
                amplitudes = (amplitudeG, amplitudeG)
            }
        }
        lastInterval = landings >= 2 ? interval : nil
        lastTimeSeconds = time
        lastAmplitudeG = amplitudeG
        energyAtLast = energy
    }

    /// Whether landings from `smallest` to `largest` g are one walker's: each foot lands alike,
    /// and an impulse under `HeelStrikes.relativeSize` of the larger ones is the arm's.
    private static func alike(_ smallest: Double, _ largest: Double) -> Bool {
        smallest >= HeelStrikes.relativeSize * largest
    }

    /// Ends the run under way when its next landing is overdue.
    mutating func advance(toSeconds now: Double) {
        if first != nil, now - lastTimeSeconds > longestStepSeconds { closeRun() }
    }

    /// The run under way as a bout, if it would pass were it to end now.
    func runAsBout() -> StepRelease? {
        guard let start = first, landings >= leastLandings else { return nil }
        let sums = energyAtLast - start.energy
        guard sums[2] > 0 else { return nil }
        let rms = (sums[0] / sums[2]).squareRoot()
        guard rms >= noiseFloorG, rms < runningRMSG, sums[0] >= verticalShare * sums[1] else { return nil }
        return StepRelease(steps: landings, fromSeconds: start.timeSeconds, throughSeconds: lastTimeSeconds)
    }

    /// Ends the run under way; keeps it as a bout when it passes.
    mutating func closeRun() {
        if let bout = runAsBout(), pending.count < Self.capacity { pending.append(bout) }
        first = nil
        landings = 0
        lastInterval = nil
    }

    /// Drops the bouts that a counted walk from `start` to `stop` (seconds) covers, or that lie
    /// within its reach.
    mutating func dropCovered(from start: Double, to stop: Double) {
        let walk = start ... stop, reach = reachSeconds
        pending.removeAll { Self.isCovered($0, by: walk, reach: reach) }
    }

    /// Whether `bout` lies within `reach` seconds of `walk` (none: not covered).
    private static func isCovered(_ bout: StepRelease, by walk: ClosedRange<Double>?, reach: Double) -> Bool {
        guard let walk else { return false }
        return bout.throughSeconds >= walk.lowerBound - reach && bout.fromSeconds <= walk.upperBound + reach
    }

    /// Releases the bouts that no walk can cover any more: held `holdSeconds` past their end and
    /// past `lastWalkEndSeconds`, and ended before the walk under way started (`walkStartSeconds`,
    /// nil when none).
    mutating func release(now: Double, lastWalkEndSeconds: Double?, walkStartSeconds: Double?) -> StepReleases {
        var released = StepReleases()
        pending.removeAll { bout in
            let due = bout.throughSeconds < walkStartSeconds ?? .infinity
                && now - Swift.max(bout.throughSeconds, lastWalkEndSeconds ?? -.infinity) > holdSeconds
            if due { released.append(bout) }
            return due
        }
        return released
    }

    /// What the end of the stream releases: every bout held and the run under way, but those
    /// that the counted walks `covered` and `alsoCovered` (seconds) cover.
    func finalRelease(covered: ClosedRange<Double>?, alsoCovered: ClosedRange<Double>?) -> StepReleases {
        func isCovered(_ bout: StepRelease) -> Bool {
            Self.isCovered(bout, by: covered, reach: reachSeconds) || Self.isCovered(bout, by: alsoCovered, reach: reachSeconds)
        }
        var released = StepReleases()
        for bout in pending where !isCovered(bout) { released.append(bout) }
        if let bout = runAsBout(), pending.count < Self.capacity, !isCovered(bout) { released.append(bout) }
        return released
    }
}

