/// Decides from successive `RhythmFrame`s when the wearer walks and at what cadence, and counts
/// the steps of each walk as its cadence integrated over its duration.
///
/// - **Start:** `confirmFrames` frames in a row whose rhythm is clear (periodicity at least
///   `periodicityToStart`, or `periodicityToStartSlowWalk` below the slow-walk cadence; half
///   the way from `periodicityToContinue` to it more where the window's heel strikes do not
///   fall on its step) and agrees within `periodTolerance`; or, for a weak but steady rhythm,
///   as many frames as it takes to gather the same evidence, each with heel strikes on its
///   step (`gatheredRun`).
/// - **Continue:** while the periodicity at the rhythm followed (at its period, or half or twice
///   it) stays at least `periodicityToContinue`, or the window's heel strikes fall on its step.
///   A clear rhythm at an unrelated period takes over (the walker changed pace by more than the
///   tolerance in one window).
/// - **Step or stride:** each frame with some rhythm of its own (`periodicityToContinue`) votes;
///   the walk follows the majority of its frames, once the votes for the other reading add up
///   to more than both its support and `leastVotesToSwitch`.
/// - **Edges:** a window cannot tell where inside it a walk starts or ends; the start and end
///   are placed where the short-time RMS of |a| (over one stride) falls below
///   `edgeEnergyShare` of the walk's typical RMS, within half a window of the first and last
///   walking frame.
/// - **Release:** steps are released once no later end can remove them (half a window after
///   the frame that counted them), and only once the walk holds `minimumWalkSteps`.
///
/// The tracker is pure: frames and the recent signal in, steps out.
struct WalkTracker: Sendable {
    /// The recent band-passed |a| at the analysis rate, for placing a walk's edges.
    /// It is the counter's own ring of recent values, not a copy: a frame that starts or ends
    /// no walk does not read it.
    struct Envelope {
        /// The recent values; the newest was sampled at `newestSeconds`.
        var values: RingBuffer<Double>
        var newestSeconds: Double
        var rateHz: Double

        init(values: RingBuffer<Double>, newestSeconds: Double, rateHz: Double) {
            self.values = values
            self.newestSeconds = newestSeconds
            self.rateHz = rateHz
        }
    }

    private let parameters: StepCounter.Parameters
    /// What the band knows of the activity (`StepCounter.Context`); nil: nothing.
    var context: StepCounter.Context?
    private let hopSeconds: Double
    private let windowSeconds: Double
    private let confirmFrames: Int
    /// The most frames a start may gather evidence from: one window's worth.
    private let evidenceFrames: Int

    /// Recent frames while no walk is under way (the newest last).
    private var recent: [RhythmFrame] = []

    private struct Walk {
        /// The step period followed, seconds.
        var stepPeriodSeconds: Double
        /// Votes of the frames for the step period followed, for twice it and for half it: a
        /// window may read a walk's period as one step or as two, so the walk follows the
        /// reading most of its frames agree on.
        var support: Double
        var votesForDouble = 0.0
        var votesForHalf = 0.0
        /// The step period the support and votes were gathered at (see `follow`).
        var votedPeriodSeconds: Double
        /// Start of the walk, seconds; steps accrued from it up to `countedThroughSeconds`.
        var startSeconds: Double
        var countedThroughSeconds: Double
        var steps = 0.0
        var releasedSteps = 0
        /// Steps up to this time are released and final; later ones may still be re-read.
        var releasedThroughSeconds: Double
        /// (time, steps accrued by then, steps per second before it) at each frame not yet final.
        var pending: [(timeSeconds: Double, steps: Double, rate: Double)] = []
        var lastCentreSeconds: Double
        /// The step period of the last few seconds, seconds (the pace now), when known.
        var recentStepPeriodSeconds: Double?
        /// A clear rhythm at a step period unrelated to the walk's, and the frames in a row that
        /// have read it: a change of pace beyond the range the last seconds' pace is searched in.
        var otherRhythm: (stepPeriodSeconds: Double, frames: Int)?

        func steps(at time: Double) -> Double {
            for entry in pending where entry.timeSeconds >= time {
                return entry.steps - (entry.timeSeconds - time) * entry.rate
            }
            return steps + (time - countedThroughSeconds) / stepPeriodSeconds
        }

        mutating func accrue(through time: Double) {
            guard time > countedThroughSeconds else { return }
            let rate = 1 / stepPeriodSeconds
            steps += (time - countedThroughSeconds) * rate
            countedThroughSeconds = time
            pending.append((time, steps, rate))
        }

        /// Reads the steps not yet released at a new step period: `ratio` = old period / new.
        mutating func rescaleUnreleased(by ratio: Double) {
            let fixed = steps(at: releasedThroughSeconds)
            pending = pending.map { entry in
                entry.timeSeconds <= releasedThroughSeconds ? entry
                    : (entry.timeSeconds, fixed + (entry.steps - fixed) * ratio, entry.rate * ratio)
            }
            steps = fixed + (steps - fixed) * ratio
        }
    }

    private var walk: Walk?

    /// The walk that ended last: where it ended, its step period, and where a walk that
    /// resumes it counts from (its end; its start when it was too short to count on its own).
    /// A walk that resumes at its pace within a window is the same walk (`confirmedWalk`).
    private var lastEnd: (seconds: Double, stepPeriodSeconds: Double, resumeFromSeconds: Double)?
    /// How far a resumed walk's pace may differ from the one before the gap, as a share: the
    /// walk's own pace varies that much (the cadence published is held within it too).
    static let resumedPaceTolerance = 0.3
    /// The votes for the other reading (step or stride) must add up to more than this, in units
    /// of one frame's clear vote, to turn a walk: a walk whose frames have all been ties
    /// (evidence and prior cancelling, weight near 0) holds no support, and a frame a hair past
    /// the tie turned it. Any value from 0.1 to 0.5 gives the same development figures and
    /// leave-one-device-out (the draws move by 0.1 point at most). Votes do not fade: near-ties
    /// leaning one way over a long walk still add up and turn it, later.
    static let leastVotesToSwitch = 0.25
    /// A last-seconds pace within this share of the one read before it is the same pace read
    /// again, and is averaged with it: step-to-step variation while walking is 2-5 %.
    static let paceAveragingTolerance = 0.05
    /// A reading this many times shorter than the step followed is the same rhythm: the
    /// period followed may be a repeat of two or three of its periods.
    static let shorterRepeats: [Double] = [2, 3]
    /// A clear reading this many times the step followed is the walk's own rhythm repeating
    /// after more steps (a stride and a half, two strides), not a slower pace (twice the step,
    /// one stride, is a vote for the stride).
    static let longerRepeats: [Double] = [3, 4]

    /// Whether the frame's base period is the followed step's rhythm repeating after three or
    /// four steps (`longerRepeats`). Its step-or-stride vote is then about that repeat, not
    /// about the walk: a base of three steps voted "stride" reads a pace 1.5 times slower, one
    /// of four steps a vote for twice the step. In a slow walk, where the wrist's own movement
    /// makes the window's longer lags as strong as the step's, such frames turned a walk at
    /// 60 steps/min to 40 or 30 (`WristWalk`), and a clear one held for two frames was taken as
    /// a change of pace.
    static func repeatsFollowedStep(_ frame: RhythmFrame, _ step: Double, tolerance: Double) -> Bool {
        guard let base = frame.basePeriodSeconds else { return false }
        return longerRepeats.contains { same(base, step * $0, tolerance: tolerance) }
    }

    /// Seconds of the walks counted so far, from each start to its end.
    private(set) var walkingSeconds = 0.0
    /// Set to record every walk that ends into `walkRecords` (a developer's trace; memory grows).
    var recordsWalks = false
    /// Each ended walk: its start and end, seconds, and its steps (counted or not).
    private(set) var walkRecords: [(startSeconds: Double, endSeconds: Double, steps: Int)] = []

    init(parameters: StepCounter.Parameters, hopSeconds: Double) {
        self.parameters = parameters
        self.hopSeconds = hopSeconds
        windowSeconds = parameters.windowSeconds
        confirmFrames = Swift.max(1, Int((parameters.secondsToConfirm / hopSeconds).rounded()))
        evidenceFrames = Swift.max(confirmFrames, Int((parameters.windowSeconds / hopSeconds).rounded()))
        recent.reserveCapacity(evidenceFrames + 1)
    }

    var isWalking: Bool { walk != nil }

    /// The step period of the walk under way, seconds (nil when none): the counter measures each
    /// new window's periodicity there (and at the stride).
    var followedStepPeriodSeconds: Double? { walk?.stepPeriodSeconds }

    /// Where the walk under way starts, seconds (nil when none).
    var walkStartSeconds: Double? { walk?.startSeconds }
    /// Where the walk under way starts when it is counted already (some of its steps released),
    /// seconds: what it covers from there is its own.
    var countedWalkStartSeconds: Double? { walk.flatMap { $0.releasedSteps > 0 ? $0.startSeconds : nil } }
    /// Where the last walk ended, seconds (nil when none since the stream began).
    var lastWalkEndSeconds: Double? { lastEnd?.seconds }
    /// The last walk that ended with its steps counted (`minimumWalkSteps` or more): its start
    /// and end, seconds.
    private(set) var lastCountedWalkSpan: ClosedRange<Double>?

    /// Steps per minute of the walk under way (its newest frame), 0 when none.
    var cadenceStepsPerMinute: Double { walk.map { 60 / ($0.recentStepPeriodSeconds ?? $0.stepPeriodSeconds) } ?? 0 }

    /// Forgets everything (the stream restarted); steps not yet released are dropped.
    mutating func reset() {
        walk = nil
        lastEnd = nil
        lastCountedWalkSpan = nil
        recent.removeAll(keepingCapacity: true)
    }

    /// The latest release: its steps and when they were taken (kept apart from the steps the
    /// calls return, so that the frames that release nothing, nearly all, pass only a count).
    private(set) var lastRelease = StepRelease.none

    /// Takes the newest frame; returns the steps it releases (`lastRelease` says when they
    /// were taken).
    mutating func process(_ frame: RhythmFrame, envelope: Envelope) -> Int {
        if walk != nil { return follow(frame, envelope: envelope) }
        recent.append(frame)
        if recent.count > evidenceFrames { recent.removeFirst() }
        guard let started = confirmedWalk(envelope: envelope) else { return 0 }
        walk = started
        recent.removeAll(keepingCapacity: true)
        return 0
    }

    /// Ends the walk under way at the end of the stream: its end is placed as at any end.
    mutating func finish(envelope: Envelope) -> Int {
        guard walk != nil else { return 0 }
        return end(envelope: envelope)
    }

    // MARK: Start

    private func confirmedWalk(envelope: Envelope) -> Walk? {
        guard let (run, stepPeriod) = clearRun() ?? gatheredRun() else { return nil }
        // The frames that start a walk look partly at what came before it: their reading of
        // step or stride starts the walk but carries no weight against later ones.
        let support = 0.0
        let first = run.first!.centreSeconds
        let last = run.last!.centreSeconds
        var start = edge(from: first, stepPeriod: stepPeriod, typicalOver: first ... Swift.max(first, envelope.newestSeconds),
                         envelope: envelope, forward: false)
        if let previous = lastEnd {
            // A walk cannot start before the one before it ended: both edges are searched
            // within half a window, and the steps between them would be counted twice.
            start = Swift.max(start, previous.seconds)
            // A walk that resumes at the pace of the one that just ended, the wrist moving all
            // the while, is the same walk: its rhythm was too weak for a moment (a slow walk's,
            // or one with a turn), and a rhythm takes a window to be seen again. The gap is
            // walked.
            if start - previous.seconds <= windowSeconds,
               Self.same(stepPeriod, previous.stepPeriodSeconds, tolerance: Self.resumedPaceTolerance),
               recent.allSatisfy({ $0.centreSeconds < previous.seconds || $0.rmsG >= parameters.noiseFloorG }) {
                start = previous.resumeFromSeconds
            }
        }
        var walk = Walk(stepPeriodSeconds: stepPeriod, support: support, votedPeriodSeconds: stepPeriod, startSeconds: start,
                        countedThroughSeconds: start, releasedThroughSeconds: start, lastCentreSeconds: last)
        walk.accrue(through: last + hopSeconds / 2)
        return walk
    }

    private func clearLevel(stepPeriod: Double) -> Double {
        // During a mindful walk walking is presumed, and a slow rhythm is what is expected, not
        // a car's or a chair's: the presumption weighs as much as landings do (half the way from
        // continuing to starting, `unlandedMargin`). Not more: a start at the continuing level
        // counted desks and dressing as walks (300-560 false steps per hour against 100 here;
        // docs/steps-history.md).
        if context != nil { return parameters.periodicityToStart - unlandedMargin }
        return 60 / stepPeriod < parameters.clearRhythmBelowStepsPerMinute ? parameters.periodicityToStartSlowWalk : parameters.periodicityToStart
    }

    /// A walk shows a rhythm and landings one step apart; a rhythm without them is as often a
    /// hand's or a vehicle's, and must be clearer: by half the way from continuing to starting
    /// (a steering wheel's and a desk's rhythms stay just below the start level).
    private var unlandedMargin: Double { (parameters.periodicityToStart - parameters.periodicityToContinue) / 2 }

    /// The newest `confirmFrames` frames when they agree on a base period and each shows a
    /// clear rhythm; and the step period they read.
    private func clearRun() -> (ArraySlice<RhythmFrame>, Double)? {
        let run = recent.suffix(confirmFrames)
        guard run.count == confirmFrames, run.allSatisfy({ $0.isCandidate && $0.basePeriodSeconds != nil }) else { return nil }
        let periods = run.map { $0.basePeriodSeconds! }
        let median = periods.sorted()[periods.count / 2]
        guard periods.allSatisfy({ Self.same($0, median, tolerance: parameters.periodTolerance) }) else { return nil }
        let votes = run.reduce(0.0) { $0 + $1.strideVote }
        let stepPeriod = votes > 0 ? median / 2 : median
        let clear = clearLevel(stepPeriod: stepPeriod)
        guard run.allSatisfy({ $0.periodicity >= clear + ($0.heelStrikesOnStep ? 0 : unlandedMargin) }) else { return nil }
        return (run, stepPeriod)
    }

    /// A walk whose rhythm is weak but steady: the newest frames that agree on a step period
    /// (each reading it on its own), each with some rhythm (periodicity above
    /// `periodicityToContinue`) and with heel strikes one such step apart, once the evidence
    /// they gather (the sum of their periodicities above that level) reaches what clear frames
    /// gather in `secondsToConfirm`; and that step period. A walk with turns, or a slow one,
    /// holds its rhythm for seconds but seldom clearly in one window; a car's or a chair's
    /// rhythm has no landings.
    private func gatheredRun() -> (ArraySlice<RhythmFrame>, Double)? {
        let floor = parameters.periodicityToContinue
        var evidence = 0.0
        for n in 1 ... Swift.max(1, recent.count) where n <= recent.count {
            let frame = recent[recent.count - n]
            guard frame.isCandidate, frame.periodicity > floor, frame.heelStrikesOnStep, frame.stepPeriodSeconds != nil else { return nil }
            evidence += frame.periodicity - floor
            let run = recent.suffix(n)
            let steps = run.map { $0.stepPeriodSeconds! }.sorted()
            let median = steps[steps.count / 2]
            guard steps.allSatisfy({ Self.same($0, median, tolerance: parameters.periodTolerance) }) else { return nil }
            // (During a mindful walk the run must still hold as long as a clear start's.)
            if evidence >= Double(confirmFrames) * (clearLevel(stepPeriod: median) - floor) - 1e-9,
               context == nil || n >= confirmFrames { return (run, median) }
        }
        return nil
    }

    // MARK: Following

    private mutating func follow(_ frame: RhythmFrame, envelope: Envelope) -> Int {
        guard var current = walk else { return 0 }
        // A walk goes on while its rhythm holds, or, once it holds the shortest walk's steps,
        // while its landings still fall one of its steps apart: a slow walk's window holds only
        // 6-12 steps, and steps that vary by a tenth or more smear its correlation below the
        // continuing level while each step still lands (`WristWalk` at 60 steps/min; the Sensor
        // Watch slow walks). A rhythm that has not yet made a walk (a hand scrubbing at 3.5 Hz,
        // whose impulses fall one brisk step apart as readily as landings) must hold on its own.
        let landing = frame.heelStrikesOnFollowed && current.steps >= parameters.minimumWalkSteps
        guard frame.rmsG >= parameters.noiseFloorG,
              frame.periodicityAtFollowed >= parameters.periodicityToContinue || landing else {
            return end(envelope: envelope)
        }
        // A window whose own rhythm is too weak to keep a walk going says nothing about its
        // period: it votes neither step nor stride (washing up's scrubbing, read as a step of a
        // third of the walk's, switched a slow false start to 200 steps/min).
        let otherReading = vote(frame, into: &current)
        if !otherReading { current.otherRhythm = nil }
        // The pace of the last few seconds is the cadence the band publishes (the window's
        // period lags a change of pace by half a window).
        // A reading far from the walk's (a misread in a changing window) is not published:
        // the pace published last stands.
        // A reading near the one before is averaged with it (the last 4 s hold only a few
        // steps); one further off is a change of pace, taken as it is.
        if let recent = frame.recentStrideSeconds.map({ $0 / 2 }), Self.same(recent, current.stepPeriodSeconds, tolerance: Self.resumedPaceTolerance) {
            current.recentStepPeriodSeconds = current.recentStepPeriodSeconds.map {
                Self.same($0, recent, tolerance: Self.paceAveragingTolerance) ? ($0 + recent) / 2 : recent
            } ?? recent
        }
        if let recent = current.recentStepPeriodSeconds, frame.periodicityAtFollowed < parameters.periodicityToStart {
            // The window's rhythm is fading while the last seconds keep one nearby: the walker
            // changed pace; follow it.
            current.stepPeriodSeconds = recent
        }
        if context != nil, !Self.same(current.stepPeriodSeconds, current.votedPeriodSeconds, tolerance: parameters.periodTolerance) {
            // The pace changed, step by step, beyond the tolerance: the frames that voted at the
            // old pace say nothing of whether the new period is a step or a stride. During a
            // mindful walk the expected cadence makes their votes sure, and a surge's votes held
            // the walk at twice its pace once it slowed again (45 -> 76 -> 45 steps/min).
            current.support = 0
            current.votesForDouble = 0
            current.votesForHalf = 0
            current.votedPeriodSeconds = current.stepPeriodSeconds
        }
        current.accrue(through: frame.centreSeconds + hopSeconds / 2)
        current.lastCentreSeconds = frame.centreSeconds
        walk = current
        return release(upTo: frame.centreSeconds - windowSeconds / 2)
    }

    /// The frame's reading of the period, when its own rhythm is strong enough, voted into the
    /// walk followed: the same step, its double, a shorter repeat, or a new pace. Whether it
    /// read another rhythm than the walk's (the walk's `otherRhythm` then stays).
    private func vote(_ frame: RhythmFrame, into current: inout Walk) -> Bool {
        var otherReading = false
        if frame.isCandidate, frame.periodicity >= parameters.periodicityToContinue, let reading = frame.stepPeriodSeconds,
           !Self.repeatsFollowedStep(frame, current.stepPeriodSeconds, tolerance: parameters.periodTolerance) {
            let followed = current.stepPeriodSeconds
            let tolerance = parameters.periodTolerance
            let weight = frame.centreSeconds - windowSeconds / 2 < current.startSeconds ? 0 : weight(frame)
            if Self.same(reading, followed, tolerance: tolerance) {
                current.stepPeriodSeconds = reading
                current.support += weight
            } else if Self.same(reading, 2 * followed, tolerance: tolerance) {
                current.votesForDouble += weight
                if current.votesForDouble > Swift.max(current.support, Self.leastVotesToSwitch) {
                    current = Self.switched(current, to: reading, votes: current.votesForDouble)
                }
            } else if Self.shorterRepeats.contains(where: { Self.same(reading, followed / $0, tolerance: tolerance) }) {
                // A shorter reading of the same rhythm: the followed period may be a repeat of
                // two or three of its periods.
                current.votesForHalf += weight
                if current.votesForHalf > Swift.max(current.support, Self.leastVotesToSwitch) {
                    current = Self.switched(current, to: reading, votes: current.votesForHalf)
                }
            } else if frame.periodicity >= parameters.periodicityToStart,
                      !Self.longerRepeats.contains(where: { Self.same(reading, followed * $0, tolerance: tolerance) }) {
                // A clear new rhythm that the last few seconds show too, or that holds as long as
                // a walk's start must (the last seconds' pace is searched only within 30 % of the
                // walk's: 45 -> 76 steps/min is beyond it): the walker changed pace by more than
                // the tolerance. A period longer than any step counts toward holding only with
                // the last seconds' stride beside it: alone it can only be called a stride, and a
                // repeat that long is as often the arm's gesture every few seconds as a new pace.
                let held = current.otherRhythm.map { Self.same($0.stepPeriodSeconds, reading, tolerance: tolerance) ? $0.frames + 1 : 1 } ?? 1
                current.otherRhythm = (reading, held)
                if (held >= confirmFrames && !isLongerThanAnyStep(frame)) || frame.recentStrideSeconds.map({ Self.same($0 / 2, reading, tolerance: tolerance) }) == true {
                    current = Self.switched(current, to: reading, votes: weight, rereading: false)
                }
                otherReading = true
            }
        }
        return otherReading
    }

    /// The walk read at another step period from now on. Its steps not yet released were
    /// counted at the old reading; when the new one is an octave of it (the frames changed
    /// their minds on step or stride), they are read again at the new one.
    private static func switched(_ walk: Walk, to stepPeriod: Double, votes: Double, rereading: Bool = true) -> Walk {
        var next = walk
        if rereading { next.rescaleUnreleased(by: walk.stepPeriodSeconds / stepPeriod) }
        // The last seconds' pace was read at the old period: at its octave it moves with the
        // walk (else the fading-rhythm rule below would put the old period back, leaving the
        // rescaled steps at the new one); after a change of pace the frame's own reading
        // replaces it.
        next.recentStepPeriodSeconds = rereading ? walk.recentStepPeriodSeconds.map { $0 * stepPeriod / walk.stepPeriodSeconds } : nil
        next.stepPeriodSeconds = stepPeriod
        next.support = votes
        next.votedPeriodSeconds = stepPeriod
        next.votesForDouble = 0
        next.votesForHalf = 0
        next.otherRhythm = nil
        return next
    }

    /// How much a frame's reading of step or stride counts: as sure as its vote (at most 1),
    /// and nothing when its period is longer than any step (there it can only call the period a
    /// stride, and such a long repeat is as often two strides as one).
    private func weight(_ frame: RhythmFrame) -> Double {
        if isLongerThanAnyStep(frame) { return 0 }
        return Swift.min(1, abs(frame.strideVote))
    }

    /// Whether a frame reads a stride whose period is longer than any step: it can only call it a stride.
    private func isLongerThanAnyStep(_ frame: RhythmFrame) -> Bool {
        frame.strideVote > 0 && (frame.basePeriodSeconds ?? 0) >= 60 / parameters.slowestCadenceStepsPerMinute
    }

    // MARK: End and release

    /// Ends the walk under way; releases its steps not yet released, taken from the last
    /// release's horizon (the walk's start when none came yet) to its end.
    private mutating func end(envelope: Envelope) -> Int {
        guard let current = walk else { return 0 }
        let ending = ending(of: current, envelope: envelope)
        walk = nil
        if recordsWalks { walkRecords.append((current.startSeconds, ending.stop, ending.steps)) }
        lastEnd = (ending.stop, current.stepPeriodSeconds, ending.release != nil ? ending.stop : current.startSeconds)
        guard let release = ending.release else { return 0 }
        lastCountedWalkSpan = current.startSeconds ... Swift.max(current.startSeconds, ending.stop)
        walkingSeconds += Swift.max(0, ending.stop - current.startSeconds)
        if release.steps > 0 { lastRelease = release }
        return release.steps
    }

    /// What `finish` would release now, without ending the walk under way: its steps not yet
    /// released (none unless it holds `minimumWalkSteps`) and the stretch they were taken in.
    /// A power cut loses no more than these, which the band stores with each second.
    func pendingRelease(envelope: Envelope) -> StepRelease {
        pendingEnding(envelope: envelope).release
    }

    /// `pendingRelease`, and the stretch the walk under way would cover were it to end now
    /// counted (nil when none, or too short to count).
    func pendingEnding(envelope: Envelope) -> (release: StepRelease, counted: ClosedRange<Double>?) {
        guard let current = walk else { return (.none, nil) }
        let ending = ending(of: current, envelope: envelope)
        return (ending.release ?? .none, ending.release == nil ? nil : current.startSeconds ... Swift.max(current.startSeconds, ending.stop))
    }

    /// The end of `current` placed as at the stream's end: where it stops, and its steps not
    /// yet released with their stretch (nil when the walk does not hold `minimumWalkSteps`).
    private func ending(of current: Walk, envelope: Envelope) -> (stop: Double, steps: Int, release: StepRelease?) {
        let last = current.lastCentreSeconds
        let stop = edge(from: last, stepPeriod: current.stepPeriodSeconds,
                        typicalOver: Swift.min(last, Swift.max(current.startSeconds, last - windowSeconds)) ... last,
                        envelope: envelope, forward: true)
        let total = stop > current.startSeconds ? current.steps(at: stop) : 0
        let final = Int((total + 0.5).rounded(.down))
        guard Double(final) >= parameters.minimumWalkSteps else { return (stop, final, nil) }
        let steps = Swift.max(0, final - current.releasedSteps)
        return (stop, final, steps > 0 ? StepRelease(steps: steps, fromSeconds: current.releasedThroughSeconds, throughSeconds: Swift.max(stop, current.releasedThroughSeconds)) : .none)
    }

    /// Releases the steps accrued up to `horizon`, which no end can take back, once the walk
    /// holds `minimumWalkSteps`: those taken since the last release's horizon (the walk's
    /// start for its first).
    private mutating func release(upTo horizon: Double) -> Int {
        guard var current = walk else { return 0 }
        let settled = current.steps(at: Swift.min(horizon, current.countedThroughSeconds))
        current.pending.removeAll { $0.timeSeconds < horizon }
        var released = 0
        if settled >= parameters.minimumWalkSteps {
            let from = current.releasedThroughSeconds
            released = Swift.max(0, Int(settled.rounded(.down)) - current.releasedSteps)
            current.releasedSteps += released
            current.releasedThroughSeconds = Swift.max(current.releasedThroughSeconds, Swift.min(horizon, current.countedThroughSeconds))
            if released > 0 { lastRelease = StepRelease(steps: released, fromSeconds: from, throughSeconds: current.releasedThroughSeconds) }
        }
        walk = current
        return released
    }

    /// Where the walk starts (searching back from `time`) or ends (forward): within half a
    /// window of `time`, the first point beyond which the short-time RMS over one stride stays
    /// below `edgeEnergyShare` of its median over `typicalOver` (the walk's typical movement).
    private func edge(from time: Double, stepPeriod: Double, typicalOver span: ClosedRange<Double>,
                      envelope: Envelope, forward: Bool) -> Double {
        let values = envelope.values
        let count = values.count
        guard count > 0 else { return time }
        let rate = envelope.rateHz
        let oldest = envelope.newestSeconds - Double(count - 1) / rate
        func index(_ t: Double) -> Int { Swift.min(count - 1, Swift.max(0, Int(((t - oldest) * rate).rounded()))) }
        let half = Swift.max(1, Int((stepPeriod * rate).rounded()))
        // Prefix sums of squares (oldest value first) give the RMS over [i - half, i + half]
        // in constant time.
        var prefix = [Double](repeating: 0, count: count + 1)
        for i in 0 ..< count {
            let v = values[age: count - 1 - i]
            prefix[i + 1] = prefix[i] + v * v
        }
        func rms(_ i: Int) -> Double {
            let a = Swift.max(0, i - half), b = Swift.min(count - 1, i + half)
            return ((prefix[b + 1] - prefix[a]) / Double(b - a + 1)).squareRoot()
        }
        let from = index(span.lowerBound), to = Swift.max(from, index(span.upperBound))
        let typical = Self.median((from ... to).map(rms))
        let threshold = parameters.edgeEnergyShare * typical
        let low = index(time - windowSeconds / 2), high = index(time + windowSeconds / 2)
        var k: Int
        if forward {
            k = low
            while k < high, rms(k + 1) >= threshold { k += 1 }
        } else {
            k = high
            while k > low, rms(k - 1) >= threshold { k -= 1 }
        }
        return oldest + Double(k) / rate
    }

    static func same(_ a: Double, _ b: Double, tolerance: Double) -> Bool {
        abs(a - b) <= tolerance * Swift.min(a, b)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
