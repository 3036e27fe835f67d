import RealModule

/// A streaming step counter built on cadence: one accelerometer sample in at a time, constant
/// memory, any rate from 12.5 to 125 Hz, irregular timing, three axes or |a| alone, any
/// orientation (docs/steps.md).
///
/// 1. **Signal** (`GaitSignal`): |a|, and the three axes when there are three, resampled to
///    25 Hz, band-passed (0.3-4 Hz: the slowest arm swing to the fastest step's harmonics) and
///    clipped at twice their recent mean size.
/// 2. **Rhythm** (`RunningAutocorrelation`, `RhythmAnalysis`): every second, the
///    autocorrelation of the last 10 s of |a| and of the three-axis vector (the median of five
///    2-s blocks, so that a turn spoils one block, not the window) gives the shortest period at
///    which the movement repeats, how clearly it does, and whether that period is one step or
///    a stride (the arm turns back at every step; on |a| alone, the step line against the
///    stride line; and a walker's typical cadence).
/// 3. **Walks** (`WalkTracker`): a clear rhythm held for 2 s starts a walk, a weaker one at the
///    same period keeps it going; the walk's steps are its cadence integrated over its
///    duration, its start and end placed where the movement fades.
///
/// Steps are released once they are certain: about 10 s after they were taken, once the walk
/// holds `minimumWalkSteps` such steps (a walk's first steps all at once: never with the frame
/// that confirms the walk, at the earliest one frame, 1 s, later). `finish()` releases what
/// the end of a stream leaves pending.
///
/// Cadence (`cadenceStepsPerMinute`) is the walk's, from its newest window, published once per
/// second of sample time, and 0 when no walk is under way.
public struct StepCounter: Sendable {
    /// Rate of the band-passed signal and of the rhythm analysis, Hz: lags of 40 ms, within 8 %
    /// of the fastest step (0.3 s), and a Nyquist frequency three times the band's high edge
    /// (4 Hz). At 12.5 Hz the 3-axis devices' false steps rise to 37 per hour pooled and
    /// Pebble's walking error by 0.5 points (docs/steps.md, "Cost and memory").
    static let rateHz = 25.0
    /// How often the rhythm is measured, seconds (a whole number of samples).
    static let hopSeconds = 1.0
    /// The pace the band compares with the limit is measured on the newest two blocks (4 s):
    /// a change of pace shows in them within about 5 s.
    static let paceBlocks = 2
    /// Half the width of a heel strike's transient at the wrist, seconds: a landing's shock
    /// rises and falls within about 0.1-0.25 s, a swing of the arm takes far longer.
    static let heelStrikeHalfWidthSeconds = 0.12
    /// The highest the band-pass's high edge may be, as a share of the analysis rate: under
    /// Nyquist (half the rate), where the Butterworth design stops. At 25 Hz that is 11.25 Hz,
    /// far above the 4 Hz edge: it binds only if the rate or the fastest cadence changes.
    static let highestBandEdgeShareOfRate = 0.45
    /// Lags measured beyond the longest stride: the searches around a lag (the comb's spread,
    /// the peaks' tolerances) read up to one lag past it, and a peak there needs the lag after
    /// it (to be a peak, and for the parabola that refines it).
    static let lagsBeyondLongestStride = 2
    /// Heel strikes kept beyond one per shortest step in a window: they are a refractory period
    /// apart, rounded down to whole samples (0.28 s for the 0.3 s step at 25 Hz), and a window
    /// holds one more than the intervals between them: at the standard parameters at most 36 in
    /// 10 s against 34 shortest steps (a draw of the cadence range can leave the worst case one
    /// over, which drops the oldest). Landings a real step apart come far fewer.
    static let spareHeelStrikes = 4
    /// Input gaps longer than this, in seconds, end a walk and restart the stream (and so does
    /// time going back further).
    public static let maximumGapSeconds = 2.5
    /// The signal kept for placing a walk's edges, seconds. At the standard 10 s window a start
    /// is searched back at most 19 s from the newest value: half a window to the newest frame's
    /// centre, up to a window's worth of frames before it (a gathered start, 9 s) and half a
    /// window beyond. Fixed, not derived from the window, which the parameter draws move by up
    /// to 10 %: at a longer window the search stops at the oldest value kept, and a derived
    /// length would change what the draws that lengthen the window count.
    static let envelopeSeconds = 20.0

    public let parameters: Parameters
    /// What the band knows of the wearer's activity that the signal cannot tell (nil: nothing,
    /// the counter as it always ran). Set when a mindful walk starts, cleared when it ends; it
    /// acts from the next analysis window (`Context`).
    public var context: Context? {
        didSet { tracker.context = context }
    }
    public private(set) var totalSteps = 0
    /// Steps per minute of the walk under way, updated once per second; 0 when not walking.
    public private(set) var cadenceStepsPerMinute: Double = 0
    /// Whether a walk is under way (confirmed, not yet ended).
    public var isWalking: Bool { tracker.isWalking }
    /// Seconds of the walks counted and ended so far, each from its start to its end: the
    /// time `totalSteps` were taken in (after `finish()`, all of them).
    public var walkingSeconds: Double { tracker.walkingSeconds }

    private let window: Int
    private let hopSeconds: Double
    private var signal: GaitSignal
    private var magnitudeCorrelation: RunningAutocorrelation
    private var vectorCorrelation: RunningAutocorrelation
    private let analysis: RhythmAnalysis
    private var tracker: WalkTracker
    private var heelStrikes: HeelStrikes
    private var bouts: ShortBouts
    private var envelope: RingBuffer<Double>
    private var magnitudeR: [Double]
    private var vectorR: [Double]
    private var recentR: [Double]
    private let taper: [Double]
    private var analysisTimeSeconds = 0.0
    private var nextCadenceUpdateSeconds: Double?

    /// What one analysis window showed and what the tracker made of it: a developer's trace
    /// (`score-steps --trace`), not part of the counter's contract.
    @_spi(Diagnostics) public struct FrameRecord: Sendable {
        /// End of the window, seconds (its middle is half a window earlier).
        public var timeSeconds: Double
        public var basePeriodSeconds: Double?
        public var periodicity: Double
        public var strideVote: Double
        public var rmsG: Double
        public var isCandidate: Bool
        public var periodicityAtFollowed: Double
        public var heelStrikesOnStep: Bool
        /// The step period the walk follows after this frame, seconds (nil: no walk).
        public var followedStepPeriodSeconds: Double?
        /// The cadence the walk would publish after this frame, steps per minute (0: no walk).
        public var cadenceStepsPerMinute: Double
        public var totalSteps: Int
    }
    /// Set to record every frame into `frameRecords` and every walk into `walkRecords` (memory
    /// grows with the stream).
    @_spi(Diagnostics) public var recordsFrames = false {
        didSet { tracker.recordsWalks = recordsFrames }
    }
    /// Each walk that ended: start and end, seconds, and its steps (fewer than
    /// `minimumWalkSteps` are not counted).
    @_spi(Diagnostics) public var walkRecords: [(startSeconds: Double, endSeconds: Double, steps: Int)] { tracker.walkRecords }
    @_spi(Diagnostics) public private(set) var frameRecords: [FrameRecord] = []
    /// The short bouts released (`ShortBouts`), each release with its stretch.
    @_spi(Diagnostics) public private(set) var boutRecords: [StepRelease] = []

    public init(parameters: Parameters = .standard) {
        self.parameters = parameters
        let rate = Self.rateHz
        let stretch = Swift.max(1, Int((Self.hopSeconds * rate).rounded(.down)))
        let stretchesPerBlock = Swift.max(1, Int((parameters.windowSeconds * rate / Double(stretch * RunningAutocorrelation.blocks)).rounded()))
        window = RunningAutocorrelation.blocks * stretchesPerBlock * stretch
        hopSeconds = Double(stretch) / rate
        let maximumLag = Int((parameters.longestStrideSeconds * rate).rounded(.up)) + Self.lagsBeyondLongestStride
        signal = GaitSignal(rateHz: rate, maximumGapSeconds: Self.maximumGapSeconds, lowHz: parameters.bandLowHz,
                            highHz: Swift.min(parameters.bandHighHz, Self.highestBandEdgeShareOfRate * rate),
                            clipRatio: parameters.clipRatio, clipTimeConstantSeconds: parameters.clipTimeConstantSeconds,
                            heelStrikeHalfWidthSeconds: Self.heelStrikeHalfWidthSeconds)
        magnitudeCorrelation = RunningAutocorrelation(channels: 1, maximumLag: maximumLag,
                                                      stretchesPerBlock: stretchesPerBlock, stretchLength: stretch)
        vectorCorrelation = RunningAutocorrelation(channels: 3, maximumLag: maximumLag,
                                                   stretchesPerBlock: stretchesPerBlock, stretchLength: stretch)
        analysis = RhythmAnalysis(rateHz: rate, parameters: parameters, maximumLag: maximumLag)
        tracker = WalkTracker(parameters: parameters, hopSeconds: hopSeconds)
        let refractorySamples = Swift.max(1, Int((parameters.shortestStepSeconds * rate).rounded(.down)))
        let heelStrikeCapacity = Int((parameters.windowSeconds / parameters.shortestStepSeconds).rounded(.up))
            + Self.spareHeelStrikes
        heelStrikes = HeelStrikes(floorG: parameters.heelStrikeG, refractorySamples: refractorySamples,
                                  capacity: heelStrikeCapacity)
        // A bout is held until no walk can start over it: a start is searched back through the
        // envelope, and a walk that resumes another within a window counts from it.
        bouts = ShortBouts(parameters: parameters, holdSeconds: Self.envelopeSeconds + parameters.windowSeconds)
        let envelopeCount = Int(Self.envelopeSeconds * rate)
        envelope = RingBuffer(capacity: envelopeCount, filling: 0)
        magnitudeR = [Double](repeating: 0, count: maximumLag + 1)
        vectorR = [Double](repeating: 0, count: maximumLag + 1)
        recentR = [Double](repeating: 0, count: maximumLag + 1)
        let n = window
        taper = (0 ..< n).map { 0.5 - 0.5 * Double.cos(2 * Double.pi * Double($0) / Double(n - 1)) }
    }

    /// Numbers held in the counter's buffers: fixed when it is made (constant memory).
    var bufferElementCount: Int {
        magnitudeCorrelation.bufferElementCount + vectorCorrelation.bufferElementCount + envelope.capacity
            + heelStrikes.bufferElementCount + 3 * ShortBouts.capacity + magnitudeR.count + vectorR.count + recentR.count + taper.count
    }

    /// Feeds one sample; returns the steps it releases (0 or more).
    public mutating func process(_ sample: AccelerationSample) -> Int {
        processTimed(sample).steps
    }

    /// Feeds one sample; returns the steps it releases and the stretches of sample time they
    /// were taken in (`StepReleases`: a walk's and a bout's apart), for a recorder that files
    /// steps under the seconds they belong to.
    public mutating func processTimed(_ sample: AccelerationSample) -> StepReleases {
        signal.append(sample)
        var released = signal.didRestart ? restart() : StepReleases()
        while let tick = signal.nextTick() { analyse(tick, releasingInto: &released) }
        totalSteps += released.steps
        updateCadence(at: sample.timeSeconds)
        return released
    }

    /// Counts a whole recording as `amble analyze steps` does (finished at its end), with the
    /// cadence the band would compare with the limit: the published value once per second of
    /// sample time, while a walk is under way. A developer's measurement (`score-steps`, the
    /// development-set tests).
    @_spi(Diagnostics) public static func countWithCadence(_ samples: some Sequence<AccelerationSample>, parameters: Parameters = .standard,
                                                           context: Context? = nil)
        -> (steps: Int, cadences: [Double], walkingSeconds: Double) {
        var counter = StepCounter(parameters: parameters)
        counter.context = context
        var cadences: [Double] = []
        var seconds = SampleSeconds()
        for sample in samples {
            _ = counter.process(sample)
            let completed = seconds.completed(by: sample.timeSeconds)
            // A walk is under way only across gaps it bridges (2.5 s at most).
            if completed > 0, counter.cadenceStepsPerMinute > 0 {
                cadences += repeatElement(counter.cadenceStepsPerMinute, count: Int(min(completed, Self.maximumGapSeconds + 1)))
            }
        }
        _ = counter.finish()
        return (counter.totalSteps, cadences, counter.walkingSeconds)
    }

    /// Ends the stream: a walk under way ends where its movement fades, and its remaining steps
    /// are released. The counter may go on afterwards as if after a gap.
    public mutating func finish() -> Int {
        finishTimed().steps
    }

    /// `finish()`, with the stretches of sample time the released steps were taken in.
    public mutating func finishTimed() -> StepReleases {
        let released = restart()
        totalSteps += released.steps
        cadenceStepsPerMinute = 0
        resetAnalysis()
        return released
    }

    /// What `finishTimed()` would release now, without ending the stream: steps taken and
    /// counted but not yet released (about the last 10 s of a walk under way, and the short
    /// bouts held), with the stretches they were taken in. A band that keeps these with each
    /// second it stores loses no more than the second under way when the power is cut.
    public var pendingRelease: StepReleases {
        let ending = tracker.pendingEnding(envelope: currentEnvelope())
        var released = StepReleases(ending.release)
        released.append(contentsOf: bouts.finalRelease(covered: tracker.lastCountedWalkSpan, alsoCovered: ending.counted))
        return released
    }

    /// The steps of `pendingRelease`.
    public var pendingSteps: Int { pendingRelease.steps }

    // MARK: Stages

    /// Ends the walk under way and releases its steps and the bouts that no counted walk covers.
    private mutating func restart() -> StepReleases {
        let ending = tracker.pendingEnding(envelope: currentEnvelope())
        var released = StepReleases(tracker.finish(envelope: currentEnvelope()) > 0 ? tracker.lastRelease : .none)
        let boutRelease = bouts.finalRelease(covered: tracker.lastCountedWalkSpan, alsoCovered: ending.counted)
        if recordsFrames { boutRecords.append(contentsOf: boutRelease) }
        released.append(contentsOf: boutRelease)
        resetAnalysis()
        return released
    }

    private mutating func resetAnalysis() {
        tracker.reset()
        magnitudeCorrelation.reset()
        vectorCorrelation.reset()
        heelStrikes.reset()
        bouts.reset()
        envelope.removeAll()
    }

    private mutating func analyse(_ tick: GaitSignal.Tick, releasingInto released: inout StepReleases) {
        magnitudeCorrelation.append(SIMD4(tick.magnitude, 0, 0, 0))
        // The second correlation holds the three axes, or on |a| alone the heel strikes: there
        // the arm's swing is hardly seen, and the landings carry the steps.
        vectorCorrelation.append(signal.hasAxes ? SIMD4(tick.x, tick.y, tick.z, 0) : SIMD4(tick.clippedHeelStrike, 0, 0, 0))
        envelope.append(tick.magnitude)
        let landing = heelStrikes.append(tick.heelStrike, timeSeconds: tick.timeSeconds - Double(signal.heelStrikeHalfWidth) / Self.rateHz)
        // Short bouts on three axes, and not during a mindful walk (walking is presumed there).
        if signal.hasAxes, context == nil {
            bouts.append(magnitude: tick.magnitude, x: tick.x, y: tick.y, z: tick.z)
            if let landing { bouts.landed(atSeconds: landing.timeSeconds, amplitudeG: landing.amplitudeG) }
            // A landing is settled a refractory period after its peak, which is a half-width old.
            bouts.advance(toSeconds: tick.timeSeconds - Double(signal.heelStrikeHalfWidth + heelStrikes.refractorySamples + 1) / Self.rateHz)
        }
        analysisTimeSeconds = tick.timeSeconds
        guard magnitudeCorrelation.completedStretchNow, magnitudeCorrelation.isFull else { return }
        let frame = measureRhythm(atSeconds: tick.timeSeconds)
        let walked = tracker.process(frame, envelope: currentEnvelope())
        if walked > 0 { released.append(tracker.lastRelease) }
        // Bouts that a counted walk covers are its steps; the others are released once no walk
        // can start over them.
        if let span = tracker.lastCountedWalkSpan { bouts.dropCovered(from: span.lowerBound, to: span.upperBound) }
        if let start = tracker.countedWalkStartSeconds { bouts.dropCovered(from: start, to: .infinity) }
        let boutRelease = bouts.release(now: tick.timeSeconds, lastWalkEndSeconds: tracker.lastWalkEndSeconds,
                                  walkStartSeconds: tracker.walkStartSeconds)
        released.append(contentsOf: boutRelease)
        if recordsFrames {
            boutRecords.append(contentsOf: boutRelease)
            frameRecords.append(FrameRecord(timeSeconds: tick.timeSeconds, basePeriodSeconds: frame.basePeriodSeconds,
                                            periodicity: frame.periodicity, strideVote: frame.strideVote, rmsG: frame.rmsG,
                                            isCandidate: frame.isCandidate, periodicityAtFollowed: frame.periodicityAtFollowed,
                                            heelStrikesOnStep: frame.heelStrikesOnStep,
                                            followedStepPeriodSeconds: tracker.followedStepPeriodSeconds,
                                            cadenceStepsPerMinute: tracker.cadenceStepsPerMinute,
                                            totalSteps: totalSteps + Swift.max(0, walked) + boutRelease.steps))
        }
    }

    /// The rhythm of the window ending now.
    private mutating func measureRhythm(atSeconds time: Double) -> RhythmFrame {
        let rate = Self.rateHz
        let axes = signal.hasAxes
        // The blocks in which the wrist moves make the median: a still block's RMS is at the
        // sensors' noise (half the noise floor). Not while the window holds the stream's first
        // seconds: the clipping limit rises from its floor (twice 0.01 g) over its time constant,
        // and a block of them would look still.
        let settled = Double(magnitudeCorrelation.completedStretches) * hopSeconds >= parameters.windowSeconds + parameters.clipTimeConstantSeconds
        let moving = settled ? magnitudeCorrelation.movingBlocks(energyPerSampleAtLeast: parameters.noiseFloorG * parameters.noiseFloorG / 4)
            : (1 << RunningAutocorrelation.blocks) - 1
        magnitudeCorrelation.normalized(into: &magnitudeR, moving: moving)
        vectorCorrelation.normalized(into: &vectorR, moving: moving)
        let magnitudeEnergy = magnitudeCorrelation.windowEnergy
        let rms = (magnitudeEnergy / Double(window)).squareRoot()


        var best = analysis.basePeriod(magnitudeR)
        if let vector = analysis.basePeriod(vectorR), vector.periodicity > (best?.periodicity ?? -1) {
            best = vector
        }
        var frame = RhythmFrame(centreSeconds: time - Double(window) / rate / 2, basePeriodSeconds: nil, periodicity: 0,
                                strideVote: 0, rmsG: rms, isCandidate: false, periodicityAtFollowed: 0)
        if let followed = tracker.followedStepPeriodSeconds {
            frame.periodicityAtFollowed = analysis.periodicity(magnitude: magnitudeR, vector: vectorR, at: followed)
            // The pace now: the stride in the newest two blocks (4 s) of |a|.
            magnitudeCorrelation.newestBlocks(Self.paceBlocks, into: &recentR)
            frame.recentStrideSeconds = analysis.stride(near: 2 * followed, in: recentR)
            frame.heelStrikesOnFollowed = heelStrikes.confirm(stepPeriod: followed, from: time - Double(window) / rate, to: time)
        }
        guard let best else { return frame }
        let period = best.lag / rate
        frame.basePeriodSeconds = period
        frame.periodicity = best.periodicity
        // Whether the window's heel strikes fall on the base period or on half of it: on |a|
        // alone, evidence for step or stride (with three axes the arm's turns tell it better).
        let windowStart = time - Double(window) / rate
        if axes {
            // The vote does not take them: only the reading it chooses is confirmed.
            frame.strideVote = analysis.strideVote(period: period, vector: vectorR, magnitudeSpectrumRatio: nil, rmsG: rms,
                                                   expectedStepsPerMinute: context?.expectedStepsPerMinute)
            let step = frame.strideVote > 0 ? period / 2 : period
            frame.heelStrikesOnStep = heelStrikes.confirm(stepPeriod: step, from: windowStart, to: time)
        } else {
            let onBase = heelStrikes.confirm(stepPeriod: period, from: windowStart, to: time)
            let onHalf = heelStrikes.confirm(stepPeriod: period / 2, from: windowStart, to: time)
            let heelEvidence = onHalf == onBase ? 0.0 : (onHalf ? 1 : -1)
            frame.strideVote = analysis.strideVote(period: period, vector: nil, magnitudeSpectrumRatio: spectrumRatio(period: period),
                                                   rmsG: rms, heelStrikeEvidence: heelEvidence,
                                                   expectedStepsPerMinute: context?.expectedStepsPerMinute)
            frame.heelStrikesOnStep = frame.strideVote > 0 ? onHalf : onBase
        }
        let vertical = axes ? magnitudeEnergy / Swift.max(vectorCorrelation.windowEnergy, 1e-12) : 1
        let stepRate = 60 / (frame.stepPeriodSeconds ?? .infinity)
        frame.isCandidate = rms >= parameters.noiseFloorG && vertical >= parameters.verticalShare
            && stepRate >= parameters.slowestCadenceStepsPerMinute && stepRate <= parameters.fastestCadenceStepsPerMinute
        return frame
    }

    /// Power of |a| at twice the base rate over power at the base rate, over the window
    /// (Hann-tapered): above 1, the step line is the stronger and the base period a stride.
    private func spectrumRatio(period: Double) -> Double {
        let n = window
        func power(_ frequencyHz: Double) -> Double {
            let w = 2 * Double.pi * frequencyHz / Self.rateHz
            let step = (cos: Double.cos(w), sin: Double.sin(w))
            var rotation = (cos: 1.0, sin: 0.0)
            var re = 0.0, im = 0.0
            for k in 0 ..< n {
                let x = taper[k] * magnitudeCorrelation.value(age: n - 1 - k)
                re += x * rotation.cos
                im -= x * rotation.sin
                rotation = (rotation.cos * step.cos - rotation.sin * step.sin, rotation.sin * step.cos + rotation.cos * step.sin)
            }
            return re * re + im * im
        }
        let base = power(1 / period)
        return base > 0 ? power(2 / period) / base : 1
    }

    private func currentEnvelope() -> WalkTracker.Envelope {
        WalkTracker.Envelope(values: envelope, newestSeconds: analysisTimeSeconds, rateHz: Self.rateHz)
    }

    private mutating func updateCadence(at timeSeconds: Double) {
        guard let due = nextCadenceUpdateSeconds else {
            nextCadenceUpdateSeconds = timeSeconds + 1
            return
        }
        guard timeSeconds >= due else { return }
        cadenceStepsPerMinute = tracker.cadenceStepsPerMinute
        // The next whole second after this sample (gaps skip the seconds they cover).
        nextCadenceUpdateSeconds = due + (timeSeconds - due + 1).rounded(.down)
    }
}

