/// Decides which step candidates are steps: it confirms a walking bout from a run of
/// candidates with a steady rhythm, then follows that rhythm.
///
/// **Confirming a bout.** The last `chainCapacity` candidates are searched for the longest
/// chain whose successive intervals agree within `intervalTolerance` (a candidate may be
/// skipped, so a stray peak does not break the chain). A chain of `stepsToConfirm` or more
/// is a bout when
/// - its peaks are steps' size: median rise at least `minimumMedianAmplitudeG`;
/// - they are alike: coefficient of variation of their rises at most
///   `maximumAmplitudeVariation` (gestures and bumps come in all sizes);
/// - the band-passed signal over the chain repeats at the chain's period or at twice it
///   (a step or a stride: left and right steps may differ on the wrist), correlation at
///   least `minimumPeriodicity`;
/// - it is not every other peak of a faster rhythm (scrubbing, shaking): when half the
///   period is shorter than a step can be, the signal must not also repeat at a half or a
///   third of the period (`maximumFasterPeriodicity`).
///
/// All the chain's steps are then released at once, none dropped, together with the
/// candidates just before it that keep its rhythm (a data gap or a stray peak broke the
/// chain there). Within `resumeWindowSeconds` after a bout, a shorter chain
/// (`stepsToResume`) at a similar period resumes walking with looser checks: people pause,
/// turn and look at their wrist mid-walk.
///
/// **Step or stride.** When the arm swing dominates, one peak per stride stands out and a
/// chain follows strides. The period is halved, counting the steps in between, when most
/// intervals hold a candidate near their middle, or when the high band (above the stride
/// rate) repeats at half the period (`minimumHalfPeriodicity`); both at confirmation and
/// every step while following.
///
/// **Following a bout.** With step period T, the next candidate between 0.65 T and 1.4 T
/// after the last step is a step; one near 2 T or 3 T also counts the 1 or 2 steps missed in
/// between (a weak step the detector did not see). Candidates in between are not steps.
/// With no fitting candidate for 3.5 T, the bout ends.
struct WalkingBoutTracker: Sendable {
    struct Settings: Sendable, Equatable {
        /// Candidates searched for a chain (fixed memory: this squared chain lengths).
        var chainCapacity = 16
        /// Chain length that confirms a bout from rest, steps.
        var stepsToConfirm = 7
        /// Chain length that resumes a bout shortly after one, steps.
        var stepsToResume = 4
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
        /// Largest coefficient of variation of a chain's peak rises.
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
        /// Where a candidate sits in an interval, as a fraction, to count as its middle.
        var middleRange: ClosedRange<Double> = 0.3 ... 0.7
        /// Smallest rise of a middle candidate, as a fraction of the step before it.
        var middleAmplitudeFraction = 0.25
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
    private var sawMiddle = false
    private var boutEndTime = -Double.infinity
    private var boutEndPeriod = 1.0

    init(settings: Settings) {
        self.settings = settings
        let n = settings.chainCapacity
        times = [Double](repeating: 0, count: n)
        amplitudes = times
        indices = [Int](repeating: 0, count: n)
        sequence = [Int](repeating: -1, count: n)
        chainLength = [Int16](repeating: 0, count: n * n)
        scratchChain = [Int](repeating: 0, count: n)
    }

    /// Elements held in the tracker's buffers (fixed at init).
    var bufferElementCount: Int {
        times.count + amplitudes.count + indices.count + sequence.count + chainLength.count + scratchChain.count
            + intervals.capacity + middles.capacity + cadenceIntervals.capacity + recentStepIndices.capacity
    }

    /// Steps per minute over the last 8 step intervals: their mean after dropping those more
    /// than 20 % from their median (a missed or doubled step); 0 when not walking.
    mutating func cadenceStepsPerMinute() -> Double {
        guard isWalking, cadenceIntervals.count > 0 else { return 0 }
        let median = cadenceIntervals.median()
        let mean = cadenceIntervals.mean(within: 0.2 * median, of: median)
        return mean > 0 ? 60 / mean : 0
    }

    /// Time of the last counted step, in seconds (meaningful while walking).
    var lastStepTimeSeconds: Double { lastStepTime }

    /// Ends a bout whose rhythm has lapsed by `timeSeconds`; call once per fixed-rate sample.
    mutating func advance(to timeSeconds: Double) {
        if isWalking, timeSeconds - lastStepTime > (Double(settings.maximumMissedSteps) + 1.5) * stepPeriodSeconds {
            endBout()
        }
    }

    /// Ends any bout and forgets the candidates (after a gap in the input).
    mutating func restart() {
        if isWalking { endBout() }
        oldestUsableSequence = nextSequence
    }

    /// Feeds one candidate; returns the number of steps it completes (0 or more).
    /// `history` is the band-passed signal (0.5-3 Hz); `highBand` the same above 1.2 Hz, where
    /// the step rhythm shows even when the arm swing (at the stride rate) dominates. A bout
    /// confirmed now releases only its steps later than `notBefore` (the earlier ones were
    /// counted by the impulse channel).
    mutating func process(_ candidate: StepCandidate, history: SignalHistory, highBand: SignalHistory,
                          notBefore: Double = -.infinity) -> Int {
        advance(to: candidate.timeSeconds)
        if isWalking { return follow(candidate, highBand: highBand) }
        return search(candidate, history: history, highBand: highBand, notBefore: notBefore)
    }

    // MARK: Following

    private mutating func follow(_ candidate: StepCandidate, highBand: SignalHistory) -> Int {
        let t = stepPeriodSeconds
        let dt = candidate.timeSeconds - lastStepTime
        if dt < settings.earliestStepFraction * t {
            if settings.middleRange.contains(dt / t), candidate.amplitudeG >= settings.middleAmplitudeFraction * lastStepAmplitude {
                sawMiddle = true
            }
            return 0
        }
        let n = Int((dt / t).rounded())
        guard n >= 1, n <= settings.maximumMissedSteps + 1,
              abs(dt - Double(n) * t) <= (settings.latestStepFraction - 1) * t else { return 0 }
        var steps = n
        lastStepTime = candidate.timeSeconds
        lastStepAmplitude = candidate.amplitudeG
        intervals.append(dt / Double(n))
        cadenceIntervals.append(dt / Double(n))
        stepPeriodSeconds = intervals.median()
        middles.append(sawMiddle ? 1 : 0)
        sawMiddle = false
        if middles.count == 4, middles.sum >= 3, stepPeriodSeconds / 2 >= settings.minimumStepIntervalSeconds {
            steps += Int(middles.sum)
            halvePeriod()
            return steps
        }
        // The last 4 intervals also repeat at half the period in the high band: they were
        // strides, each hiding one step.
        recentStepIndices.append(Double(candidate.sampleIndex))
        if recentStepIndices.count == 5, stepPeriodSeconds / 2 >= settings.minimumStepIntervalSeconds {
            let start = Int(recentStepIndices.minimum) - 2
            let lag = Int((stepPeriodSeconds / 2 * settings.sampleRateHz).rounded())
            if highBand.correlation(start: start, end: candidate.sampleIndex + 2, lagSamples: lag) >= settings.minimumHalfPeriodicity {
                steps += 4
                halvePeriod()
            }
        }
        return steps
    }

    private mutating func halvePeriod() {
        stepPeriodSeconds /= 2
        intervals.removeAll()
        intervals.append(stepPeriodSeconds)
        cadenceIntervals.removeAll()
        cadenceIntervals.append(stepPeriodSeconds)
        middles.removeAll()
        recentStepIndices.removeAll()
    }

    private mutating func endBout() {
        isWalking = false
        boutEndTime = lastStepTime
        boutEndPeriod = stepPeriodSeconds
        oldestUsableSequence = nextSequence
    }

    /// Steps before the confirmed chain that keep its rhythm (a gap in the data or a stray
    /// peak broke the chain there): followed backwards as `follow` does forwards, as far as
    /// `notBefore`.
    private func extendBackwards(from first: Int, lowest: Int, period: Double, notBefore: Double) -> Int {
        var steps = 0
        var previous = times[slot(first)]
        var q = first - 1
        while q >= lowest {
            let dt = previous - times[slot(q)]
            q -= 1
            if dt < settings.earliestStepFraction * period { continue }
            let n = Int((dt / period).rounded())
            if n >= 1, n <= settings.maximumMissedSteps + 1, abs(dt - Double(n) * period) <= (settings.latestStepFraction - 1) * period {
                if times[slot(q + 1)] <= notBefore { break }
                steps += n
                previous = times[slot(q + 1)]
                continue
            }
            if dt > (Double(settings.maximumMissedSteps) + 1.5) * period { break }
        }
        return steps
    }

    // MARK: Searching

    private func slot(_ seq: Int) -> Int { seq % settings.chainCapacity }

    private func usable(_ seq: Int, before newest: Int) -> Bool {
        seq >= oldestUsableSequence && seq < newest && newest - seq < settings.chainCapacity
    }

    private func consistent(_ interval: Double, _ previous: Double) -> Bool {
        abs(interval - previous) <= settings.intervalTolerance * 0.5 * (interval + previous)
    }

    private mutating func search(_ candidate: StepCandidate, history: SignalHistory, highBand: SignalHistory, notBefore: Double) -> Int {
        let capacity = settings.chainCapacity
        let newest = nextSequence
        nextSequence += 1
        let s = slot(newest)
        times[s] = candidate.timeSeconds
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
                       history: history, highBand: highBand, notBefore: notBefore)
    }

    /// Rebuilds the best chain ending at `newest` and checks it; returns the steps released
    /// (those later than `notBefore`).
    private mutating func confirm(newest: Int, predecessor: Int, length: Int, recent: Bool, history: SignalHistory,
                                  highBand: SignalHistory, notBefore: Double) -> Int {
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
        let periodicity = max(history.correlation(start: start, end: end, lagSamples: lag),
                              history.correlation(start: start, end: end, lagSamples: 2 * lag))
        // A chain that skips every other peak of a faster rhythm (scrubbing, shaking) is not
        // walking: the signal then also repeats at a half or a third of the chain's period.
        if period / 2 < settings.minimumStepIntervalSeconds {
            let fast = max(history.correlation(start: start, end: end, lagSamples: Int((Double(lag) / 2).rounded())),
                           history.correlation(start: start, end: end, lagSamples: Int((Double(lag) / 3).rounded())))
            if fast >= settings.maximumFasterPeriodicity { return 0 }
        }

        let accepted: Bool
        if recent {
            let ratio = period / boutEndPeriod
            accepted = periodicity >= settings.minimumPeriodicityToResume
                && amplitudeVariation <= settings.maximumAmplitudeVariationToResume
                && ratio > 0.65 && ratio < 1.5
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
                if settings.middleRange.contains(offset), amplitudes[slot(q)] >= settings.middleAmplitudeFraction * reference { found = true }
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
            } else if highBand.correlation(start: start, end: end, lagSamples: Int((Double(lag) / 2).rounded())) >= settings.minimumHalfPeriodicity {
                // The high band repeats at half the chain's period: the chain went stride by stride.
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

        if times[slot(scratchChain[0])] - stepPeriod > notBefore {
            steps += extendBackwards(from: scratchChain[0], lowest: lowest, period: stepPeriod, notBefore: notBefore)
        }

        isWalking = true
        stepPeriodSeconds = stepPeriod
        intervals.removeAll()
        intervals.append(stepPeriod)
        middles.removeAll()
        recentStepIndices.removeAll()
        sawMiddle = false
        let newestSlot = slot(newest)
        lastStepTime = times[newestSlot]
        lastStepAmplitude = amplitudes[newestSlot]
        return steps
    }
}
