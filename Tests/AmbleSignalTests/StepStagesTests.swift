@testable import AmbleSignal
import AmbleSimulation
import Testing

/// The step counter's stages on their own: the front end, the block autocorrelation, the
/// rhythm of a window and the walk tracker.
@Suite("Step counter stages")
struct StepStagesTests {
    // MARK: GaitSignal

    @Test("the axes are resampled and filtered exactly as |a| is", arguments: [12.5, 50, 125])
    func axesInStep(rateHz: Double) {
        // x = y = z = |a| / sqrt(3): linear stages keep the ratio, so the axes' ticks must be
        // |a|'s divided by sqrt(3), tick for tick, whatever the input timing.
        var signal = GaitSignal(rateHz: 25, maximumGapSeconds: 2.5, lowHz: 0.3, highHz: 4, clipRatio: 100, clipTimeConstantSeconds: 4, heelStrikeHalfWidthSeconds: 0.12)
        var random = SeededRandom(seed: 3)
        var t = 0.0
        var ticks = 0
        while t < 30 {
            let magnitude = 1 + 0.3 * Double.sin(2 * .pi * 1.7 * t) + 0.1 * Double.sin(2 * .pi * 0.6 * t)
            let axis = magnitude / 3.0.squareRoot()
            signal.append(AccelerationSample(timeSeconds: t, xG: axis, yG: axis, zG: axis))
            while let tick = signal.nextTick() {
                ticks += 1
                #expect(abs(tick.x * 3.0.squareRoot() - tick.magnitude) < 1e-9, "at \(tick.timeSeconds) s")
                #expect(abs(tick.x - tick.y) < 1e-12 && abs(tick.y - tick.z) < 1e-12)
            }
            t += (1 / rateHz) * (0.6 + 0.8 * random.unit())
        }
        #expect(ticks > 700)
    }

    @Test("a bump is clipped: it cannot outweigh the steps around it")
    func clipping() {
        func largest(clipRatio: Double) -> (bump: Double, steps: Double) {
            var signal = GaitSignal(rateHz: 25, maximumGapSeconds: 2.5, lowHz: 0.3, highHz: 4, clipRatio: clipRatio, clipTimeConstantSeconds: 4, heelStrikeHalfWidthSeconds: 0.12)
            var bump = 0.0, steps = 0.0
            for k in 0 ..< 1000 {
                let t = Double(k) / 25
                let knock = (t > 30 && t < 30.3) ? 3.0 : 0
                signal.append(AccelerationSample(timeSeconds: t, xG: 1 + 0.2 * Double.sin(2 * .pi * 1.8 * t) + knock, yG: 0, zG: 0, isMagnitudeOnly: true))
                while let tick = signal.nextTick() {
                    if t > 29.9 && t < 31 { bump = max(bump, abs(tick.magnitude)) }
                    if t > 20 && t < 29 { steps = max(steps, abs(tick.magnitude)) }
                }
            }
            return (bump, steps)
        }
        let free = largest(clipRatio: 100), clipped = largest(clipRatio: 2)
        #expect(free.bump > 8 * free.steps, "unclipped: a bump of \(free.bump) against steps of \(free.steps)")
        #expect(clipped.bump < 4 * clipped.steps, "clipped: a bump of \(clipped.bump) against steps of \(clipped.steps)")
        #expect(abs(clipped.steps - free.steps) < 0.01, "the steps themselves are not clipped")
    }

    // MARK: RunningAutocorrelation

    @Test("each block's normalised autocorrelation, then their median, as computed directly")
    func blockAutocorrelation() {
        var correlation = RunningAutocorrelation(channels: 3, maximumLag: 30, stretchesPerBlock: 2, stretchLength: 7)
        var random = SeededRandom(seed: 8)
        var values: [[Double]] = []
        for n in 0 ..< 400 {
            let v = [Double.sin(Double(n) * 0.37) + random.gaussian(standardDeviation: 0.5), random.gaussian(standardDeviation: 1),
                     Double.cos(Double(n) * 0.21) * 2 + random.gaussian(standardDeviation: 0.1)]
            values.append(v)
            correlation.append(SIMD4(v[0], v[1], v[2], 0))
        }
        #expect(correlation.completedStretchNow == (400 % 7 == 0))
        // Measure at the end of a whole stretch: feed up to one.
        var n = 400
        while !correlation.completedStretchNow {
            let v = [0.3 * Double(n % 5), 0.1, -0.2]
            values.append(v)
            correlation.append(SIMD4(v[0], v[1], v[2], 0))
            n += 1
        }
        var r = [Double](repeating: 0, count: 31)
        correlation.normalized(into: &r)
        let newest = values.count - 1
        let block = 14
        for lag in 0 ... 30 {
            var perBlock: [Double] = []
            for b in 0 ..< 5 {
                var product = 0.0, e1 = 0.0, e2 = 0.0
                for i in 0 ..< block {
                    let a = values[newest - b * block - i], c = values[newest - b * block - i - lag]
                    for k in 0 ..< 3 { product += a[k] * c[k]; e1 += a[k] * a[k]; e2 += c[k] * c[k] }
                }
                perBlock.append(product / (e1 * e2).squareRoot())
            }
            #expect(abs(r[lag] - perBlock.sorted()[2]) < 1e-9, "lag \(lag)")
        }
    }

    @Test("the median is taken over the blocks that move: a bout's rhythm is not judged by the still seconds around it")
    func stillBlocksLeftOut() {
        // Ten blocks of 25 samples (1-s blocks at 25 Hz: two stretches of 12.5 rounded to 12 and
        // 13 would not be whole, so 5 x 5). The newest three blocks hold a rhythm of 10 samples,
        // the two before them sensor noise (0.005 against 0.1).
        var correlation = RunningAutocorrelation(channels: 1, maximumLag: 12, stretchesPerBlock: 5, stretchLength: 5)
        var random = SeededRandom(seed: 3)
        for n in 0 ..< 125 {
            let walking = n >= 50
            let v = walking ? 0.1 * Double.sin(2 * Double.pi * Double(n) / 10) : random.gaussian(standardDeviation: 0.005)
            correlation.append(SIMD4(v, 0, 0, 0))
        }
        #expect(correlation.completedStretchNow && correlation.isFull)
        let moving = correlation.movingBlocks(energyPerSampleAtLeast: 0.02 * 0.02)
        #expect(moving == 0b00111, "blocks moving: \(String(moving, radix: 2))")
        var all = [Double](repeating: 0, count: 13), movingOnly = all
        correlation.normalized(into: &all)
        correlation.normalized(into: &movingOnly, moving: moving)
        #expect(movingOnly[10] > 0.9, "at the rhythm's period: \(movingOnly[10])")
        // Of five, the median is the walking block whose lagged copy reaches into the still
        // seconds (the third value of five is the lowest of the three walking blocks').
        #expect(all[10] < 0.85, "with the still blocks in the median: \(all[10])")
    }

    @Test("the median of five, in every order")
    func medianOfFive() {
        var random = SeededRandom(seed: 2)
        for _ in 0 ..< 2000 {
            let v = (0 ..< 5).map { _ in (random.unit() * 10).rounded() }
            #expect(RunningAutocorrelation.medianOfFive(v[0], v[1], v[2], v[3], v[4]) == v.sorted()[2], "\(v)")
        }
    }

    @Test("the median of five, four lanes at once, as lane by lane")
    func medianOfFiveLanes() {
        var random = SeededRandom(seed: 3)
        for _ in 0 ..< 500 {
            // Few distinct values, so that ties are frequent.
            let v = (0 ..< 5).map { _ in SIMD4((0 ..< 4).map { _ in (random.unit() * 6).rounded() - 3 }) }
            let m = RunningAutocorrelation.medianOfFive(v[0], v[1], v[2], v[3], v[4])
            for lane in 0 ..< 4 {
                #expect(m[lane] == (0 ..< 5).map { v[$0][lane] }.sorted()[2], "\(v)")
            }
        }
    }

    // MARK: RhythmAnalysis

    /// The block autocorrelation of a signal with the given period and shape, at 25 Hz.
    func correlation(periodSeconds: Double, strideAsymmetry: Double = 0, seconds: Double = 12) -> [Double] {
        var correlation = RunningAutocorrelation(channels: 1, maximumLag: 102, stretchesPerBlock: 2, stretchLength: 25)
        var n = 0
        while Double(n) / 25 < seconds || !correlation.completedStretchNow {
            let t = Double(n) / 25
            let x = Double.sin(2 * .pi * t / periodSeconds) + strideAsymmetry * Double.sin(.pi * t / periodSeconds)
            correlation.append(SIMD4(x, 0, 0, 0))
            n += 1
        }
        var r = [Double](repeating: 0, count: 103)
        correlation.normalized(into: &r)
        return r
    }

    @Test("the base period is the shortest lag that repeats", arguments: [0.45, 0.6, 0.85, 1.1, 1.6])
    func basePeriod(periodSeconds: Double) {
        let analysis = RhythmAnalysis(rateHz: 25, parameters: .standard, maximumLag: 102)
        let found = analysis.basePeriod(correlation(periodSeconds: periodSeconds))
        #expect(found != nil)
        #expect(abs((found?.lag ?? 0) / 25 - periodSeconds) < 0.02 * periodSeconds, "\(String(describing: found))")
        #expect((found?.periodicity ?? 0) > 0.9)
        // With a component at twice the period (one stride), the base is the stride.
        let stride = analysis.basePeriod(correlation(periodSeconds: periodSeconds / 2, strideAsymmetry: 1.5))
        #expect(abs((stride?.lag ?? 0) / 25 - periodSeconds) < 0.03 * periodSeconds, "\(String(describing: stride))")
    }

    @Test("no base period in noise")
    func noRhythm() {
        var correlation = RunningAutocorrelation(channels: 1, maximumLag: 102, stretchesPerBlock: 2, stretchLength: 25)
        var random = SeededRandom(seed: 5)
        for _ in 0 ..< 500 { correlation.append(SIMD4(random.gaussian(standardDeviation: 1), 0, 0, 0)) }
        var r = [Double](repeating: 0, count: 103)
        correlation.normalized(into: &r)
        let found = RhythmAnalysis(rateHz: 25, parameters: .standard, maximumLag: 102).basePeriod(r)
        #expect((found?.periodicity ?? 0) < 0.3)
    }

    @Test("step or stride: the cadence range decides where only one reading fits, else the evidence and the typical cadence")
    func strideVote() {
        let analysis = RhythmAnalysis(rateHz: 25, parameters: .standard, maximumLag: 102)
        // 0.35 s can only be a step (as a stride: 343 steps/min); 2.5 s only a stride (24).
        #expect(analysis.strideVote(period: 0.35, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.2) < 0)
        #expect(analysis.strideVote(period: 2.5, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.2) > 0)
        // 1.1 s: 55 or 109 steps/min; without evidence the typical cadence (105) decides.
        #expect(analysis.strideVote(period: 1.1, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.2) > 0)
        // 0.65 s: 92 or 185; 92 is nearer, unless the wearer runs (typical x 1.5).
        #expect(analysis.strideVote(period: 0.65, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.2) < 0)
        #expect(analysis.strideVote(period: 0.65, vector: nil, magnitudeSpectrumRatio: nil, rmsG: 0.8) > 0)
        // On |a| alone a strong step line (4 x the base line) says stride, a weak one step.
        #expect(analysis.strideVote(period: 0.8, vector: nil, magnitudeSpectrumRatio: 4, rmsG: 0.2) > 0)
        #expect(analysis.strideVote(period: 1.1, vector: nil, magnitudeSpectrumRatio: 0.1, rmsG: 0.2) < 0)
        // Three axes: a vector that turns back after one base period (the arm swings the other
        // way at the next step) says the base is a step.
        var vector = [Double](repeating: 0, count: 103)
        vector[27] = 0.1; vector[28] = 0.1; vector[29] = 0.1   // one period of 1.12 s
        vector[55] = 0.9; vector[56] = 0.9                     // two periods
        #expect(analysis.strideVote(period: 1.12, vector: vector, magnitudeSpectrumRatio: nil, rmsG: 0.2) < 0)
        vector[28] = 0.92
        #expect(analysis.strideVote(period: 1.12, vector: vector, magnitudeSpectrumRatio: nil, rmsG: 0.2) > 0)
        // A mindful walk at 45 steps/min (1.33 s, or a stride at 90): the typical cadence says
        // stride, but an arm that correlates less than half as well after one period as after
        // two says step more clearly than the prior says stride.
        var slow = [Double](repeating: 0, count: 103)
        slow[32] = 0.4; slow[33] = 0.4; slow[34] = 0.4         // one period of 1.33 s
        slow[66] = 0.9; slow[67] = 0.9                         // two periods
        #expect(analysis.strideVote(period: 1.33, vector: slow, magnitudeSpectrumRatio: nil, rmsG: 0.1) < 0)
    }

    // MARK: WalkTracker

    /// A frame of a steady walk: base period `base` read as `vote`.
    func frame(_ centre: Double, base: Double?, periodicity: Double, vote: Double, rms: Double = 0.2, followed: Double = 0.8) -> RhythmFrame {
        RhythmFrame(centreSeconds: centre, basePeriodSeconds: base, periodicity: periodicity, strideVote: vote, rmsG: rms,
                    isCandidate: base != nil && rms >= 0.04, periodicityAtFollowed: followed)
    }

    /// An envelope with movement of `rms` between `from` and `to` seconds, quiet elsewhere.
    func envelope(newest: Double, from: Double, to: Double, rms: Double = 0.2) -> WalkTracker.Envelope {
        let count = 500
        var values = RingBuffer(capacity: count, filling: 0.0)
        for i in 0 ..< count {
            let t = newest - Double(count - 1 - i) / 25
            values.append(t >= from && t <= to ? rms * (i % 2 == 0 ? 1.4 : -1.4) : 0.001)
        }
        return WalkTracker.Envelope(values: values, newestSeconds: newest, rateHz: 25)
    }

    @Test("a walk starts after the rhythm holds, counts from where the movement began, and ends where it fades")
    func walkFromFrames() {
        var tracker = WalkTracker(parameters: .standard, hopSeconds: 1)
        var releases: [StepRelease] = []
        // Walking from 10 s to 70 s at a stride of 1.2 s (100 steps/min); windows of 10 s,
        // each frame's centre 5 s before its end.
        for end in stride(from: 10.0, through: 91, by: 1) {
            let centre = end - 5
            let walking = centre > 12 && centre < 68
            let f = walking ? frame(centre, base: 1.2, periodicity: 0.8, vote: 1) : frame(centre, base: nil, periodicity: 0, vote: 0, rms: 0.01, followed: 0)
            let steps = end > 90 ? tracker.finish(envelope: envelope(newest: 90, from: 10, to: 70)) : tracker.process(f, envelope: envelope(newest: end, from: 10, to: 70))
            if steps > 0 {
                #expect(tracker.lastRelease.steps == steps)
                releases.append(tracker.lastRelease)
            }
        }
        let released = releases.reduce(0) { $0 + $1.steps }
        #expect(abs(released - 100) <= 3, "released \(released) of 100")
        #expect(!tracker.isWalking)
        // Each release says when its steps were taken: together they tile the walk, 10 s to
        // 70 s, at its rate (1 every 0.6 s), although the first came out well after 10 s.
        #expect(abs(releases[0].fromSeconds - 10) <= 1 && abs(releases.last!.throughSeconds - 70) <= 1, "\(releases.first!) ... \(releases.last!)")
        #expect(zip(releases, releases.dropFirst()).allSatisfy { $0.throughSeconds == $1.fromSeconds })
        for release in releases.dropLast() where release.throughSeconds - release.fromSeconds >= 3 {
            #expect(abs(Double(release.steps) - (release.throughSeconds - release.fromSeconds) / 0.6) <= 1.5, "\(release)")
        }
    }

    @Test("fewer than the minimum steps are not a walk")
    func shortRhythm() {
        var tracker = WalkTracker(parameters: .standard, hopSeconds: 1)
        var released = 0
        for end in stride(from: 10.0, through: 40, by: 1) {
            let centre = end - 5
            let walking = centre > 12 && centre < 15
            let f = walking ? frame(centre, base: 1.2, periodicity: 0.8, vote: 1) : frame(centre, base: nil, periodicity: 0, vote: 0, rms: 0.01, followed: 0)
            released += tracker.process(f, envelope: envelope(newest: end, from: 12, to: 17))
        }
        #expect(released == 0)
    }

    @Test("frames that read the walk's period the other way round win it over, and re-read what is not yet released")
    func octaveSwitch() {
        var tracker = WalkTracker(parameters: .standard, hopSeconds: 1)
        var released = 0
        // 100 steps/min with a stride of 1.2 s: the first frames read the base as a step
        // (50 steps/min); from the fourth on, they read it as a stride.
        for end in stride(from: 10.0, through: 90, by: 1) {
            let centre = end - 5
            let walking = centre > 12 && centre < 68
            let vote = centre < 17 ? -0.4 : 1.0
            let f = walking ? frame(centre, base: 1.2, periodicity: 0.8, vote: vote) : frame(centre, base: nil, periodicity: 0, vote: 0, rms: 0.01, followed: 0)
            released += tracker.process(f, envelope: envelope(newest: end, from: 10, to: 70))
            if walking, centre > 25 { #expect(abs(tracker.cadenceStepsPerMinute - 100) < 0.5) }
        }
        released += tracker.finish(envelope: envelope(newest: 90, from: 10, to: 70))
        #expect(abs(released - 100) <= 3, "released \(released) of 100")
    }

    /// A walk whose frames are centred 13-67 s (one a second, quiet before and after): each
    /// walking frame is `walkingFrame(centre, tracker)`. The steps released, and the cadence
    /// published after each walking frame centred past 25 s.
    func walk(_ walkingFrame: (Double, WalkTracker) -> RhythmFrame) -> (released: Int, cadences: [Double]) {
        var tracker = WalkTracker(parameters: .standard, hopSeconds: 1)
        var released = 0
        var cadences: [Double] = []
        for end in stride(from: 10.0, through: 90, by: 1) {
            let centre = end - 5
            let walking = centre > 12 && centre < 68
            let f = walking ? walkingFrame(centre, tracker) : frame(centre, base: nil, periodicity: 0, vote: 0, rms: 0.01, followed: 0)
            released += tracker.process(f, envelope: envelope(newest: end, from: 10, to: 70))
            if walking, centre > 25 { cadences.append(tracker.cadenceStepsPerMinute) }
        }
        released += tracker.finish(envelope: envelope(newest: 90, from: 10, to: 70))
        return (released, cadences)
    }

    @Test("an octave switch in a weak rhythm holds: the last seconds' pace moves with it")
    func octaveSwitchInAWeakRhythm() {
        // As above, but the rhythm at the followed period is weak (0.4: enough to continue, not
        // to start), and each frame's last-4-s stride is measured, as the counter measures it,
        // near twice the step the walk follows at that moment.
        let (released, cadences) = walk { centre, tracker in
            var f = frame(centre, base: 1.2, periodicity: 0.8, vote: centre < 17 ? -0.4 : 1.0, followed: 0.4)
            f.recentStrideSeconds = tracker.followedStepPeriodSeconds.map { 2 * $0 }
            return f
        }
        #expect(abs(released - 100) <= 3, "released \(released) of 100")
        #expect(cadences.allSatisfy { abs($0 - 100) < 0.5 }, "cadences \(cadences)")
    }

    @Test("frames that tie on step or stride do not turn a walk to the other octave")
    func tiedVotesHold() {
        // A slow walk, 50 steps/min, whose frames' evidence for a step and prior for a stride
        // cancel (vote 0: read as a step, with no weight); every fifth frame lands a hair on the
        // stride side (read as half the step). The tie must not switch the walk to 100 steps/min.
        let (released, cadences) = walk { centre, _ in
            frame(centre, base: 1.2, periodicity: 0.8, vote: Int(centre) % 5 == 0 ? 0.001 : 0)
        }
        #expect(abs(released - 50) <= 2, "released \(released) of 50")
        #expect(cadences.allSatisfy { abs($0 - 50) < 0.5 }, "cadences \(cadences)")
        // The other way: a walk of 100 steps/min read as steps in tied windows; every fifth
        // reads its stride (twice the step) a hair on the step side. It stays at 100.
        let (releasedBrisk, cadencesBrisk) = walk { centre, _ in
            Int(centre) % 5 == 0 ? frame(centre, base: 1.2, periodicity: 0.8, vote: -0.001)
                : frame(centre, base: 0.6, periodicity: 0.8, vote: 0)
        }
        #expect(abs(releasedBrisk - 100) <= 3, "released \(releasedBrisk) of 100")
        #expect(cadencesBrisk.allSatisfy { abs($0 - 100) < 0.5 }, "cadences \(cadencesBrisk)")
    }

    @Test("a window whose rhythm repeats after three or four of the walk's steps neither votes nor changes its pace")
    func longerRepeatsOfTheStep() {
        // A slow walk, 60 steps/min (step 1.0 s). Its wrist's own movement makes some windows'
        // base period three steps (26-35 s) or four (45-50 s), clear, and read as strides: as
        // paces of 40 and 30 steps/min, or (four steps) as a vote for twice the step.
        let (released, cadences) = walk { centre, _ in
            switch centre {
            case 26 ... 35: frame(centre, base: 3.0, periodicity: 0.6, vote: 1)
            case 45 ... 50: frame(centre, base: 4.0, periodicity: 0.6, vote: 1)
            default: frame(centre, base: 1.0, periodicity: 0.6, vote: -1)
            }
        }
        #expect(abs(released - 60) <= 2, "released \(released) of 60")
        #expect(cadences.allSatisfy { abs($0 - 60) < 0.5 }, "cadences \(cadences)")
    }

    @Test("a clear new rhythm held for two windows is a new pace, unless its period is longer than any step")
    func newPaceHeld() {
        // A walk at 130 steps/min (step 0.46 s) whose windows from 30 to 40 s read a clear repeat
        // of five steps (2.3 s, a gesture every few seconds on top of the walk): beyond the
        // longest step, read as a stride only because no step is that long. The pace stays.
        let gestures = walk { centre, _ in
            centre >= 30 && centre <= 40 ? frame(centre, base: 2.3, periodicity: 0.8, vote: 1)
                : frame(centre, base: 0.46, periodicity: 0.7, vote: -1)
        }
        #expect(gestures.cadences.allSatisfy { abs($0 - 130) < 1 }, "cadences \(gestures.cadences)")
        // A walk at 45 steps/min (step 1.33 s) that speeds up to 76 at 40 s: its windows read
        // the new step (0.79 s) clearly; two of them make it the pace.
        let faster = walk { centre, _ in
            centre >= 40 ? frame(centre, base: 0.79, periodicity: 0.9, vote: -0.05)
                : frame(centre, base: 1.33, periodicity: 0.8, vote: -1)
        }
        #expect(abs(faster.cadences[(41 - 26)] - 76) < 1, "at 41 s: \(faster.cadences[(41 - 26)])")
        #expect(faster.cadences[..<(40 - 26)].allSatisfy { abs($0 - 45) < 1 }, "before 40 s: \(faster.cadences)")
    }

    @Test("a walk whose rhythm fades below the continuing level goes on while its landings fall one step apart")
    func landingsKeepAWalkGoing() {
        // A slow walk, 60 steps/min: from 30 to 45 s its windows' rhythm at the followed step is
        // 0.2 (below `periodicityToContinue`), smeared by uneven steps.
        func walked(landing: Bool) -> (released: Int, cadences: [Double]) {
            walk { centre, _ in
                var f = frame(centre, base: 1.0, periodicity: 0.6, vote: -1)
                if centre >= 30, centre <= 45 {
                    f = frame(centre, base: 1.0, periodicity: 0.2, vote: -1, followed: 0.2)
                    f.heelStrikesOnFollowed = landing
                }
                return f
            }
        }
        let landed = walked(landing: true)
        #expect(abs(landed.released - 60) <= 2, "released \(landed.released) of 60")
        #expect(landed.cadences.allSatisfy { abs($0 - 60) < 0.5 }, "cadences \(landed.cadences)")
        // Without landings on its step the walk ends there (and resumes later, counting less).
        #expect(walked(landing: false).cadences.contains(0))
    }

    @Test("landings alone do not keep going a rhythm that has not yet made a walk's shortest count")
    func landingsNeedAWalk() {
        // Two clear windows start a walk (60 steps/min) at 13-14 s; from 15 s its rhythm is gone
        // (0.2) while impulses keep falling one step apart, as a hand scrubbing makes them. The
        // walk holds a few steps when its rhythm fades: it ends there, below `minimumWalkSteps`.
        let (released, _) = walk { centre, _ in
            guard centre > 14 else { return frame(centre, base: 1.0, periodicity: 0.8, vote: -1) }
            var f = frame(centre, base: 1.0, periodicity: 0.2, vote: -1, followed: 0.2)
            f.heelStrikesOnFollowed = true
            return f
        }
        #expect(released == 0, "released \(released)")
    }

    @Test("a real majority still turns a walk at once: the second window leaning 0.2 the other way")
    func leaningVotesTurn() {
        // Tied windows (no support) read 50 steps/min until the window centred at 30 s; from
        // 31 s each leans 0.2 towards the stride (0.6 s steps). The first leaves the sum at
        // 0.2, under `leastVotesToSwitch`; the second, 0.4, turns the walk.
        let (_, cadences) = walk { centre, _ in
            frame(centre, base: 1.2, periodicity: 0.8, vote: centre > 30 ? 0.2 : 0)
        }
        // `cadences` starts with the window centred at 26 s.
        #expect(abs(cadences[31 - 26] - 50) < 0.5, "at 31 s: \(cadences[31 - 26])")
        #expect(cadences[(32 - 26)...].allSatisfy { abs($0 - 100) < 0.5 }, "from 32 s: \(cadences[(32 - 26)...])")
    }

    /// A walk of 100 steps/min from 10 s to 70 s whose rhythm is lost for the frames centred in
    /// `gap` while the wrist moves with `gapRMS` (below the noise floor: the wrist is still
    /// there); after the gap, the stride is `strideAfter`.
    func walkWithGap(_ gap: ClosedRange<Double>, gapRMS: Double, strideAfter: Double = 1.2) -> (released: Int, walkingSeconds: Double) {
        var tracker = WalkTracker(parameters: .standard, hopSeconds: 1)
        var released = 0
        func moving(newest: Double) -> WalkTracker.Envelope {
            var e = envelope(newest: newest, from: 10, to: 70)
            guard gapRMS < 0.04 else { return e }
            var values = RingBuffer(capacity: e.values.capacity, filling: 0.0)
            for age in stride(from: e.values.count - 1, through: 0, by: -1) {
                let t = newest - Double(age) / 25
                values.append(gap.contains(t) ? 0.001 : e.values[age: age])
            }
            e.values = values
            return e
        }
        for end in stride(from: 10.0, through: 90, by: 1) {
            let centre = end - 5
            let f: RhythmFrame
            if centre > 12, centre < 68, !gap.contains(centre) {
                f = frame(centre, base: centre < gap.lowerBound ? 1.2 : strideAfter, periodicity: 0.8, vote: 1)
            } else if gap.contains(centre) {
                f = frame(centre, base: nil, periodicity: 0, vote: 0, rms: gapRMS, followed: 0)
            } else {
                f = frame(centre, base: nil, periodicity: 0, vote: 0, rms: 0.01, followed: 0)
            }
            released += tracker.process(f, envelope: moving(newest: end))
        }
        released += tracker.finish(envelope: moving(newest: 90))
        return (released, tracker.walkingSeconds)
    }

    @Test("a walk that resumes at its pace within a window, the wrist moving all the while, is counted through the gap")
    func resumedWalk() {
        // The rhythm is lost for 15 windows: the walk's edges leave 6 s between them.
        let bridged = walkWithGap(32 ... 46, gapRMS: 0.2)
        #expect(abs(bridged.released - 100) <= 3, "released \(bridged.released) of 100")
        #expect(abs(bridged.walkingSeconds - 60) <= 2, "walking \(bridged.walkingSeconds) s")
        // A pace 20 % slower after the gap is still the same walk.
        let slower = walkWithGap(32 ... 46, gapRMS: 0.2, strideAfter: 1.44)
        #expect(abs(slower.walkingSeconds - 60) <= 2, "walking \(slower.walkingSeconds) s")
    }

    @Test("a gap is not walked when the wrist stopped, the pace changed by half as much again, or it lasted longer than a window")
    func gapsNotBridged() {
        let still = walkWithGap(32 ... 46, gapRMS: 0.01)
        #expect(still.walkingSeconds < 50, "walking \(still.walkingSeconds) s")
        let otherPace = walkWithGap(32 ... 46, gapRMS: 0.2, strideAfter: 0.8)
        #expect(otherPace.walkingSeconds < 56, "walking \(otherPace.walkingSeconds) s")
        let long = walkWithGap(26 ... 52, gapRMS: 0.2)
        #expect(long.walkingSeconds < 46, "walking \(long.walkingSeconds) s")
    }

    @Test("a walk that ends and another that starts within a window do not count the steps between them twice")
    func adjacentWalks() {
        // Edges are searched half a window out from the last and first frames; with the wrist
        // moving, both reach into a short gap (they overlapped by 4 s before).
        let adjacent = walkWithGap(36 ... 40, gapRMS: 0.2, strideAfter: 0.8)
        #expect(adjacent.walkingSeconds <= 61.5, "walking \(adjacent.walkingSeconds) s")
    }

    @Test("a clear rhythm without landings on its step must be clearer to start a walk")
    func unlandedRhythm() {
        func released(periodicity: Double, landings: Bool) -> Int {
            var tracker = WalkTracker(parameters: .standard, hopSeconds: 1)
            var released = 0
            for end in stride(from: 10.0, through: 90, by: 1) {
                let centre = end - 5
                var f = frame(centre, base: nil, periodicity: 0, vote: 0, rms: 0.01, followed: 0)
                if centre > 12, centre < 68 {
                    f = frame(centre, base: 1.2, periodicity: periodicity, vote: 1)
                    f.heelStrikesOnStep = landings
                }
                released += tracker.process(f, envelope: envelope(newest: end, from: 10, to: 70))
            }
            return released + tracker.finish(envelope: envelope(newest: 90, from: 10, to: 70))
        }
        let parameters = StepCounter.Parameters.standard
        // Above the start level by less than half the hysteresis: a walk only with landings.
        let above = parameters.periodicityToStart + (parameters.periodicityToStart - parameters.periodicityToContinue) / 4
        #expect(released(periodicity: above, landings: false) == 0)
        #expect(abs(released(periodicity: above, landings: true) - 100) <= 3)
        // Clear enough, a rhythm starts a walk without them.
        #expect(abs(released(periodicity: 0.8, landings: false) - 100) <= 3)
    }
}
