/// Confirms and follows walking from heel-strike impulses (`ImpulseDetector`): the channel
/// for slow, mindful walking, where the arm hardly swings and each step is one sharp impulse
/// on a quiet signal (docs/steps.md, "The impulse channel").
///
/// **Confirming.** For each new impulse, and each earlier impulse 0.375-2.2 s before it as a
/// guess of the step period T, the rhythm is followed backwards: the impulse nearest one
/// period earlier (within `intervalTolerance` T), or two periods earlier when a step left no
/// impulse (a miss), while the period follows the median of the last 4 intervals. The chain
/// that results is walking when
/// - it is long: at least `stepsToConfirm` impulses over at least `minimumSpanSeconds`;
/// - it misses few steps: at most `maximumMissFraction` of its length. A weak heel strike
///   below the detector's floor is not a miss: where the chain skips a period, the impulse
///   signal midway between its two members (within the chain's tolerance) reaching
///   `weakStrikeFraction` of the smaller of them (and `weakStrikeFloorG`) was a step. Slow
///   steps vary in force, and a chain's miss count must not hang on whether one of them
///   cleared the floor by a hundredth of a g. Only at slow paces (`weakStrikeMinimumPeriodSeconds`):
///   at brisker ones the arm's own movements fill the middles;
/// - it is the rhythm of the signal, not a few coincidences in a busy one: impulses outside
///   the chain at least `otherAmplitudeFraction` of the chain's median size number at most
///   `maximumOthersPerStep` per step, and the chain holds at least `minimumExplainedFraction`
///   of the impulse energy over its span (sizes capped at twice the median, so one large
///   gesture does not decide);
/// - its impulses are alike (coefficient of variation at most `maximumAmplitudeVariation`)
///   and step-sized (median at least `minimumMedianAmplitudeG`).
///
/// A slow chain (`alikeMinimumPeriodSeconds`) whose impulses' waveforms are alike
/// (`minimumShapeLikeness`) is walking with looser energy checks (the arm moves between slow
/// steps), when its impulses are a heel strike's size (`alikeMaximumMedianAmplitudeG`).
///
/// Desk work, typing, dressing and washing up give impulses as large, but many more of them
/// and at irregular times, so no chain holds their energy; a metronome-like train of impulses
/// on a quiet signal is what slow walking looks like at the wrist.
///
/// **Following** is the swing channel's (`WalkingBoutTracker`): the next impulse 0.65-1.4 T
/// after the last step is a step, one near 2 T or 3 T also counts the steps missed between,
/// and no fitting impulse for 3.5 T ends the bout.
///
/// **Resuming.** A bout that lapsed (no fitting impulse for 3.5 T) is resumed, as the swing
/// channel's are, by a shorter chain: `stepsToResume` impulses within `resumeWindowSeconds`
/// of its last step, at a similar period, passing the same checks. A walker who turns or
/// changes pace mid-walk goes on at about the pace the bout had; the bout's period may also
/// have drifted off the steps and lapsed on a step that came late for it. The steps between
/// the lapsed bout's last step and the chain are counted at the chain's period (the rhythm
/// went on; its steps were simply not followed). The resumed bout is the lapsed walk going
/// on, so it keeps to the lapsed bout's waveform when that bout did; it does not tell the
/// swing channel that it walks on every heel strike: 4 impulses are too few to rule out a
/// hidden foot between them.
///
/// Constant memory: a ring of `capacity` impulses and fixed scratch arrays.
struct ImpulseBoutTracker: Sendable {
    struct Settings: Sendable, Equatable {
        /// Impulses held for the search (and the longest chain).
        var capacity = 24
        /// Oldest impulse searched, seconds before the newest.
        var horizonSeconds = 16.0
        /// Steps a chain needs to confirm a bout.
        var stepsToConfirm = 8
        /// Shortest span of such a chain, seconds.
        var minimumSpanSeconds = 6.0
        /// How far an impulse may be from where the period puts it, as a fraction of the period.
        var intervalTolerance = 0.2
        /// Shortest and longest step period, seconds (160 to about 27 steps/min).
        var minimumStepIntervalSeconds = 0.375
        var maximumStepIntervalSeconds = 2.2
        /// Largest share of a chain's steps that left no impulse.
        var maximumMissFraction = 0.15
        /// A chain's skipped step is a weak heel strike, not a miss, when the impulse signal
        /// midway between its neighbours reaches this fraction of the smaller of them (the
        /// size from which an impulse is comparable to the chain's, `otherAmplitudeFraction`)
        /// and `weakStrikeFloorG` (half the detector's floor, three times the noise of the
        /// impulse signal).
        var weakStrikeFraction = 0.4
        var weakStrikeFloorG = 0.04
        /// Shortest chain period at which weak heel strikes are looked for, seconds: slow
        /// walking, as for the alike-waveform test.
        var weakStrikeMinimumPeriodSeconds = 1.0
        /// The fixed rate, Hz.
        var sampleRateHz = 25.0
        /// Largest number of comparable impulses outside the chain, per step.
        var maximumOthersPerStep = 0.6
        /// Size, as a fraction of the chain's median, from which an outside impulse counts.
        var otherAmplitudeFraction = 0.4
        /// Smallest share of the impulse energy over the chain's span held by the chain.
        var minimumExplainedFraction = 0.7
        /// Largest coefficient of variation of the chain's impulse sizes.
        var maximumAmplitudeVariation = 0.5
        /// Smallest median impulse of a chain, g.
        var minimumMedianAmplitudeG = 0.1
        /// Earliest and latest next step while following, as fractions of the period.
        var earliestStepFraction = 0.65
        var latestStepFraction = 1.4
        /// Steps that may be missed in a row and still be counted when the rhythm goes on.
        var maximumMissedSteps = 2
        /// Half-width of the waveform of |a| kept around each impulse, samples at the fixed
        /// rate (8 at 25 Hz: 0.32 s either side, a heel strike and what follows it).
        var shapeHalfWidth = 8
        /// Chains whose impulses have alike waveforms (median correlation of each with the
        /// mean of the others at least `minimumShapeLikeness`) are walking with looser energy
        /// checks: `alikeMaximumOthersPerStep` and `alikeMinimumExplainedFraction`, when their
        /// median impulse is at most `alikeMaximumMedianAmplitudeG`.
        var minimumShapeLikeness = 0.8
        var alikeMaximumOthersPerStep = 1.0
        var alikeMinimumExplainedFraction = 0.4
        /// Largest median impulse of such a chain, g: heel strikes of slow steps reach the wrist
        /// at 0.15-0.5 g (the alike chains of the development walks: medians 0.21-0.27 g); a
        /// train of alike 1 g jolts a second apart with the arm moving between them is the arm
        /// at work (dressing: 0.92-1.1 g, likeness 0.75-0.79, 53 false steps once the likeness
        /// limit is 2 % lower).
        var alikeMaximumMedianAmplitudeG = 0.6
        /// Shortest period for those looser checks, seconds: slow walking. Brisker rhythms
        /// between arm movements are the rhythm channel's (`RhythmTracker`, up to 1.0 s), and
        /// alike impulses every other brisk step are a stride.
        var alikeMinimumPeriodSeconds = 1.0
        /// A bout confirmed by its alike waveforms follows only impulses whose waveform
        /// correlates at least this much with the chain's mean waveform.
        var alikeMinimumFollowCorrelation = 0.3
        /// Chain length that resumes a bout which lapsed shortly before (the swing channel's).
        var stepsToResume = 4
        /// How long after a lapsed bout's last step such a chain may resume it, seconds.
        var resumeWindowSeconds = 10.0
        /// Shortest and longest period of a resuming chain relative to the lapsed bout's (the
        /// swing channel's similar pace, 0.65-1.5 times).
        var resumeMinimumPeriodRatio = 0.65
        var resumeMaximumPeriodRatio = 1.5

        /// Periods without a fitting impulse after which a bout lapses: its missed steps and
        /// a margin of 1.5.
        var lapsePeriods: Double { Double(maximumMissedSteps) + 1.5 }
    }

    let settings: Settings

    // Impulse ring: slot = sequence % capacity.
    private var times: [Double]
    private var amplitudes: [Double]
    private var sampleIndices: [Int]
    private var nextSequence = 0
    private var oldestUsableSequence = 0
    // Scratch for building and checking chains (newest first).
    private var chain: [Int]
    private var bestChain: [Int]
    private var chainIntervals: [Double]
    private var scratch: RecentValues
    // Waveform of |a| around each impulse (mean removed), `shapeLength` values per ring slot;
    // `hasShape` false when the history no longer held it.
    private let shapeLength: Int
    private var shapes: [Double]
    private var hasShape: [Bool]
    private var shapeSum: [Double]
    /// Mean waveform of the confirming chain of a bout confirmed by its alike waveforms.
    private var template: [Double]
    private var followsTemplate = false
    /// The detector's impulse signal (`ImpulseDetector.lastValue`), for weak heel strikes;
    /// the value of sample index i is at absolute index i + `impulseSignalLag`.
    private var impulseSignal: SignalHistory
    private var impulseSignalLag = 0

    /// What made a chain walking: it holds the impulse energy with few comparable impulses
    /// between its members, or its impulses' waveforms are alike.
    private enum WalkingEvidence { case heldEnergy, alikeWaveforms }

    /// Whether the input resolves the impulses' waveforms well enough for the alike-waveform
    /// test (the caller sets it from the input rate; see `StepCounter.waveformIntervalLimitSeconds`).
    var waveformsResolved = true

    private(set) var isWalking = false
    /// Whether the bout under way was confirmed by a chain that holds the impulse energy with
    /// few comparable impulses between its members (not by alike waveforms among other
    /// impulses, nor resumed by a short chain): no other heel strike hides between its steps,
    /// so its period is the step.
    var walksOnEveryHeelStrike: Bool { isWalking && !followsTemplate && !resumed }
    /// Whether the bout under way was resumed by a short chain after a lapse.
    private var resumed = false
    /// Period and last step of the bout that lapsed last, while it may be resumed, and whether
    /// it followed its chain's waveform.
    private var lapsedPeriodSeconds = 0.0
    private var lapsedLastStepSeconds = -Double.infinity
    private var lapsedFollowedTemplate = false
    /// Current step period while walking, in seconds.
    private(set) var stepPeriodSeconds = 0.0
    /// Time of the last counted step, in seconds (meaningful while walking).
    private(set) var lastStepTimeSeconds = 0.0
    /// Times of the last steps counted in the bout under way, newest at age 0, and the steps
    /// each counted (more than 1 when it also counted steps missed before it): each interval
    /// between two steps hid one when the bout turns out to have followed strides.
    private var stepTimes = RingBuffer<Double>(capacity: 16, filling: 0)
    private var stepsCounted = RingBuffer<Int>(capacity: 16, filling: 0)
    private var intervals = RecentValues(capacity: 6)
    private var cadenceIntervals = RecentValues(capacity: 8)

    init(settings: Settings) {
        self.settings = settings
        let n = settings.capacity
        times = [Double](repeating: 0, count: n)
        amplitudes = times
        sampleIndices = [Int](repeating: 0, count: n)
        chain = [Int](repeating: 0, count: n)
        bestChain = chain
        chainIntervals = times
        scratch = RecentValues(capacity: n)
        shapeLength = 2 * settings.shapeHalfWidth + 1
        shapes = [Double](repeating: 0, count: n * shapeLength)
        hasShape = [Bool](repeating: false, count: n)
        shapeSum = [Double](repeating: 0, count: shapeLength)
        template = shapeSum
        // The search horizon, and a second for the impulses' delay and the middles' reach.
        impulseSignal = SignalHistory(capacity: Int(((settings.horizonSeconds + 1) * settings.sampleRateHz).rounded(.up)))
    }

    /// Elements held (fixed at init).
    var bufferElementCount: Int {
        times.count + amplitudes.count + sampleIndices.count + chain.count + bestChain.count + chainIntervals.count
            + scratch.capacity + intervals.capacity + cadenceIntervals.capacity + shapes.count + hasShape.count
            + shapeSum.count + template.count + impulseSignal.capacity + stepTimes.capacity + stepsCounted.capacity
    }

    /// Steps per minute over the last 8 step intervals (those within 20 % of their median);
    /// 0 when not walking.
    mutating func cadenceStepsPerMinute() -> Double {
        isWalking ? cadenceIntervals.stepsPerMinute(droppingBeyond: 0.2) : 0
    }

    /// Ends a bout whose rhythm has lapsed by `timeSeconds`; call once per fixed-rate sample.
    mutating func advance(to timeSeconds: Double) {
        if isWalking, timeSeconds - lastStepTimeSeconds > settings.lapsePeriods * stepPeriodSeconds {
            endBout()
            lapsedPeriodSeconds = stepPeriodSeconds
            lapsedLastStepSeconds = lastStepTimeSeconds
            lapsedFollowedTemplate = followsTemplate
        }
    }

    /// Ends the bout under way and forgets the impulses seen so far.
    mutating func endBout() {
        isWalking = false
        lapsedLastStepSeconds = -Double.infinity
        oldestUsableSequence = nextSequence
    }

    /// Ends any bout and forgets the impulses (after a gap in the input).
    mutating func restart() { endBout() }

    /// Feeds one impulse; returns the steps it completes. A confirmed chain releases its steps
    /// later than `notBefore` (earlier ones were counted by the other channel); with
    /// `mayConfirm` false the impulse is only remembered. `magnitude` is the fixed-rate |a|,
    /// indexed as the impulse's `sampleIndex`, from which its waveform is kept.
    mutating func process(_ impulse: StepCandidate, magnitude: SignalHistory, notBefore: Double,
                          mayConfirm: Bool) -> Int {
        advance(to: impulse.timeSeconds)
        if isWalking { return follow(impulse, magnitude: magnitude) }
        let sequence = nextSequence
        nextSequence += 1
        let s = sequence % settings.capacity
        times[s] = impulse.timeSeconds
        amplitudes[s] = impulse.amplitudeG
        sampleIndices[s] = impulse.sampleIndex
        storeShape(slot: s, around: impulse.sampleIndex, magnitude: magnitude)
        while oldestUsableSequence < sequence, sequence - oldestUsableSequence >= settings.capacity
                || impulse.timeSeconds - times[oldestUsableSequence % settings.capacity] > settings.horizonSeconds {
            oldestUsableSequence += 1
        }
        guard mayConfirm else { return 0 }
        return search(newest: sequence, notBefore: notBefore)
    }

    /// Records the impulse signal's value at `sampleIndex`; call once per fixed-rate sample,
    /// in order.
    mutating func recordImpulseSignal(_ value: Double, sampleIndex: Int) {
        impulseSignal.append(value)
        impulseSignalLag = impulseSignal.count - 1 - sampleIndex
    }

    /// Whether the impulse signal holds a weak heel strike midway between the impulses
    /// `earlier` and `later` (within `toleranceSeconds`): at least `weakStrikeFraction` of the
    /// smaller of the two and `weakStrikeFloorG`.
    private func hasWeakStrike(between earlier: Int, and later: Int, toleranceSeconds: Double) -> Bool {
        let middle = (sampleIndices[earlier % settings.capacity] + sampleIndices[later % settings.capacity]) / 2
        let reach = Int((toleranceSeconds * settings.sampleRateHz).rounded())
        let smallest = max(settings.weakStrikeFloorG, settings.weakStrikeFraction * min(amplitude(earlier), amplitude(later)))
        for index in middle - reach ... middle + reach {
            if let value = impulseSignal.value(at: index + impulseSignalLag), value >= smallest { return true }
        }
        return false
    }

    /// The step intervals counted in the bout under way (among its last 15 steps) whose middle
    /// is at or after `timeSeconds`: each hid one step if the bout followed strides.
    func countedIntervals(since timeSeconds: Double) -> Int {
        var n = 0
        for age in stride(from: 0, to: stepTimes.count - 1, by: 1)
        where 0.5 * (stepTimes[age: age] + stepTimes[age: age + 1]) >= timeSeconds { n += stepsCounted[age: age] }
        return n
    }

    /// Keeps the waveform of |a| around `index`, its mean removed.
    private mutating func storeShape(slot: Int, around index: Int, magnitude: SignalHistory) {
        hasShape[slot] = false
        let h = settings.shapeHalfWidth, base = slot * shapeLength
        var mean = 0.0
        for j in 0 ..< shapeLength {
            guard let v = magnitude.value(at: index - h + j) else { return }
            shapes[base + j] = v
            mean += v
        }
        mean /= Double(shapeLength)
        for j in 0 ..< shapeLength { shapes[base + j] -= mean }
        hasShape[slot] = true
    }

    /// How alike the waveforms of the chain's impulses are: the median over members of the
    /// correlation of each with the mean of the others; 0 when a waveform is missing.
    private mutating func shapeLikeness(length: Int) -> Double {
        guard length >= 3 else { return 0 }
        for j in 0 ..< shapeLength { shapeSum[j] = 0 }
        for m in 0 ..< length {
            let slot = chain[m] % settings.capacity
            guard hasShape[slot] else { return 0 }
            let base = slot * shapeLength
            for j in 0 ..< shapeLength { shapeSum[j] += shapes[base + j] }
        }
        scratch.removeAll()
        for m in 0 ..< length {
            let base = (chain[m] % settings.capacity) * shapeLength
            // Both have zero mean: the waveforms do, and so does the sum of the others.
            scratch.append(shapeCorrelation(base: base) { shapeSum[$0] - shapes[base + $0] })
        }
        return scratch.median()
    }

    /// Correlation of the waveform stored at `base` with `other` (by sample), both of zero
    /// mean; 0 when either is flat.
    private func shapeCorrelation(base: Int, with other: (Int) -> Double) -> Double {
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for j in 0 ..< shapeLength {
            let x = shapes[base + j], y = other(j)
            sxy += x * y; sxx += x * x; syy += y * y
        }
        let d = (sxx * syy).squareRoot()
        return d > 1e-12 ? sxy / d : 0
    }

    // MARK: Following

    private mutating func follow(_ impulse: StepCandidate, magnitude: SignalHistory) -> Int {
        let t = stepPeriodSeconds
        let dt = impulse.timeSeconds - lastStepTimeSeconds
        guard dt >= settings.earliestStepFraction * t else { return 0 }
        let n = Int((dt / t).rounded())
        guard n >= 1, n <= settings.maximumMissedSteps + 1,
              abs(dt - Double(n) * t) <= (settings.latestStepFraction - 1) * t else { return 0 }
        if followsTemplate {
            // Keep to the steps' waveform: the arm's movements between steps are let through.
            let slot = nextSequence % settings.capacity
            storeShape(slot: slot, around: impulse.sampleIndex, magnitude: magnitude)
            guard hasShape[slot] else { return 0 }
            hasShape[slot] = false
            guard shapeCorrelation(base: slot * shapeLength, with: { template[$0] }) >= settings.alikeMinimumFollowCorrelation else { return 0 }
        }
        lastStepTimeSeconds = impulse.timeSeconds
        stepTimes.append(impulse.timeSeconds)
        stepsCounted.append(n)
        intervals.append(dt / Double(n))
        cadenceIntervals.append(dt / Double(n))
        stepPeriodSeconds = intervals.median()
        return n
    }

    // MARK: Searching

    private func time(_ sequence: Int) -> Double { times[sequence % settings.capacity] }
    private func amplitude(_ sequence: Int) -> Double { amplitudes[sequence % settings.capacity] }

    /// Follows the rhythm set by `newest` and `previous` backwards into `chain` (newest
    /// first); returns its length, misses and median interval.
    private mutating func buildChain(newest: Int, previous: Int) -> (length: Int, misses: Int, period: Double) {
        var period = time(newest) - time(previous)
        chain[0] = newest
        chain[1] = previous
        var length = 2, misses = 0, intervalCount = 1
        chainIntervals[0] = period
        var last = previous
        while length < chain.count {
            // The impulse one period before the last member, or two when a step left none;
            // one period is preferred, then the larger and better placed impulse.
            var best = -1, bestMultiple = 0, bestScore = 0.0
            var k = last - 1
            while k >= oldestUsableSequence {
                let d = time(last) - time(k)
                if d > 2.5 * period { break }
                for multiple in 1 ... 2 {
                    let offset = abs(d - Double(multiple) * period)
                    guard offset <= settings.intervalTolerance * period * Double(multiple).squareRoot() else { continue }
                    let score = amplitude(k) / (1 + offset / period)
                    if best < 0 || multiple < bestMultiple || (multiple == bestMultiple && score > bestScore) {
                        best = k
                        bestMultiple = multiple
                        bestScore = score
                    }
                }
                k -= 1
            }
            guard best >= 0 else { break }
            chain[length] = best
            length += 1
            if bestMultiple == 2, period >= settings.weakStrikeMinimumPeriodSeconds,
               hasWeakStrike(between: best, and: last, toleranceSeconds: settings.intervalTolerance * period) {
                // A weak heel strike, not a miss.
            } else {
                misses += bestMultiple - 1
            }
            chainIntervals[intervalCount] = (time(last) - time(best)) / Double(bestMultiple)
            intervalCount += 1
            scratch.removeAll()
            for i in max(0, intervalCount - 4) ..< intervalCount { scratch.append(chainIntervals[i]) }
            period = scratch.median()
            last = best
        }
        scratch.removeAll()
        for i in 0 ..< intervalCount { scratch.append(chainIntervals[i]) }
        return (length, misses, scratch.median())
    }

    /// Whether the chain in `chain[0 ..< length]` is walking (see the type's comment), and by
    /// which evidence; nil when it is not. With `.alikeWaveforms`, `shapeSum` holds the sum of
    /// its waveforms.
    private mutating func walkingEvidence(length: Int, misses: Int, period: Double) -> WalkingEvidence? {
        guard Double(misses) <= settings.maximumMissFraction * Double(length) else { return nil }
        scratch.removeAll()
        var sum = 0.0, squares = 0.0
        for m in 0 ..< length {
            let a = amplitude(chain[m])
            scratch.append(a)
            sum += a
            squares += a * a
        }
        let median = scratch.median()
        guard median >= settings.minimumMedianAmplitudeG else { return nil }
        let mean = sum / Double(length)
        let variation = max(squares / Double(length) - mean * mean, 0).squareRoot() / mean
        guard variation <= settings.maximumAmplitudeVariation else { return nil }
        let cap = 2 * median
        var chainEnergy = 0.0
        for m in 0 ..< length {
            let a = min(amplitude(chain[m]), cap)
            chainEnergy += a * a
        }
        let from = time(chain[length - 1]) - 0.1 * period, to = time(chain[0]) + 0.1 * period
        var spanEnergy = 0.0, comparable = 0
        var q = oldestUsableSequence
        while q < nextSequence {
            let t = time(q)
            if t >= from, t <= to {
                let a = min(amplitude(q), cap)
                spanEnergy += a * a
                if amplitude(q) >= settings.otherAmplitudeFraction * median { comparable += 1 }
            }
            q += 1
        }
        let explained = spanEnergy > 0 ? chainEnergy / spanEnergy : 0
        let othersPerStep = Double(comparable - length) / Double(length)
        if othersPerStep <= settings.maximumOthersPerStep, explained >= settings.minimumExplainedFraction { return .heldEnergy }
        // Steps leave alike waveforms; the arm's movements between them may then add up to
        // about one comparable impulse per step (a heel strike and the settling after it).
        guard waveformsResolved, period >= settings.alikeMinimumPeriodSeconds, median <= settings.alikeMaximumMedianAmplitudeG,
              othersPerStep <= settings.alikeMaximumOthersPerStep, explained >= settings.alikeMinimumExplainedFraction else { return nil }
        return shapeLikeness(length: length) >= settings.minimumShapeLikeness ? .alikeWaveforms : nil
    }

    /// While the other channel walks (this one only remembers impulses): whether the impulses
    /// up to the newest form a walking chain on every heel strike (one that holds the impulse
    /// energy with few comparable impulses between its members, not one of alike waveforms
    /// among others) at about `period` (within the chains' 20 %). Returns the time of the
    /// chain's first impulse and its period, or nil.
    mutating func everyHeelStrikeChain(period: Double) -> (start: Double, period: Double)? {
        let newest = nextSequence - 1
        guard !isWalking, newest > oldestUsableSequence else { return nil }
        let tolerance = settings.intervalTolerance
        var previous = newest - 1
        while previous >= oldestUsableSequence {
            let interval = time(newest) - time(previous)
            if interval > (1 + tolerance) * period { break }
            defer { previous -= 1 }
            guard abs(interval - period) <= tolerance * period else { continue }
            let built = buildChain(newest: newest, previous: previous)
            guard built.length >= settings.stepsToConfirm,
                  time(newest) - time(chain[built.length - 1]) >= settings.minimumSpanSeconds,
                  abs(built.period - period) <= tolerance * period else { continue }
            if walkingEvidence(length: built.length, misses: built.misses, period: built.period) == .heldEnergy {
                return (time(chain[built.length - 1]), built.period)
            }
        }
        return nil
    }

    /// The steps missed between steps at `before` and `after` at about `period` (the interval
    /// rounded to periods, less one), spread evenly over it; only those later than `notBefore`.
    private static func missedSteps(after start: Double, before end: Double, period: Double, notBefore: Double) -> Int {
        let k = Int(((end - start) / period).rounded())
        guard k > 1 else { return 0 }
        var missed = 0
        for j in 1 ..< k where start + Double(j) * (end - start) / Double(k) > notBefore { missed += 1 }
        return missed
    }

    private mutating func search(newest: Int, notBefore: Double) -> Int {
        var bestLength = 0, bestPeriod = 0.0, bestScore = Int.min, bestAlike = false, bestResumes = false
        let mayResume = time(newest) - lapsedLastStepSeconds <= settings.resumeWindowSeconds
        var previous = newest - 1
        while previous >= oldestUsableSequence {
            let interval = time(newest) - time(previous)
            if interval > settings.maximumStepIntervalSeconds { break }
            defer { previous -= 1 }
            guard interval >= settings.minimumStepIntervalSeconds else { continue }
            let built = buildChain(newest: newest, previous: previous)
            let confirms = built.length >= settings.stepsToConfirm
                && time(newest) - time(chain[built.length - 1]) >= settings.minimumSpanSeconds
            let resumes = mayResume && built.length >= settings.stepsToResume
                && built.period >= settings.resumeMinimumPeriodRatio * lapsedPeriodSeconds
                && built.period <= settings.resumeMaximumPeriodRatio * lapsedPeriodSeconds
            guard confirms || resumes else { continue }
            let score = built.length - 2 * built.misses
            guard score > bestScore,
                  let evidence = walkingEvidence(length: built.length, misses: built.misses, period: built.period) else { continue }
            bestAlike = evidence == .alikeWaveforms
            bestResumes = !confirms
            if bestAlike {
                for j in 0 ..< shapeLength { template[j] = shapeSum[j] }
            }
            bestScore = score
            bestLength = built.length
            bestPeriod = built.period
            for m in 0 ..< built.length { bestChain[m] = chain[m] }
        }
        // The period follows the impulses and may drift past the slowest step while the chain
        // is built; such a slow rhythm is not walking.
        guard bestLength > 0, bestPeriod <= settings.maximumStepIntervalSeconds else { return 0 }
        // Release the chain's steps, and those it missed, later than `notBefore`; a resuming
        // chain also the steps since the lapsed bout's last one.
        var steps = 0
        if mayResume {
            steps += Self.missedSteps(after: lapsedLastStepSeconds, before: time(bestChain[bestLength - 1]),
                                      period: bestPeriod, notBefore: notBefore)
        }
        lapsedLastStepSeconds = -Double.infinity
        for m in stride(from: bestLength - 1, through: 0, by: -1) {
            let t = time(bestChain[m])
            if m < bestLength - 1 {
                steps += Self.missedSteps(after: time(bestChain[m + 1]), before: t, period: bestPeriod, notBefore: notBefore)
            }
            if t > notBefore { steps += 1 }
        }
        isWalking = true
        // A resumed bout is the lapsed walk going on: it keeps to the same steps' waveform.
        followsTemplate = bestAlike || (bestResumes && lapsedFollowedTemplate)
        resumed = bestResumes
        stepPeriodSeconds = bestPeriod
        lastStepTimeSeconds = time(newest)
        intervals.removeAll()
        intervals.append(bestPeriod)
        stepTimes.removeAll()
        stepsCounted.removeAll()
        for m in stride(from: min(bestLength, stepTimes.capacity) - 1, through: 0, by: -1) {
            stepTimes.append(time(bestChain[m]))
            let span = m + 1 < bestLength ? time(bestChain[m]) - time(bestChain[m + 1]) : bestPeriod
            stepsCounted.append(max(1, Int((span / bestPeriod).rounded())))
        }
        cadenceIntervals.removeAll()
        for m in 0 ..< bestLength - 1 {
            let span = time(bestChain[m]) - time(bestChain[m + 1])
            let k = max(1, Int((span / bestPeriod).rounded()))
            cadenceIntervals.append(span / Double(k))
        }
        return steps
    }
}
