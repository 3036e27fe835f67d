import RealModule

/// A heart-rate estimate and how much to trust it.
public struct HeartRateEstimate: Equatable, Sendable {
    /// Beats per minute: the mean rate over the analysis window that ends at the estimate.
    public var bpm: Double
    /// 0 (a guess) ... 1 (clean signal, consistent with the recent track). Estimates below
    /// `Configuration.minimumConfidence` are never returned.
    public var confidence: Double

    public init(bpm: Double, confidence: Double) {
        self.bpm = bpm
        self.confidence = confidence
    }
}

/// Why the last call to `estimate()` gave, or did not give, a value.
public enum HeartRateStatus: Equatable, Sendable {
    /// Less than one window of signal since the start (or since a gap in the samples).
    case warmingUp
    /// Every channel was flat (saturated, disconnected) or clipped over the window.
    case noUsableSignal
    /// The signal was there but too unclear (off the wrist, heavy motion): no value given.
    case lowConfidence
    /// A value was given.
    case tracking
}

/// A streaming heart-rate estimator from wrist PPG (1...3 channels, any rate 25...125 Hz),
/// using the accelerometer, when there is one, to remove motion artefact.
///
/// Feed samples in time order with `process(_:)`; call `estimate()` whenever a value is wanted
/// (every 1–2 s): it uses only the samples fed so far. Memory is fixed at initialisation.
///
/// Method (see docs/heart-rate.md): samples are averaged into 25 Hz bins and band-passed
/// (0.5–4 Hz). Over the last `windowSeconds`, the rhythmic motion lines (arm swing, steps and
/// their harmonics) are found in the acceleration spectrum and removed from each PPG channel
/// by least squares; the channels' spectra are combined on a 1-bpm grid, with the
/// neighbourhood of each motion line made neutral and the pulse's second harmonic counted as
/// support. A hidden Markov model tracks the rate across windows. The confidence is the
/// posterior mass near the chosen rate times the spectrum's relative height there; below
/// `minimumConfidence`, or when no channel is usable (flat, clipped, a jump of level, noise
/// only: see `ChannelQuality`), there is no value.
public struct HeartRateEstimator: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Length of the analysis window, in seconds (2...60); also the time to the first value.
        public var windowSeconds: Double = 8
        /// Range of heart rates considered, beats per minute.
        public var minimumBPM: Double = 40
        public var maximumBPM: Double = 220
        /// Estimates with a lower confidence (0...1) are withheld.
        public var minimumConfidence: Double = 0.4
        /// A rhythmic motion counts as artefact source from this amplitude (as a sinusoid), in g.
        public var motionLineThresholdG: Double = 0.15
        public init() {}
    }

    /// Internal sample rate, Hz: every input rate is averaged down to this.
    public static let internalRateHz = 25.0
    /// FFT length: zero-padding an 8 s window to 1024 points reads the spectrum every 1.5 bpm.
    static func fftSize(windowCount: Int) -> Int {
        var size = 1024
        while size < windowCount { size *= 2 }
        return size
    }
    static let maximumLines = 8
    static let startSlackBins = 2
    /// Half-width of the neutral zone around a motion line, bpm.
    static let lineZoneBPM = 5.0
    /// Weight of the second harmonic in the spectral support of a rate.
    static let harmonicWeight = 0.3
    /// The likelihood is support³ + likelihoodFloor: the cube sharpens the spectrum, the floor
    /// keeps any rate possible.
    static let likelihoodFloor = 0.05

    public let configuration: Configuration
    /// Why the last `estimate()` gave, or did not give, a value.
    public private(set) var status: HeartRateStatus = .warmingUp
    /// The last value given (nil after a call that gave none).
    public private(set) var latest: HeartRateEstimate?

    private let windowCount: Int
    private let grid: HeartRateGrid
    private var resampler: PPGResampler
    private var channelCount = 0
    private var ppgFilters: [BandPassFilter]
    private var noiseFilters: [Biquad]
    private var accelerationFilters: [BandPassFilter]
    private var filtered: [RingBuffer<Double>]
    private var highBand: [RingBuffer<Double>]
    private var raw: [RingBuffer<Double>]
    private var stuck: [RingBuffer<Double>]
    private var motion: [RingBuffer<Double>]
    private var accelerationPresent: RingBuffer<Double>
    private var binsSinceReset = 0
    private var accelerationIsMagnitude = false
    private var newestBinIndex: Int?
    private var lastEstimateBinIndex: Int?

    private var lineDetector: MotionLineDetector
    private var spectrum: PulseSpectrum
    private var tracker: HeartRateTracker
    private var beats: BeatTracker

    // Scratch, sized once.
    private var windowValues: [Double]
    private var windowRaw: [Double]
    private var windowStuck: [Double]
    private var windowHigh: [Double]
    private var scratch: [Double]
    private var axes: [[Double]]
    private var lines: [Double]
    private var combined: [Double]
    private var support: [Double]
    private var likelihood: [Double]

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        let rate = Self.internalRateHz
        let seconds = min(60, max(2, configuration.windowSeconds))
        windowCount = Int((seconds * rate).rounded())
        let lower = max(20, configuration.minimumBPM)
        grid = HeartRateGrid(lowerBPM: lower, upperBPM: max(lower + 20, min(300, configuration.maximumBPM)))
        resampler = PPGResampler(rateHz: rate, maximumFilledGapSeconds: 0.5)
        let band = BandPassFilter(lowCutoffHz: 0.5, highCutoffHz: 4, sampleRateHz: rate)
        ppgFilters = Array(repeating: band, count: 3)
        noiseFilters = Array(repeating: .butterworthHighPass(cutoffHz: 5, sampleRateHz: rate), count: 3)
        accelerationFilters = Array(repeating: band, count: 3)
        filtered = Array(repeating: RingBuffer(capacity: windowCount, filling: 0), count: 3)
        raw = filtered
        highBand = filtered
        stuck = filtered
        motion = filtered
        accelerationPresent = RingBuffer(capacity: windowCount, filling: 0)
        var detector = MotionLineDetector(windowCount: windowCount, rateHz: rate, fftSize: Self.fftSize(windowCount: windowCount), maximumLines: Self.maximumLines)
        detector.minimumAmplitudeG = configuration.motionLineThresholdG
        lineDetector = detector
        spectrum = PulseSpectrum(grid: grid, windowCount: windowCount, rateHz: rate, fftSize: Self.fftSize(windowCount: windowCount), maximumLines: Self.maximumLines)
        tracker = HeartRateTracker(grid: grid)
        beats = BeatTracker(rateHz: rate)
        windowValues = Array(repeating: 0, count: windowCount)
        windowRaw = windowValues
        windowStuck = windowValues
        windowHigh = windowValues
        scratch = windowValues
        axes = Array(repeating: windowValues, count: 3)
        lines = Array(repeating: 0, count: Self.maximumLines)
        combined = Array(repeating: 0, count: grid.count)
        support = combined
        likelihood = combined
    }

    /// Heart-rate variability at rest over everything fed since the start or the last
    /// `restartVariability()` (nil until enough clean beats at rest were seen). The band
    /// restarts it when a session begins and reads it when the session ends.
    public var restingVariability: RestingVariability? { beats.variability }

    /// Starts a new tally for `restingVariability` (the heart-rate tracking goes on).
    public mutating func restartVariability() { beats.restartVariability() }

    /// The most recent beat-to-beat intervals accepted at rest, oldest first, in milliseconds
    /// (at most `BeatTracker.recentCapacity`).
    public var recentBeatIntervalsMilliseconds: [Double] { beats.recentIntervalsMilliseconds }

    // MARK: Input

    /// Feeds one sample (samples must come in time order). Channels past the third are
    /// ignored; a sample without channels, or with a non-finite value, is skipped.
    public mutating func process(_ sample: PPGSample) {
        let n = min(3, sample.channels.count)
        guard n > 0, sample.timeSeconds.isFinite else { return }
        var ppg = SIMD4<Double>()
        for c in 0..<n {
            guard sample.channels[c].isFinite else { return }
            ppg[c] = sample.channels[c]
        }
        if n != channelCount {
            channelCount = n
            resetSignal()
            resampler.reset()
        }
        var acceleration: SIMD4<Double>?
        if let a = sample.acceleration, a.xG.isFinite, a.yG.isFinite, a.zG.isFinite {
            // Magnitude only: flagged, or a recording with |a| in x and zeros in y and z.
            accelerationIsMagnitude = a.isMagnitudeOnly || (a.yG == 0 && a.zG == 0)
            acceleration = accelerationIsMagnitude ? SIMD4(a.xG, 0, 0, 0) : SIMD4(a.xG, a.yG, a.zG, 0)
        }
        if !resampler.add(timeSeconds: sample.timeSeconds, ppg: ppg, acceleration: acceleration) {
            resetSignal()
        }
        for i in 0..<resampler.completedCount { ingest(resampler.completed[i]) }
    }

    /// One 25 Hz bin into the filters and the window buffers.
    private mutating func ingest(_ bin: ResampledBin) {
        if binsSinceReset == 0 {
            for c in 0..<3 {
                ppgFilters[c].settle(onConstantInput: bin.ppg[c])
                noiseFilters[c].settle(onConstantInput: bin.ppg[c])
            }
            for a in 0..<3 { accelerationFilters[a].settle(onConstantInput: bin.acceleration[a]) }
        }
        for c in 0..<channelCount {
            filtered[c].append(ppgFilters[c].process(bin.ppg[c]))
            highBand[c].append(noiseFilters[c].process(bin.ppg[c]))
            raw[c].append(bin.ppg[c])
            stuck[c].append(bin.stuck[c])
        }
        if bin.hasAcceleration {
            if accelerationPresent.count > 0, accelerationPresent[age: 0] == 0 {
                // Acceleration (re)appears: start its filters from steady state.
                for a in 0..<3 { accelerationFilters[a].settle(onConstantInput: bin.acceleration[a]) }
            }
            for a in 0..<3 { motion[a].append(accelerationFilters[a].process(bin.acceleration[a])) }
        } else {
            for a in 0..<3 { motion[a].append(0) }
        }
        accelerationPresent.append(bin.hasAcceleration ? 1 : 0)
        binsSinceReset += 1
        newestBinIndex = bin.index
        if channelCount > 0 {
            beats.process(filteredPPG: filtered[min(beats.channel, channelCount - 1)][age: 0], binIndex: bin.index)
        }
    }

    /// Drops the signal history (new channel layout, or a gap too long to bridge).
    private mutating func resetSignal() {
        for c in 0..<3 {
            filtered[c].removeAll(); highBand[c].removeAll(); raw[c].removeAll(); stuck[c].removeAll()
            motion[c].removeAll()
        }
        accelerationPresent.removeAll()
        binsSinceReset = 0
        beats.interrupt()
    }

    // MARK: Estimation

    /// The estimate from the samples fed so far, or nil when there is none to trust (see
    /// `status` for why). Calling it twice without new samples returns the same answer.
    public mutating func estimate() -> HeartRateEstimate? {
        // A window may be up to `startSlackBins` short at the very start: at low input rates the
        // bin that holds the last sample before the estimate's time is still open.
        guard let newest = newestBinIndex, binsSinceReset >= windowCount - Self.startSlackBins else {
            status = .warmingUp
            latest = nil
            return nil
        }
        let elapsedSeconds: Double
        if let last = lastEstimateBinIndex {
            guard newest > last else { return latest }
            elapsedSeconds = Double(newest - last) / Self.internalRateHz
        } else {
            elapsedSeconds = configuration.windowSeconds
        }
        lastEstimateBinIndex = newest
        tracker.predict(elapsedSeconds: elapsedSeconds)

        // Motion lines from the acceleration, when the window has it throughout.
        var lineCount = 0
        let held = min(windowCount, accelerationPresent.count)
        var accelerationBins = 0
        for i in 0..<held where accelerationPresent[age: i] > 0 { accelerationBins += 1 }
        let withAcceleration = accelerationBins == held
        let withoutAcceleration = accelerationBins == 0
        if withAcceleration {
            for a in 0..<3 { Self.copyWindow(motion[a], into: &axes[a]) }
            lineCount = lineDetector.detect(axes: axes, magnitudeOnly: accelerationIsMagnitude, into: &lines).count
        }
        spectrum.setLines(lines, count: lineCount)

        // Channel spectra, usable channels only.
        for g in 0..<grid.count { combined[g] = 0 }
        var usable = 0
        var bestShare = -1.0
        var bestChannel = 0
        for c in 0..<channelCount {
            Self.copyWindow(raw[c], into: &windowRaw)
            Self.copyWindow(stuck[c], into: &windowStuck)
            Self.copyWindow(filtered[c], into: &windowValues)
            Self.copyWindow(highBand[c], into: &windowHigh)
            let level = RobustStatistics.centerAndSpread(of: windowValues, count: windowCount, scratch: &scratch)
            let quality = ChannelQuality.judge(raw: windowRaw, stuck: windowStuck, band: windowValues, bandSpread: level.spread,
                                               high: windowHigh, count: windowCount)
            guard quality == .usable else { continue }
            guard spectrum.accumulate(channel: windowValues, level: level, into: &combined) else { continue }
            usable += 1
            let share = Self.peakShare(spectrum.channelSpectrum)
            if share > bestShare { bestShare = share; bestChannel = c }
        }
        guard usable > 0 else {
            status = .noUsableSignal
            latest = nil
            beats.setContext(expectedIntervalSeconds: nil, atRest: false, channel: beats.channel, polarity: beats.polarity)
            return nil
        }

        buildLikelihood(lineCount: lineCount)
        tracker.update(likelihood: likelihood, weight: min(1, max(0.2, elapsedSeconds / tracker.referenceStepSeconds)))
        let best = tracker.mostProbable()
        let height = support[grid.index(nearest: best.bpm)]
        let confidence = max(0, min(1, best.mass * height))

        // At rest: the accelerometer shows no rhythmic motion; a PPG-only device must make
        // up for not knowing with a cleaner signal.
        let atRest = withAcceleration
            ? lineCount == 0 && confidence >= 0.6
            : withoutAcceleration && confidence >= 0.8
        let trusted = confidence >= configuration.minimumConfidence
        Self.copyWindow(filtered[bestChannel], into: &windowValues)
        let polarity = BeatTracker.polarity(of: windowValues, count: windowCount,
                                            current: bestChannel == beats.channel ? beats.polarity : 1)
        beats.setContext(expectedIntervalSeconds: trusted ? 60 / best.bpm : nil,
                         atRest: atRest, channel: bestChannel, polarity: polarity)
        guard trusted else {
            status = .lowConfidence
            latest = nil
            return nil
        }
        status = .tracking
        latest = HeartRateEstimate(bpm: best.bpm, confidence: confidence)
        return latest
    }

    /// Copies the newest window of `ring` into `window` (`windowCount` values); a ring that is
    /// a few bins short is padded at the front with its oldest value.
    private static func copyWindow(_ ring: RingBuffer<Double>, into window: inout [Double]) {
        let n = window.count
        let available = min(ring.count, n)
        guard available < n else {
            ring.copyNewest(n, into: &window)
            return
        }
        let oldest = ring[age: available - 1]
        for i in 0..<(n - available) { window[i] = oldest }
        for i in 0..<available { window[n - available + i] = ring[age: available - 1 - i] }
    }

    /// From the combined spectrum: neutral zones around motion lines, second-harmonic support,
    /// then the likelihood. Leaves the support (maximum 1) in `support`.
    private mutating func buildLikelihood(lineCount: Int) {
        let n = grid.count
        var peak = 0.0
        for g in 0..<n { peak = max(peak, combined[g]) }
        for g in 0..<n { combined[g] /= peak; support[g] = combined[g] }
        // Around a line the residual says little (the fit took the pulse too if it was
        // there): fill the zone up to the level at its edges, so the track neither avoids nor
        // seeks it.
        for j in 0..<lineCount {
            let bpm = lines[j] * 60
            let first = Int(((bpm - Self.lineZoneBPM - grid.lowerBPM) / grid.stepBPM).rounded(.up))
            let last = Int(((bpm + Self.lineZoneBPM - grid.lowerBPM) / grid.stepBPM).rounded(.down))
            let lo = max(0, first), hi = min(n - 1, last)
            guard lo <= hi else { continue }
            let left = first - 1, right = last + 1
            let leftValue = left >= 0 ? combined[left] : (right < n ? combined[right] : 0)
            let rightValue = right < n ? combined[right] : leftValue
            let fill = max(leftValue, rightValue)
            for g in lo...hi { support[g] = max(support[g], fill) }
        }
        normalize(&support)
        // A pulse has a second harmonic: support(f) += w * support(2f).
        for g in 0..<n { likelihood[g] = support[g] }
        for g in 0..<n {
            let position = (2 * grid.bpm(g) - grid.lowerBPM) / grid.stepBPM
            let k = Int(position)
            guard k + 1 < n else { break }
            let f = position - Double(k)
            support[g] = likelihood[g] + Self.harmonicWeight * (likelihood[k] * (1 - f) + likelihood[k + 1] * f)
        }
        normalize(&support)
        for g in 0..<n {
            let v = support[g]
            likelihood[g] = v * v * v + Self.likelihoodFloor   // support^likelihoodExponent
        }
    }

    private func normalize(_ values: inout [Double]) {
        var peak = 0.0
        for v in values { peak = max(peak, v) }
        guard peak > 0 else { return }
        for i in values.indices { values[i] /= peak }
    }

    /// Share of a spectrum's sum held by its peak's neighbourhood (±3 grid points): how
    /// clean a channel is.
    private static func peakShare(_ spectrum: [Double]) -> Double {
        var best = 0, total = 0.0
        for i in spectrum.indices {
            total += spectrum[i]
            if spectrum[i] > spectrum[best] { best = i }
        }
        var near = 0.0
        for i in max(0, best - 3)...min(spectrum.count - 1, best + 3) { near += spectrum[i] }
        return total > 0 ? near / total : 0
    }
}
