/// Decides which step candidates are steps: it confirms a walking bout from a run of
/// candidates with a steady rhythm, then follows that rhythm.
///
/// **Confirming a bout.** The last `chainCapacity` candidates are searched for the longest
/// chain whose successive intervals agree within `intervalTolerance` (a candidate may be
/// skipped, so a stray peak does not break the chain). A chain of `stepsToConfirm` or more is
/// a bout when the signal over it repeats at the chain's period or at twice it (a step or a
/// stride: left and right steps may differ on the wrist) with correlation at least
/// `minimumPeriodicity`, and the peaks are alike (coefficient of variation of amplitudes at
/// most `maximumAmplitudeVariation`). All the chain's steps are then released at once, none
/// dropped. Shortly after a bout (`resumeWindowSeconds`), a shorter chain at a similar period
/// resumes walking with looser checks: people pause, turn and look at their wrist mid-walk.
///
/// **Following a bout.** With step period T, the next candidate between 0.65 T and 1.4 T
/// after the last step is a step; one near 2 T or 3 T also counts the 1 or 2 steps missed in
/// between (a weak step the detector did not see). Candidates in between are not steps.
/// When most intervals hold a candidate near their middle, T was a stride (one peak per
/// stride stood out) and is halved, counting those middle peaks. With no fitting candidate
/// for 3.5 T, the bout ends.
struct WalkingBoutTracker: Sendable {
    struct Settings: Sendable, Equatable {
        var chainCapacity = 16
        var stepsToConfirm = 6
        var stepsToResume = 4
        var intervalTolerance = 0.3
        var minimumStepIntervalSeconds = 0.3
        var maximumStepIntervalSeconds = 2.2
        var minimumPeriodicity = 0.5
        var minimumPeriodicityToResume = 0.2
        var maximumAmplitudeVariation = 0.4
        var maximumAmplitudeVariationToResume = 0.6
        var resumeWindowSeconds = 10.0
        var earliestStepFraction = 0.65
        var latestStepFraction = 1.4
        var maximumMissedSteps = 2
        var middleRange: ClosedRange<Double> = 0.3 ... 0.7
        var middleAmplitudeFraction = 0.25
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
    mutating func process(_ candidate: StepCandidate, history: SignalHistory) -> Int {
        advance(to: candidate.timeSeconds)
        if isWalking { return follow(candidate) }
        return search(candidate, history: history)
    }

    // MARK: Following

    private mutating func follow(_ candidate: StepCandidate) -> Int {
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
        stepPeriodSeconds = intervals.median()
        middles.append(sawMiddle ? 1 : 0)
        sawMiddle = false
        if middles.count == 4, middles.sum >= 3, stepPeriodSeconds / 2 >= settings.minimumStepIntervalSeconds {
            steps += Int(middles.sum)
            stepPeriodSeconds /= 2
            intervals.removeAll()
            intervals.append(stepPeriodSeconds)
            middles.removeAll()
        }
        return steps
    }

    private mutating func endBout() {
        isWalking = false
        boutEndTime = lastStepTime
        boutEndPeriod = stepPeriodSeconds
        oldestUsableSequence = nextSequence
    }

    // MARK: Searching

    private func slot(_ seq: Int) -> Int { seq % settings.chainCapacity }

    private func usable(_ seq: Int, before newest: Int) -> Bool {
        seq >= oldestUsableSequence && seq < newest && newest - seq < settings.chainCapacity
    }

    private func consistent(_ interval: Double, _ previous: Double) -> Bool {
        abs(interval - previous) <= settings.intervalTolerance * 0.5 * (interval + previous)
    }

    private mutating func search(_ candidate: StepCandidate, history: SignalHistory) -> Int {
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
        return confirm(newest: newest, predecessor: bestPredecessor, length: bestLength, recent: recent, history: history)
    }

    /// Rebuilds the best chain ending at `newest` and checks it; returns the steps released.
    private mutating func confirm(newest: Int, predecessor: Int, length: Int, recent: Bool, history: SignalHistory) -> Int {
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
        guard members >= 2 else { return 0 }

        // Period: the median interval.
        var periods = RecentValues(capacity: capacity)
        var amplitudeSum = 0.0, amplitudeSquares = 0.0
        for m in 0 ..< members {
            let amplitude = amplitudes[slot(scratchChain[m])]
            amplitudeSum += amplitude
            amplitudeSquares += amplitude * amplitude
            if m > 0 { periods.append(times[slot(scratchChain[m])] - times[slot(scratchChain[m - 1])]) }
        }
        let period = periods.median()
        let meanAmplitude = amplitudeSum / Double(members)
        let amplitudeVariance = max(amplitudeSquares / Double(members) - meanAmplitude * meanAmplitude, 0)
        let amplitudeVariation = meanAmplitude > 0 ? amplitudeVariance.squareRoot() / meanAmplitude : .infinity

        // Periodicity of the signal over the chain, at the step and the stride.
        let start = indices[slot(scratchChain[0])] - 2
        let end = indices[slot(newest)] + 2
        let lag = Int((period * settings.sampleRateHz).rounded())
        let periodicity = max(history.correlation(start: start, end: end, lagSamples: lag),
                              history.correlation(start: start, end: end, lagSamples: 2 * lag))

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
        var steps = members
        var stepPeriod = period
        var middlesFound = 0
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
            if found { middlesFound += 1 }
        }
        if Double(middlesFound) >= 0.75 * Double(members - 1), period / 2 >= settings.minimumStepIntervalSeconds {
            steps += middlesFound
            stepPeriod = period / 2
        }

        isWalking = true
        stepPeriodSeconds = stepPeriod
        intervals.removeAll()
        intervals.append(stepPeriod)
        middles.removeAll()
        sawMiddle = false
        let newestSlot = slot(newest)
        lastStepTime = times[newestSlot]
        lastStepAmplitude = amplitudes[newestSlot]
        return steps
    }
}
