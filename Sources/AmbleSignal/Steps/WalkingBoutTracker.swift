/// Decides which step candidates are steps: it confirms a walking bout from a run of
/// candidates with a steady rhythm, then follows that rhythm. It asks the impulse channel's
/// `ImpulseLog` whether a peak was a heel strike (docs/steps.md).
///
/// **Confirming a bout.** The last `chainCapacity` candidates are searched for the longest
/// chain whose successive intervals agree within `intervalTolerance` (a candidate may be
/// skipped, so a stray peak does not break the chain). A chain of `stepsToConfirm` or more
/// is a bout when
/// - its peaks are steps' size: median rise at least `minimumMedianAmplitudeG`;
/// - they are alike: 1.4826 x the median absolute deviation of their rises over their median
///   at most `maximumAmplitudeVariation` (gestures and bumps come in all sizes; one large arm
///   movement among steps does not decide);
/// - the band-passed signal over the chain repeats at the chain's period or at twice it
///   (a step or a stride: left and right steps may differ on the wrist), correlation at
///   least `minimumPeriodicity`, and repeats at one period in the band or the high band
///   (`minimumStepRepetition`: every step is a heel strike, whichever foot);
/// - it is not every other peak of a faster rhythm (scrubbing, shaking): when half the
///   period is shorter than a step can be, the signal must not also repeat at a half or a
///   third of the period (`maximumFasterPeriodicity`);
/// - it keeps to the heel strikes: where the wrist shows impulses over the chain, at least
///   half its members are heel strikes, and not every other member only.
///
/// A chain of `stepsToConfirmLongChain` or more, at least 3 in 4 of its members heel
/// strikes, is walking with the resume's looser periodicity and variation checks (its length
/// is the evidence: the arm moving about between brisk steps fails the stricter ones).
///
/// All the chain's steps are then released at once, none dropped, together with the
/// candidates just before it that keep its rhythm (a data gap or a stray peak broke the
/// chain there); only those later than the caller's `notBefore`. Within
/// `resumeWindowSeconds` after a bout, a shorter chain (`stepsToResume`) at a similar period
/// resumes walking with looser checks: people pause, turn and look at their wrist mid-walk.
/// The heel strikes between the lapsed bout and the resume count one step each when at least
/// as many as a resume needs bridge the whole gap, none further apart than the bout's lapse
/// time (a turn: the walker kept stepping, more slowly and irregularly).
///
/// **Step or stride.** When the arm swing dominates, one peak per stride stands out and a
/// chain follows strides. The period is halved, counting the steps in between, when most
/// intervals hold a heel-strike candidate near their middle, or when the high band (above
/// the stride rate) repeats at half the period (`minimumHalfPeriodicity`) and the middles
/// hold impulses; both at confirmation and every step while following, but not while most
/// recent steps missed the heel strikes, nor, while following, to well below the step period
/// of an impulse-channel bout on every heel strike that this bout took over at its period.
///
/// **Following a bout.** With step period T, the next step is the best candidate between
/// 0.65 T and 1.4 T after the last step (largest for its distance from T), or near 2 T or
/// 3 T, counting the 1 or 2 steps missed in between (a weak step the detector did not see);
/// one fewer when the gap is shorter than that and holds no heel strike (a slower step), unless
/// the bout follows strides, and two instead of three when the gap's middle holds a heel strike
/// the size of the steps (two slower steps: left and right steps take nearly equal time).
/// It is held until its window closes and then counted, a heel strike of the window first.
/// Other candidates are not steps. With no fitting candidate for 3.5 T, the bout ends.
/// A step taken late (more than the chains' `intervalTolerance` beyond T: a large arm
/// movement taken for the step) displaces the phase and may lengthen T; when the next
/// candidate then fits no window but fits near 1-3 T at the period before, from the late step
/// or (2-3 T) from the step before it, the late interval was no step's: T goes back, and the
/// late step stands for one step.
struct WalkingBoutTracker: Sendable {
    /// Steps whose rises give the steps' size (as many as the intervals whose median is the
    /// period).
    static let recentStepCount = 6
    /// Candidates kept from a gap, to find the one at its middle: a 3-period gap holds the
    /// missed steps' peaks and a few bumps of the wrist (the step detector's hysteresis lets
    /// through about one peak per 0.2-0.3 s at brisk paces); 6 keeps the middle one unless
    /// more than 4 came after it.
    static let gapCandidateCount = 6
    struct Settings: Sendable, Equatable {
        /// Candidates searched for a chain (fixed memory: this squared chain lengths).
        var chainCapacity = 16
        /// Chain length that confirms a bout from rest, steps.
        var stepsToConfirm = 7
        /// Chain length that resumes a bout shortly after one, steps.
        var stepsToResume = 4
        /// Chain length that confirms a bout from rest with the resume's looser checks when at
        /// least 3 in 4 of its members are heel strikes, steps: twice `stepsToConfirm`. Large
        /// arm movements between brisk steps (the real `normal-walking4`) keep chains of 7 below
        /// the periodicity and variation limits, but no non-walking development recording (nor
        /// its 12.5 Hz variant, nor the 14-minute drive) has a chain longer than 11.
        var stepsToConfirmLongChain = 14
        /// Largest difference of successive intervals in a chain, as a fraction of their mean.
        var intervalTolerance = 0.3
        /// Shortest step interval, seconds (160 steps/min).
        var minimumStepIntervalSeconds = 0.375
        /// Longest step interval, seconds (about 27 steps/min).
        var maximumStepIntervalSeconds = 2.2
        /// Smallest median rise of a chain's peaks, g.
        var minimumMedianAmplitudeG = 0.12
        /// Smallest correlation (-1...1) of the signal with itself a step or a stride later.
        var minimumPeriodicity = 0.5
        /// The same, to resume a bout.
        var minimumPeriodicityToResume = 0.2
        /// Smallest correlation at one period, in the band or the high band, for any chain (one
        /// that passes `minimumPeriodicity` only at twice its period needs it): every step is a
        /// heel strike, whichever foot, and repeats at one period.
        var minimumStepRepetition = 0.2
        /// Largest variation of a chain's peak rises (1.4826 x median absolute deviation / median).
        var maximumAmplitudeVariation = 0.4
        /// The same, to resume a bout.
        var maximumAmplitudeVariationToResume = 0.6
        /// Largest correlation at a half or a third of the period for a chain whose half
        /// period is shorter than a step.
        var maximumFasterPeriodicity = 0.3
        /// Smallest high-band correlation at half the period that makes the period a stride.
        var minimumHalfPeriodicity = 0.35
        /// How long after a bout a shorter chain may resume it, seconds.
        var resumeWindowSeconds = 10.0
        /// Earliest and latest next step, as fractions of the step period.
        var earliestStepFraction = 0.65
        var latestStepFraction = 1.4
        /// Steps that may be missed in a row and still be counted when the rhythm goes on.
        var maximumMissedSteps = 2
        /// Periods without a fitting candidate after which a bout lapses: its missed steps and a
        /// margin of 1.5.
        var lapsePeriods: Double { Double(maximumMissedSteps) + 1.5 }
        /// Part of a gap (at each end, as a fraction of it) where an impulse does not count as
        /// the missed step's heel strike: it belongs to the steps at the gap's ends.
        var gapMarginFraction = 0.2
        /// Where a candidate sits in an interval, as a fraction, to count as its middle.
        var middleRange: ClosedRange<Double> = 0.4 ... 0.6
        /// Smallest rise of a middle candidate, as a fraction of the step before it.
        var middleAmplitudeFraction = 0.25
        /// Largest rise of a heel strike at a gap's middle that makes the gap two slower steps,
        /// as a multiple of the median rise of the last steps: a peak well above the steps' size is
        /// the arm moving near a step (its impulse is that step's, and says nothing about how many
        /// steps the gap held). At 2 a 1.1 g arm movement among 0.6 g steps passed, and a late
        /// one made a gap of 3 steps 2 (`WalkingBoutTrackerTests`).
        var gapMiddleLargestRiseFraction = 1.5
        /// Largest time between a band-passed peak's heel strike and an impulse for the peak to
        /// count as a heel strike, seconds.
        var heelStrikeWindowSeconds = 0.15
        /// Smallest rise of a candidate before a confirmed chain that may extend it backwards,
        /// as a fraction of the chain's median rise: the first steps of a walk are smaller
        /// than its steady steps, but not by a factor of four; what moves the wrist that little
        /// before the walk is its own movement.
        var extensionAmplitudeFraction = 0.25
        /// Steps over which a followed bout is checked to be still walking (`stillWalks`): the
        /// intervals of a chain of `stepsToConfirm` plus one, as many as the heel-strike check
        /// while following looks at.
        var walkingCheckSteps = 8
        /// Largest share of those steps that may be heel strikes for a bout whose signal no
        /// longer repeats to end: the chains' "every other member" limit (a quarter). Walking
        /// shows a heel strike at nearly every step (93-100 % of the swing channel's steps in
        /// normal and brisk walks, docs/steps.md).
        var walkingCheckLargestHeelStrikeShare = 0.25
        /// Rate of the filtered signals, Hz.
        var sampleRateHz = 25.0
    }

    let settings: Settings

    // Candidate ring and chain lengths: chainLength[slot * capacity + predecessorSlot].
    private var times: [Double]
    private var amplitudes: [Double]
    private var indices: [Int]
    private var sequence: [Int]
    private var chainLength: [Int16]
    private var scratchChain: [Int]
    /// Times of the last `2 x chainCapacity` candidates (by sequence), to follow a confirmed
    /// chain's rhythm back to the start of the walk.
    private var earlierTimes: [Double]
    /// Their rises, g: a candidate much smaller than the chain's steps does not extend it.
    private var earlierAmplitudes: [Double]
    private var nextSequence = 0
    private var oldestUsableSequence = 0

    // Walking state.
    private(set) var isWalking = false
    /// Current step period while walking, in seconds.
    private(set) var stepPeriodSeconds = 0.0
    private var lastStepTime = 0.0
    private var lastStepAmplitude = 0.0
    private var intervals = RecentValues(capacity: 6)
    private var middles = RecentValues(capacity: 4)
    /// Sample indices of the last 5 steps seen, for the stride check while following.
    private var recentStepIndices = RecentValues(capacity: 5)
    /// Recent step intervals for the published cadence, seconds.
    private var cadenceIntervals = RecentValues(capacity: 8)
    /// Time of a candidate seen near the middle of the current interval.
    private var middleTime: Double?
    /// Midpoints of the last 4 step intervals, seconds, for the stride check while following.
    private var recentMidpoints = RecentValues(capacity: 4)
    /// The best candidate so far for the next step while following, with the steps it
    /// completes and its score; committed when its window closes.
    private var held: (candidate: StepCandidate, steps: Int, score: Double)?
    /// The last candidates in that window with their scores (a heel strike among them is
    /// preferred when the window closes).
    private var windowCandidates: [StepCandidate]
    private var windowScores: [Double]
    private var windowCount = 0
    /// Rises of the last `recentStepCount` steps, g (the steps' size, for a gap's middle).
    private var recentRises = RecentValues(capacity: WalkingBoutTracker.recentStepCount)
    /// The last `gapCandidateCount` candidates seen while following: where in a gap of missed
    /// steps the other peaks fell.
    private var gapCandidates: RingBuffer<StepCandidate>
    /// Times of the last 8 steps (ring), to tell whether the bout is on the heel strikes.
    private var recentStepTimes: RingBuffer<Double>
    /// The last `walkingCheckSteps + 1` steps since the bout was confirmed (its chain's
    /// included), halving or not, to check that the bout is still walking.
    private var followedSteps: RingBuffer<StepCandidate>
    /// Intervals counted as one step each since a bout was confirmed without halving, and
    /// the period it was confirmed at: when following later finds that the same rhythm goes
    /// stride by stride, those intervals were strides too (nil once halved or not tracked).
    private var unhalvedIntervals: Int?
    private var confirmedPeriod = 0.0
    /// Whether the bout under way was confirmed from rest (a full chain, not a resume) by a
    /// chain that kept to the heel strikes: at least 3 in 4 of its members were.
    private(set) var confirmedOnHeelStrikes = false
    /// Time of the first step of the chain that confirmed the bout under way, its backward
    /// extension included, in seconds.
    private(set) var confirmedFromSeconds = 0.0
    /// The step period of the impulse channel's bout when this bout took over from it at about
    /// the same period, and that bout was on every heel strike (its chain held the impulse
    /// energy: no other foot's strike between its steps). Halving far below it would say the
    /// walker's cadence jumped; nil when not known.
    private var heelStrikeStepPeriod: Double?
    /// Whether the bout under way follows strides with the steps between hidden (halved).
    private var followsStrides = false
    private var boutEndFollowedStrides = false
    private var boutEndTime = -Double.infinity
    private var boutEndPeriod = 1.0
    /// When the last interval was late (beyond the chains' interval tolerance): the step period
    /// before it and the step before it; nil otherwise.
    private var lateStep: (periodBefore: Double, previousTime: Double, previousAmplitude: Double)?
    /// Steps already counted for a late step that the held candidate, followed from the step
    /// before it, replaces.
    private var countedAhead = 0

    init(settings: Settings) {
        self.settings = settings
        let n = settings.chainCapacity
        times = [Double](repeating: 0, count: n)
        amplitudes = times
        indices = [Int](repeating: 0, count: n)
        sequence = [Int](repeating: -1, count: n)
        chainLength = [Int16](repeating: 0, count: n * n)
        scratchChain = [Int](repeating: 0, count: n)
        earlierTimes = [Double](repeating: 0, count: 2 * n)
        earlierAmplitudes = earlierTimes
        windowCandidates = [StepCandidate](repeating: StepCandidate(timeSeconds: 0, amplitudeG: 0, sampleIndex: 0), count: 4)
        windowScores = [Double](repeating: 0, count: 4)
        recentStepTimes = RingBuffer(capacity: 8, filling: 0)
        followedSteps = RingBuffer(capacity: settings.walkingCheckSteps + 1, filling: StepCandidate(timeSeconds: 0, amplitudeG: 0, sampleIndex: 0))
        gapCandidates = RingBuffer(capacity: WalkingBoutTracker.gapCandidateCount, filling: StepCandidate(timeSeconds: 0, amplitudeG: 0, sampleIndex: 0))
    }

    /// Elements held in the tracker's buffers (fixed at init).
    var bufferElementCount: Int {
        times.count + amplitudes.count + indices.count + sequence.count + chainLength.count + scratchChain.count + earlierTimes.count + earlierAmplitudes.count
            + intervals.capacity + middles.capacity + cadenceIntervals.capacity + recentStepIndices.capacity + recentMidpoints.capacity
            + 3 * windowCandidates.count + windowScores.count + recentStepTimes.capacity + recentRises.capacity + 3 * followedSteps.capacity
            + 3 * gapCandidates.capacity
    }

    /// Steps per minute over the last 8 step intervals: their mean after dropping those more
    /// than 20 % from their median (a missed or doubled step); 0 when not walking.
    mutating func cadenceStepsPerMinute() -> Double {
        isWalking ? cadenceIntervals.stepsPerMinute(droppingBeyond: 0.2) : 0
    }

    /// Time of the last counted step, in seconds (meaningful while walking).
    var lastStepTimeSeconds: Double { lastStepTime }

    /// Counts the held step whose window has closed by `timeSeconds`, and ends a bout whose
    /// rhythm has lapsed; call once per fixed-rate sample. Returns the steps counted.
    mutating func advance(to timeSeconds: Double, history: SignalHistory, highBand: SignalHistory, impulses: ImpulseLog) -> Int {
        var steps = 0
        if isWalking, let next = held,
           timeSeconds > lastStepTime + (Double(next.steps) + settings.latestStepFraction - 1) * stepPeriodSeconds {
            steps = commitHeld(history: history, highBand: highBand, impulses: impulses)
        }
        if isWalking, timeSeconds - lastStepTime > settings.lapsePeriods * stepPeriodSeconds {
            endBout()
        }
        return steps
    }

    /// Ends any bout and forgets the candidates (after a gap in the input).
    mutating func restart() {
        if isWalking { endBout() }
        oldestUsableSequence = nextSequence
    }

    /// Feeds one candidate; returns the number of steps it completes (0 or more).
    /// `history` is the band-passed signal (0.5-3 Hz); `highBand` the same above 1.2 Hz, where
    /// the step rhythm shows even when the arm swing (at the stride rate) dominates;
    /// `impulses` the recent heel-strike impulses. A bout confirmed now releases only its steps
    /// later than `notBefore` (the earlier ones were counted by the impulse channel).
    mutating func process(_ candidate: StepCandidate, history: SignalHistory, highBand: SignalHistory,
                          impulses: ImpulseLog, notBefore: Double = -.infinity, heelStrikePeriod: Double? = nil,
                          stepPeriodOnHeelStrikes: Double? = nil) -> Int {
        let steps = advance(to: candidate.timeSeconds, history: history, highBand: highBand, impulses: impulses)
        if isWalking {
            gapCandidates.append(candidate)
            return steps + follow(candidate, history: history, highBand: highBand, impulses: impulses)
        }
        return steps + search(candidate, history: history, highBand: highBand, impulses: impulses, notBefore: notBefore,
                              heelStrikePeriod: heelStrikePeriod, stepPeriodOnHeelStrikes: stepPeriodOnHeelStrikes)
    }

    // MARK: Following

    /// Whether a band-passed peak at `time` was a heel strike: an impulse within 0.15 s.
    private func isHeelStrike(_ time: Double, _ impulses: ImpulseLog) -> Bool {
        impulses.hasImpulse(nearPeakAt: time, within: settings.heelStrikeWindowSeconds)
    }

    /// Whether at least half of `count` interval midpoints (from `midpoint`) hold an impulse
    /// within `window` seconds: the steps a stride hides are heel strikes too.
    private func midpointsHoldSteps(_ count: Int, window: Double, _ impulses: ImpulseLog, midpoint: (Int) -> Double) -> Bool {
        guard count > 0 else { return true }
        var found = 0
        for k in 0 ..< count where impulses.hasImpulse(nearPeakAt: midpoint(k), within: window) { found += 1 }
        return 2 * found >= count
    }

    /// Takes a candidate while following. The next step is the best candidate (the largest for
    /// its distance from where the period puts it) within 0.65-1.4 periods, or near 2 or 3
    /// periods when steps were missed; it is held until its window closes, so a smaller peak
    /// early in the window (the wrist's own movement) does not take a step's place.
    private mutating func follow(_ candidate: StepCandidate, history: SignalHistory, highBand: SignalHistory, impulses: ImpulseLog) -> Int {
        let t = stepPeriodSeconds
        let dt = candidate.timeSeconds - lastStepTime
        if dt < settings.earliestStepFraction * t {
            if settings.middleRange.contains(dt / t), candidate.amplitudeG >= settings.middleAmplitudeFraction * lastStepAmplitude {
                middleTime = candidate.timeSeconds
            }
            return 0
        }
        let n = Int((dt / t).rounded())
        let offset = abs(dt - Double(n) * t)
        guard n >= 1, n <= settings.maximumMissedSteps + 1, offset <= (settings.latestStepFraction - 1) * t else {
            return held == nil ? followPeriodBeforeLateStep(candidate, history: history, highBand: highBand, impulses: impulses) : 0
        }
        if let next = held, n > next.steps {
            // Past the held candidate's window: it is the step; look at this one from there.
            let steps = commitHeld(history: history, highBand: highBand, impulses: impulses)
            guard isWalking else { return steps }
            return steps + follow(candidate, history: history, highBand: highBand, impulses: impulses)
        }
        let score = candidate.amplitudeG / (1 + offset / t)
        if held == nil { windowCount = 0 }
        windowCandidates[windowCount % windowCandidates.count] = candidate
        windowScores[windowCount % windowScores.count] = score
        windowCount += 1
        if held == nil || score > held!.score { held = (candidate, n, score) }
        return 0
    }

    /// A candidate that fits no window after a late step (more than the chains' interval
    /// tolerance beyond the period), but fits a window at the period before it, from the late
    /// step or (2-3 periods) from the step before it: the late step was a large arm movement near a
    /// step, not a step a slower walker took (those keep coming late, and a fitting candidate
    /// keeps the new period). Its interval goes and the period returns; the candidate is then
    /// followed as usual, counting the steps missed (the late step stands for one of them).
    /// Without this, the lengthened period or the displaced phase can put the next heel strikes
    /// between the windows (near 1.5 and 2.5 periods), and the bout lapses.
    private mutating func followPeriodBeforeLateStep(_ candidate: StepCandidate, history: SignalHistory, highBand: SignalHistory, impulses: ImpulseLog) -> Int {
        guard let late = lateStep else { return 0 }
        lateStep = nil
        let earlier = late.periodBefore
        func fits(_ dt: Double, from: Int) -> Bool {
            let n = Int((dt / earlier).rounded())
            return n >= from && n <= settings.maximumMissedSteps + 1 && abs(dt - Double(n) * earlier) <= (settings.latestStepFraction - 1) * earlier
        }
        if fits(candidate.timeSeconds - lastStepTime, from: 1) {
            // On the rhythm from the late step at the earlier period: it stands for its step.
        } else if fits(candidate.timeSeconds - late.previousTime, from: 2) {
            // On the grid of the step before it: the candidate replaces the late step, which
            // stands for one of the steps it completes.
            lastStepTime = late.previousTime
            lastStepAmplitude = late.previousAmplitude
            countedAhead = 1
        } else {
            return 0
        }
        // Only the period forgets the late interval; the cadence's intervals drop it as an
        // outlier, and the other rings (middles, rises, step times) take medians or counts that
        // one value does not move.
        intervals.removeLast()
        stepPeriodSeconds = earlier
        return follow(candidate, history: history, highBand: highBand, impulses: impulses)
    }

    /// Counts the held step: the best-scored heel strike of its window, or the best-scored
    /// candidate when none was one (impulses are known by now: the window has closed).
    private mutating func commitHeld(history: SignalHistory, highBand: SignalHistory, impulses: ImpulseLog) -> Int {
        guard let next = held else { return 0 }
        var chosen = next.candidate, best = -Double.infinity
        for k in 0 ..< min(windowCount, windowCandidates.count)
        where windowScores[k] > best && isHeelStrike(windowCandidates[k].timeSeconds, impulses) {
            best = windowScores[k]
            chosen = windowCandidates[k]
        }
        held = nil
        windowCount = 0
        return accept(chosen, history: history, highBand: highBand, impulses: impulses)
    }

    private mutating func logStep(_ time: Double) {
        recentStepTimes.append(time)
    }

    /// Whether most of the last 8 steps (at least 6 known) were not heel strikes: the bout
    /// has slipped onto the wrist's own movement between slow steps.
    private func isOffTheHeelStrikes(_ impulses: ImpulseLog) -> Bool {
        let known = recentStepTimes.count
        guard known >= 6 else { return false }
        var strikes = 0
        for age in 0 ..< known where isHeelStrike(recentStepTimes[age: age], impulses) { strikes += 1 }
        return 2 * strikes < known
    }

    /// Whether the bout followed is still walking, judged over its last `walkingCheckSteps`
    /// steps (the confirming chain's included) as a chain is judged when it confirms: walking
    /// repeats at its step period (or at the stride), and every step is a heel strike. A bout
    /// whose last steps are neither, the step band and the high band no longer repeating at
    /// one period nor the band at two (below the `minimumPeriodicityToResume` at which any
    /// chain is walking) and at most `walkingCheckLargestHeelStrikeShare` of its steps heel
    /// strikes, follows something else: a bout is otherwise only ended by a lapse (no fitting
    /// candidate for 3.5 periods), and in a busy signal (a car's rocking) a candidate fits the
    /// 0.65-1.4 period window nearly every time, so one borderline chain became tens of steps.
    /// Either sign alone occurs in walks: the onset's irregular steps and turns repeat poorly
    /// for a few steps; slow walks' swing peaks often miss the heel strikes.
    private func stillWalks(history: SignalHistory, highBand: SignalHistory, impulses: ImpulseLog) -> Bool {
        let count = followedSteps.count
        guard count == followedSteps.capacity else { return true }
        var strikes = 0
        for age in 0 ..< count - 1 where isHeelStrike(followedSteps[age: age].timeSeconds, impulses) { strikes += 1 }
        guard Double(strikes) <= settings.walkingCheckLargestHeelStrikeShare * Double(count - 1) else { return true }
        let start = followedSteps[age: count - 1].sampleIndex - 2, end = followedSteps[age: 0].sampleIndex + 2
        let lag = Int((stepPeriodSeconds * settings.sampleRateHz).rounded())
        let floor = settings.minimumPeriodicityToResume
        return history.correlation(start: start, end: end, lagSamples: lag) >= floor
            || history.correlation(start: start, end: end, lagSamples: 2 * lag) >= floor
            || highBand.correlation(start: start, end: end, lagSamples: lag) >= floor
    }

    /// Whether a candidate seen after the last step and before `end` lies at the middle of that gap
    /// (`middleRange`), is a heel strike, and is of the steps' size: at least
    /// `middleAmplitudeFraction` of the last step's rise and at most `gapMiddleLargestRiseFraction`
    /// times the median rise of the last steps.
    private mutating func gapHoldsStepAtMiddle(until end: Double, _ impulses: ImpulseLog) -> Bool {
        let span = end - lastStepTime
        guard span > 0 else { return false }
        let largest = recentRises.count > 0 ? settings.gapMiddleLargestRiseFraction * recentRises.median() : .infinity
        for age in stride(from: gapCandidates.count - 1, through: 0, by: -1) {
            let time = gapCandidates[age: age].timeSeconds, rise = gapCandidates[age: age].amplitudeG
            guard time > lastStepTime, time < end, settings.middleRange.contains((time - lastStepTime) / span),
                  rise >= settings.middleAmplitudeFraction * lastStepAmplitude, rise <= largest,
                  isHeelStrike(time, impulses) else { continue }
            return true
        }
        return false
    }

    /// Counts `candidate` as the next step (and any missed before it), updates the period and
    /// checks whether the bout went stride by stride.
    private mutating func accept(_ candidate: StepCandidate, history: SignalHistory, highBand: SignalHistory, impulses: ImpulseLog) -> Int {
        let t = stepPeriodSeconds
        let dt = candidate.timeSeconds - lastStepTime
        let n = Int((dt / t).rounded())
        let ahead = countedAhead
        countedAhead = 0
        guard dt >= settings.earliestStepFraction * t, n >= 1, n <= settings.maximumMissedSteps + 1,
              abs(dt - Double(n) * t) <= (settings.latestStepFraction - 1) * t else { return 0 }
        var steps = n
        // A gap shorter than the n periods it rounds to, with no heel strike anywhere in its
        // middle part, was one step fewer taken more slowly (the walker slowing, turning or
        // stopping), not a missed step: a missed step leaves its impulse. Not in a bout that
        // follows strides, where every interval hides a step that need not show one.
        if n >= 2, !followsStrides, dt < Double(n) * t,
           impulses.count(fromPeakTime: lastStepTime + settings.gapMarginFraction * dt,
                          toPeakTime: candidate.timeSeconds - settings.gapMarginFraction * dt) == 0 {
            steps = n - 1
        }
        // A gap of three periods with a heel strike of the steps' size at its middle was two
        // slower steps: three steps would have put their heel strikes at a third and two thirds
        // of it, and left and right steps take nearly equal time (the walker slowing or
        // turning; the candidates between were too far from the period to be followed).
        if n == 3, steps == 3, !followsStrides, gapHoldsStepAtMiddle(until: candidate.timeSeconds, impulses) {
            steps = 2
        }
        steps -= min(ahead, steps)
        let previousStep = (time: lastStepTime, amplitude: lastStepAmplitude)
        lastStepTime = candidate.timeSeconds
        lastStepAmplitude = candidate.amplitudeG
        recentRises.append(candidate.amplitudeG)
        logStep(candidate.timeSeconds)
        // The period follows the intervals seen, not those that spanned missed steps: dt / n
        // there is a guess made with the period itself, and with the period a little short a
        // gap of 2 steps rounds to 3, whose interval shortens the period further (a brisk
        // walk's bout counted 3 steps per stride for seconds).
        if n == 1 {
            intervals.append(dt)
            cadenceIntervals.append(dt)
        }
        stepPeriodSeconds = intervals.median()
        followedSteps.append(candidate)
        if !stillWalks(history: history, highBand: highBand, impulses: impulses) {
            endBout(mayResume: false)
            return 0
        }
        let late = n == 1 && dt > (1 + settings.intervalTolerance) * t
        lateStep = late ? (t, previousStep.time, previousStep.amplitude) : nil
        // A middle peak is a step only when it was a heel strike, not the filters' ringing
        // after a slow step's impulse or the wrist's own movement. Only a one-period interval
        // has a middle: in one that spans missed steps, the peak 0.3-0.7 periods after the
        // last step is early in the interval (the arm's own swing between slow steps, or the
        // missed step itself), no sign of a stride.
        if n == 1 { middles.append(middleTime.map { isHeelStrike($0, impulses) } == true ? 1 : 0) }
        middleTime = nil
        recentMidpoints.append(lastStepTime - 0.5 * dt / Double(n))
        // Off the heel strikes, the heel strikes are what lies between the "steps": no halving.
        let offTheStrikes = isOffTheHeelStrikes(impulses)
        if let counted = unhalvedIntervals {
            // Only while the rhythm stays the one confirmed: a drifting bout may have
            // changed what it follows.
            let steady = abs(dt / Double(n) - confirmedPeriod) <= 0.5 * settings.intervalTolerance * confirmedPeriod
            unhalvedIntervals = steady ? counted + n : nil
        }
        // The high band over the last 4 intervals, at half the period.
        recentStepIndices.append(Double(candidate.sampleIndex))
        var halfPeriodicity: Double?
        if recentStepIndices.count == 5, stepPeriodSeconds / 2 >= settings.minimumStepIntervalSeconds {
            let lag = Int((stepPeriodSeconds / 2 * settings.sampleRateHz).rounded())
            halfPeriodicity = highBand.correlation(start: Int(recentStepIndices.minimum) - 2, end: candidate.sampleIndex + 2, lagSamples: lag)
        }
        let strideInHighBand = (halfPeriodicity ?? -1) >= settings.minimumHalfPeriodicity
        // Against a heel-strike step period, both stride tests must agree, the high band as
        // clearly as a chain repeats to be walking, while the bout still walks at that period
        // (not drifted): the impulse chain then missed the other foot's weaker heel strikes
        // (they fall below its comparable size at 12.5 Hz, docs/steps.md).
        if middles.count == 4, middles.sum >= 3, stepPeriodSeconds / 2 >= settings.minimumStepIntervalSeconds, !offTheStrikes,
           !halvingContradictsHeelStrikes || ((halfPeriodicity ?? -1) >= settings.minimumPeriodicity && walksAtHeelStrikeStepPeriod) {
            steps += Int(middles.sum) + strideBackfill(recent: middles.count)
            halvePeriod()
            return steps
        }
        // The last 4 intervals also repeat at half the period in the high band, and have
        // impulses near their middles: they were strides, each hiding one step.
        if strideInHighBand {
            let midpoints = recentMidpoints
            if midpointsHoldSteps(midpoints.count, window: 0.2 * stepPeriodSeconds, impulses, midpoint: { midpoints.value(at: $0) }),
               !offTheStrikes, !halvingContradictsHeelStrikes {
                steps += 4 + strideBackfill(recent: 4)
                halvePeriod()
            }
        }
        return steps
    }

    /// Steps hidden in the intervals counted before the last `recent` ones, when the bout was
    /// confirmed without halving and its rhythm has not changed since (within the chains'
    /// interval tolerance): the arm swing showed one peak per stride from the start.
    private func strideBackfill(recent: Int) -> Int {
        guard let counted = unhalvedIntervals, counted > recent,
              consistent(stepPeriodSeconds, confirmedPeriod)
        else { return 0 }
        return counted - recent
    }

    /// Whether the bout walks at the impulse channel's heel-strike step period (within the
    /// chains' interval tolerance), or no such period is known.
    private var walksAtHeelStrikeStepPeriod: Bool { heelStrikeStepPeriod.map { consistent(stepPeriodSeconds, $0) } ?? true }

    /// Whether half the current period would be well below (beyond the chains' interval
    /// tolerance) the step period the impulse channel walked on every heel strike when this
    /// bout took over: the walker's cadence changes gradually, and the bout's period followed
    /// it; a stride shows as twice that step period, not as a period a little longer. What
    /// lies half-way between the heel strikes then is the arm at mid-stance, not a step.
    private var halvingContradictsHeelStrikes: Bool {
        guard let steps = heelStrikeStepPeriod else { return false }
        let half = stepPeriodSeconds / 2
        return half < steps && !consistent(half, steps)
    }

    /// Half the current period, when the bout could be halved (the half is a possible step
    /// period, the bout keeps to the heel strikes, and no heel-strike period contradicts it);
    /// nil otherwise.
    var halfPeriodIfHalvable: Double? {
        guard isWalking, stepPeriodSeconds / 2 >= settings.minimumStepIntervalSeconds,
              !halvingContradictsHeelStrikes else { return nil }
        return stepPeriodSeconds / 2
    }

    /// The heel strikes walk at half the bout's period, every one of them (the impulse
    /// channel's energy test): the bout followed strides. Halves the period and returns the
    /// steps hidden in the counted intervals whose middle lies after `since` (the heel-strike
    /// chain's first impulse), as far as the last 8 steps go.
    mutating func halveOnHeelStrikes(since: Double, stepPeriod: Double, impulses: ImpulseLog) -> Int {
        guard halfPeriodIfHalvable != nil, !isOffTheHeelStrikes(impulses) else { return 0 }
        var hidden = 0
        if recentStepTimes.count >= 2 {
            for age in stride(from: recentStepTimes.count - 2, through: 0, by: -1) {
                let a = recentStepTimes[age: age + 1], b = recentStepTimes[age: age]
                if 0.5 * (a + b) >= since { hidden += max(1, Int(((b - a) / stepPeriodSeconds).rounded())) }
            }
        }
        halvePeriod()
        // The heel strikes' own period: a bout's period drifts with a stray interval.
        setPeriod(stepPeriod)
        return hidden
    }

    private mutating func setPeriod(_ period: Double) {
        lateStep = nil
        countedAhead = 0
        stepPeriodSeconds = period
        intervals.removeAll()
        intervals.append(period)
        cadenceIntervals.removeAll()
        cadenceIntervals.append(period)
    }

    private mutating func halvePeriod() {
        followsStrides = true
        unhalvedIntervals = nil
        setPeriod(stepPeriodSeconds / 2)
        middles.removeAll()
        recentStepIndices.removeAll()
        recentMidpoints.removeAll()
        recentStepTimes.removeAll()
    }

    /// Ends the bout. One that stopped being walking (`stillWalks`) may not be resumed by a
    /// short chain: there is no walk to go on with.
    private mutating func endBout(mayResume: Bool = true) {
        lateStep = nil
        countedAhead = 0
        heelStrikeStepPeriod = nil
        held = nil
        unhalvedIntervals = nil
        recentMidpoints.removeAll()
        isWalking = false
        boutEndTime = mayResume ? lastStepTime : -.infinity
        boutEndFollowedStrides = followsStrides
        boutEndPeriod = stepPeriodSeconds
        oldestUsableSequence = nextSequence
    }

    /// Steps before the confirmed chain that keep its rhythm (a gap in the data or a stray
    /// peak broke the chain there, or the irregular first steps of a walk kept the chain
    /// from passing): followed backwards as `follow` does forwards through the last
    /// `2 x chainCapacity` candidates, as far as `notBefore`. Beyond the `chainCapacity` the
    /// chain was searched in, the rhythm alone is not enough: the followed candidates must be
    /// heel strikes, and the first that is not ends the walk's start.
    private func extendBackwards(from first: Int, lowest: Int, period: Double, notBefore: Double, smallest: Double,
                                 impulses: ImpulseLog) -> (steps: Int, earliest: Double) {
        let newest = nextSequence - 1
        var steps = 0
        let times = earlierTimes
        func slot(_ seq: Int) -> Int { seq % times.count }
        var previous = times[slot(first)]
        var q = first - 1
        while q >= lowest {
            let dt = previous - times[slot(q)]
            q -= 1
            if dt < settings.earliestStepFraction * period { continue }
            // Beyond the candidates the chain was searched in, only heel strikes are steps.
            if q + 1 <= newest - settings.chainCapacity, !isHeelStrike(times[slot(q + 1)], impulses) { break }
            // A peak much smaller than the chain's steps is the wrist's own movement (before
            // the walk, or a stray one within it), not a step: passed over like a stray peak.
            if earlierAmplitudes[slot(q + 1)] < smallest { continue }
            let n = Int((dt / period).rounded())
            if n >= 1, n <= settings.maximumMissedSteps + 1, abs(dt - Double(n) * period) <= (settings.latestStepFraction - 1) * period {
                if times[slot(q + 1)] <= notBefore { break }
                steps += n
                previous = times[slot(q + 1)]
                continue
            }
            if dt > settings.lapsePeriods * period { break }
        }
        return (steps, previous)
    }

    /// Heel strikes between the lapsed bout's last step and a resume's first step, one step
    /// each, when they bridge the whole gap: a walker who turns, or slows into a turn, keeps
    /// stepping, but more slowly and irregularly, and the swing peaks there fit neither the
    /// following windows nor a resume chain. Each heel strike at least `earliestStepFraction`
    /// of the lapsed period after the one before (not a step faster than the walk), none
    /// further apart than the bout's lapse time (3.5 periods: over such a gap a bout on
    /// these heel strikes would not have lapsed), and at least `stepsToResume` of them (as
    /// many as a resume needs: a shorter lapse is one or two steps, whose number the signal
    /// cannot tell from a pause with the arm moving). Only those later than `notBefore`
    /// (another channel may have counted the gap).
    private func bridgeOnHeelStrikes(until first: Double, notBefore: Double, impulses: ImpulseLog) -> Int {
        let t = boutEndPeriod
        let shortest = settings.earliestStepFraction * t, longest = settings.lapsePeriods * t
        let start = boutEndTime - ImpulseLog.peakDelaySeconds, end = first - ImpulseLog.peakDelaySeconds
        var previous = start, bridged = 0, counted = 0, broken = false
        impulses.forEachTime { time in
            guard !broken, time - previous >= shortest, time <= end - shortest else { return }
            if time - previous > longest {
                broken = true
                return
            }
            previous = time
            bridged += 1
            if time + ImpulseLog.peakDelaySeconds > notBefore { counted += 1 }
        }
        guard !broken, end - previous <= longest, bridged >= settings.stepsToResume else { return 0 }
        return counted
    }

    // MARK: Searching

    private func slot(_ seq: Int) -> Int { seq % settings.chainCapacity }

    private func usable(_ seq: Int, before newest: Int) -> Bool {
        seq >= oldestUsableSequence && seq < newest && newest - seq < settings.chainCapacity
    }

    private func consistent(_ interval: Double, _ previous: Double) -> Bool {
        abs(interval - previous) <= settings.intervalTolerance * 0.5 * (interval + previous)
    }

    private mutating func search(_ candidate: StepCandidate, history: SignalHistory, highBand: SignalHistory, impulses: ImpulseLog,
                                 notBefore: Double, heelStrikePeriod: Double?, stepPeriodOnHeelStrikes: Double?) -> Int {
        let capacity = settings.chainCapacity
        let newest = nextSequence
        nextSequence += 1
        let s = slot(newest)
        times[s] = candidate.timeSeconds
        earlierTimes[newest % earlierTimes.count] = candidate.timeSeconds
        earlierAmplitudes[newest % earlierTimes.count] = candidate.amplitudeG
        amplitudes[s] = candidate.amplitudeG
        indices[s] = candidate.sampleIndex
        sequence[s] = newest
        var bestLength = 1, bestInterval = 0.0, bestPredecessor = -1
        let lowest = max(oldestUsableSequence, newest - capacity + 1)
        for j in lowest ..< newest {
            let sj = slot(j)
            let interval = candidate.timeSeconds - times[sj]
            chainLength[s * capacity + sj] = 0
            guard interval >= settings.minimumStepIntervalSeconds, interval <= settings.maximumStepIntervalSeconds else { continue }
            var length = 2
            for k in lowest ..< j {
                let sk = slot(k)
                let before = Int(chainLength[sj * capacity + sk])
                if before > 0, consistent(interval, times[sj] - times[sk]) { length = max(length, before + 1) }
            }
            chainLength[s * capacity + sj] = Int16(min(length, Int(Int16.max)))
            if length > bestLength || (length == bestLength && interval < bestInterval) {
                bestLength = length
                bestInterval = interval
                bestPredecessor = j
            }
        }
        let recent = candidate.timeSeconds - boutEndTime <= settings.resumeWindowSeconds
        guard bestLength >= (recent ? settings.stepsToResume : settings.stepsToConfirm) else { return 0 }
        return confirm(newest: newest, predecessor: bestPredecessor, length: bestLength, recent: recent,
                       history: history, highBand: highBand, impulses: impulses, notBefore: notBefore,
                       heelStrikePeriod: heelStrikePeriod, stepPeriodOnHeelStrikes: stepPeriodOnHeelStrikes)
    }

    /// Rebuilds the best chain ending at `newest` and checks it; returns the steps released
    /// (those later than `notBefore`).
    private mutating func confirm(newest: Int, predecessor: Int, length: Int, recent: Bool, history: SignalHistory,
                                  highBand: SignalHistory, impulses: ImpulseLog, notBefore: Double, heelStrikePeriod: Double?,
                                  stepPeriodOnHeelStrikes: Double?) -> Int {
        let capacity = settings.chainCapacity
        let lowest = max(oldestUsableSequence, newest - capacity + 1)
        // Walk back through the chain, newest first.
        var members = 0
        scratchChain[members] = newest; members += 1
        var a = newest, b = predecessor
        while members < length, b >= lowest {
            scratchChain[members] = b; members += 1
            let interval = times[slot(a)] - times[slot(b)]
            var next = -1, nextLength = 0
            for k in lowest ..< b {
                let l = Int(chainLength[slot(b) * capacity + slot(k)])
                if l > nextLength, consistent(interval, times[slot(b)] - times[slot(k)]) {
                    nextLength = l
                    next = k
                }
            }
            a = b
            b = next
        }
        scratchChain[0 ..< members].reverse()
        // Chain lengths are inherited from candidates that may have left the ring.
        guard members >= (recent ? settings.stepsToResume : settings.stepsToConfirm) else { return 0 }

        // Period: the median interval.
        var periods = RecentValues(capacity: capacity)
        for m in 1 ..< members { periods.append(times[slot(scratchChain[m])] - times[slot(scratchChain[m - 1])]) }
        let period = periods.median()
        var heights = RecentValues(capacity: capacity)
        for m in 0 ..< members { heights.append(amplitudes[slot(scratchChain[m])]) }
        let medianHeight = heights.median()
        guard medianHeight >= settings.minimumMedianAmplitudeG else { return 0 }
        // Variation of the heights, robustly: 1.4826 x their median absolute deviation over
        // their median (the coefficient of variation for normally spread heights). One large
        // arm movement among the steps does not decide it; heights of all sizes still do.
        heights.removeAll()
        for m in 0 ..< members { heights.append(abs(amplitudes[slot(scratchChain[m])] - medianHeight)) }
        let amplitudeVariation = medianHeight > 0 ? 1.4826 * heights.median() / medianHeight : .infinity

        // Periodicity of the signal over the chain, at the step and the stride.
        let start = indices[slot(scratchChain[0])] - 2
        let end = indices[slot(newest)] + 2
        let lag = Int((period * settings.sampleRateHz).rounded())
        let stepRepetition = history.correlation(start: start, end: end, lagSamples: lag)
        let periodicity = max(stepRepetition, history.correlation(start: start, end: end, lagSamples: 2 * lag))
        // Left and right steps may look different in the band (the arm swings once per
        // stride), so a chain may be periodic at twice its period only; but each step is
        // still a heel strike, the same event every step, and shows in the band or, above
        // the arm swing, in the high band at one period. A rhythm that repeats only every
        // other peak in both is two different movements taking turns (dressing), not steps.
        if stepRepetition < settings.minimumStepRepetition,
           highBand.correlation(start: start, end: end, lagSamples: lag) < settings.minimumStepRepetition {
            return 0
        }
        // A chain that skips every other peak of a faster rhythm (scrubbing, shaking) is not
        // walking: the signal then also repeats at a half or a third of the chain's period.
        if period / 2 < settings.minimumStepIntervalSeconds {
            let fast = max(history.correlation(start: start, end: end, lagSamples: Int((Double(lag) / 2).rounded())),
                           history.correlation(start: start, end: end, lagSamples: Int((Double(lag) / 3).rounded())))
            if fast >= settings.maximumFasterPeriodicity { return 0 }
        }

        // The wrist shows heel strikes over the chain, but most members are not among them:
        // the chain follows the wrist's own movement between slow steps.
        let strikesOverChain = impulses.count(fromPeakTime: times[slot(scratchChain[0])] - 0.3, toPeakTime: times[slot(newest)] + 0.3)
        var membersOnStrikes = 0
        for m in 0 ..< members where isHeelStrike(times[slot(scratchChain[m])], impulses) { membersOnStrikes += 1 }
        if 2 * strikesOverChain >= members - 1, 2 * membersOnStrikes < members { return 0 }
        // Every other member a heel strike and the rest not: the chain took the wrist's own
        // movement (or the filters' ringing) between slow steps for steps.
        if members >= 4 {
            var strikes = [0, 0]
            for m in 0 ..< members where isHeelStrike(times[slot(scratchChain[m])], impulses) { strikes[m % 2] += 1 }
            let even = Double(strikes[0]) / Double((members + 1) / 2), odd = Double(strikes[1]) / Double(members / 2)
            if max(even, odd) >= 0.75, min(even, odd) <= 0.25 { return 0 }
        }

        let accepted: Bool
        if recent {
            let ratio = period / boutEndPeriod
            accepted = periodicity >= settings.minimumPeriodicityToResume
                && amplitudeVariation <= settings.maximumAmplitudeVariationToResume
                && ratio > 0.65 && ratio < 1.5
        } else if members >= settings.stepsToConfirmLongChain, 4 * membersOnStrikes >= 3 * members {
            // A long run of peaks on the heel strikes at a steady rhythm is walking by its
            // length: the arm moving about between the steps lowers the periodicity and varies
            // the rises, but cannot make that many intervals agree on impulses.
            accepted = periodicity >= settings.minimumPeriodicityToResume
                && amplitudeVariation <= settings.maximumAmplitudeVariationToResume
        } else {
            accepted = periodicity >= settings.minimumPeriodicity
                && amplitudeVariation <= settings.maximumAmplitudeVariation
        }
        guard accepted else { return 0 }

        // Peaks near the middle of most intervals: the chain followed strides.
        var steps = 0
        for m in 0 ..< members where times[slot(scratchChain[m])] > notBefore { steps += 1 }
        var stepPeriod = period
        var middlesFound = 0, middlesAfter = 0, intervalsAfter = 0
        for m in 0 ..< members - 1 {
            let from = scratchChain[m], to = scratchChain[m + 1]
            let t0 = times[slot(from)], span = times[slot(to)] - t0
            let reference = amplitudes[slot(from)]
            var found = false
            var q = from + 1
            while q < to, !found {
                let offset = (times[slot(q)] - t0) / span
                if settings.middleRange.contains(offset), amplitudes[slot(q)] >= settings.middleAmplitudeFraction * reference,
                   isHeelStrike(times[slot(q)], impulses) { found = true }
                q += 1
            }
            let isAfter = t0 + 0.5 * span > notBefore
            if isAfter { intervalsAfter += 1 }
            if found {
                middlesFound += 1
                if isAfter { middlesAfter += 1 }
            }
        }
        var halved = false
        if period / 2 >= settings.minimumStepIntervalSeconds {
            if Double(middlesFound) >= 0.75 * Double(members - 1) {
                halved = true
                steps += middlesAfter
            } else if let heelStrikes = heelStrikePeriod, consistent(period / 2, heelStrikes) {
                // The impulse channel walks on heel strikes at half the chain's period: the
                // chain follows the arm swing, one peak per stride.
                halved = true
                steps += intervalsAfter
            } else if highBand.correlation(start: start, end: end, lagSamples: Int((Double(lag) / 2).rounded())) >= settings.minimumHalfPeriodicity,
                      midpointsHoldSteps(members - 1, window: 0.3, impulses, midpoint: { m in
                          0.5 * (self.times[self.slot(self.scratchChain[m])] + self.times[self.slot(self.scratchChain[m + 1])])
                      }) {
                // The high band repeats at half the chain's period, and the intervals' middles
                // hold impulses: the chain went stride by stride.
                halved = true
                steps += intervalsAfter
            }
            if halved { stepPeriod = period / 2 }
        }
        cadenceIntervals.removeAll()
        for m in 1 ..< members {
            let interval = times[slot(scratchChain[m])] - times[slot(scratchChain[m - 1])]
            cadenceIntervals.append(halved ? interval / 2 : interval)
        }

        var firstStep = times[slot(scratchChain[0])]
        if times[slot(scratchChain[0])] - stepPeriod > notBefore {
            let earliest = max(oldestUsableSequence, newest - earlierTimes.count + 1)
            let backward = extendBackwards(from: scratchChain[0], lowest: earliest, period: stepPeriod, notBefore: notBefore,
                                            smallest: settings.extensionAmplitudeFraction * medianHeight, impulses: impulses)
            steps += backward.steps
            firstStep = backward.earliest
        }
        if recent { steps += bridgeOnHeelStrikes(until: firstStep, notBefore: notBefore, impulses: impulses) }

        followsStrides = halved || (recent && boutEndFollowedStrides)
        isWalking = true
        lateStep = nil
        countedAhead = 0
        confirmedOnHeelStrikes = !recent && 4 * membersOnStrikes >= 3 * members
        confirmedFromSeconds = firstStep
        unhalvedIntervals = halved ? nil : intervalsAfter
        confirmedPeriod = stepPeriod
        heelStrikeStepPeriod = stepPeriodOnHeelStrikes.flatMap { consistent(stepPeriod, $0) ? $0 : nil }
        stepPeriodSeconds = stepPeriod
        intervals.removeAll()
        intervals.append(stepPeriod)
        middles.removeAll()
        recentStepIndices.removeAll()
        recentMidpoints.removeAll()
        middleTime = nil
        held = nil
        windowCount = 0
        recentStepTimes.removeAll()
        for m in max(0, members - 8) ..< members { logStep(times[slot(scratchChain[m])]) }
        followedSteps.removeAll()
        for m in max(0, members - followedSteps.capacity) ..< members {
            let q = slot(scratchChain[m])
            followedSteps.append(StepCandidate(timeSeconds: times[q], amplitudeG: amplitudes[q], sampleIndex: indices[q]))
        }
        recentRises.removeAll()
        for m in 0 ..< members { recentRises.append(amplitudes[slot(scratchChain[m])]) }
        gapCandidates.removeAll()
        let newestSlot = slot(newest)
        lastStepTime = times[newestSlot]
        lastStepAmplitude = amplitudes[newestSlot]
        return steps
    }
}
