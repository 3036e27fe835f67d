import AmbleEmulators
import AmbleRecordings
import RealModule

/// Synthetic wrist PPG with a known heart rate and known beat times, for testing heart-rate
/// estimation: a realistic pulse wave on a large DC level, respiration, noise, and a motion
/// artefact made from the wrist acceleration of a `SyntheticWearer` (so it is locked to the
/// cadence and correlated with what the accelerometer reports), plus the ways a signal is
/// lost: the band off the wrist, a saturated sensor, clipped peaks.
///
/// Deterministic: the same scenario (including its seed) gives the same samples. Query times
/// in non-decreasing order.
public final class SyntheticPPG: PPGSource, AccelerationSource {
    /// Everything that shapes the signal. Rates are per minute, times in seconds from 0.
    public struct Scenario: Sendable {
        /// Heart rate over time, beats per minute: (time, bpm) points joined linearly, held
        /// constant before the first and after the last.
        public var heartRate: [(timeSeconds: Double, bpm: Double)] = [(0, 70)]
        /// Walking cadence over time, steps per minute (0 = still): each (time, cadence) holds
        /// until the next one.
        public var cadence: [(timeSeconds: Double, stepsPerMinute: Double)] = [(0, 0)]
        /// Beat-to-beat variation: each interval gets independent Gaussian noise of this
        /// standard deviation, ms (RMSSD is about √2 times it, plus respiratory arrhythmia).
        public var intervalJitterMilliseconds = 15.0
        /// Respiratory sinus arrhythmia: peak change of the interval with breathing, as a fraction.
        public var respiratoryArrhythmia = 0.02
        public var respirationPerMinute = 15.0
        /// Per channel: DC level and pulse amplitude in ADC counts (a negative amplitude gives
        /// an inverted pulse, as raw photodiode counts that fall with each beat). 1...3 channels.
        public var dcLevels: [Double] = [110_000, 80_000]
        public var pulseAmplitudes: [Double] = [-1_200, -700]
        /// Motion artefact in counts per g of wrist acceleration, per channel (linear part); the
        /// artefact also has a quadratic part (`artefactHarmonicShare` of it) that puts
        /// harmonics of the motion into the PPG.
        public var artefactCountsPerG: [Double] = [0, 0]
        public var artefactHarmonicShare = 0.3
        /// Respiratory baseline wander, as a fraction of each channel's pulse amplitude.
        public var respirationWander = 0.3
        /// White noise, as a fraction of each channel's pulse amplitude.
        public var noiseFraction = 0.05
        /// Intervals with the band off the wrist: only ambient light and noise.
        public var offWrist: [ClosedRange<Double>] = []
        /// Intervals with a saturated sensor: every channel stuck at `railCounts`.
        public var saturated: [ClosedRange<Double>] = []
        /// Values above this are read as this (the ADC's full scale); nil: no rail.
        public var railCounts: Double? = nil
        /// Whether the rows carry the acceleration (false: a PPG-only device).
        public var includesAcceleration = true
        public var seed: UInt64 = 1

        public init() {}

        public var channelCount: Int { dcLevels.count }
    }

    public let scenario: Scenario
    private let wearer: SyntheticWearer
    private var random: SeededRandom
    /// Systolic peak times, seconds, generated ahead as needed.
    public private(set) var beatTimes: [Double] = []
    private var respirationPhase = 0.0
    private var lastTime: Double?
    private var cadenceIndex = 0
    private var accelerationMean: (x: Double, y: Double, z: Double)?
    private let artefactDirection: (x: Double, y: Double, z: Double)
    private var lastAcceleration: (time: Double, value: (x: Double, y: Double, z: Double))?

    public init(_ scenario: Scenario) {
        precondition((1...3).contains(scenario.channelCount) && scenario.pulseAmplitudes.count == scenario.channelCount
                     && scenario.artefactCountsPerG.count == scenario.channelCount, "1...3 channels, with one amplitude and artefact gain each")
        self.scenario = scenario
        random = SeededRandom(seed: scenario.seed ^ 0x5050_4721)
        wearer = SyntheticWearer(seed: scenario.seed, restingHeartRateBPM: 60)
        var d = (random.gaussian(), random.gaussian(), random.gaussian())
        let norm = max(1e-9, (d.0 * d.0 + d.1 * d.1 + d.2 * d.2).squareRoot())
        d = (d.0 / norm, d.1 / norm, d.2 / norm)
        artefactDirection = d
        beatTimes.append(0.3)
    }

    // MARK: Ground truth

    /// The scheduled heart rate at `time`, beats per minute.
    public func heartRateBPM(atSeconds time: Double) -> Double {
        Self.interpolate(scenario.heartRate.map { ($0.timeSeconds, $0.bpm) }, at: time)
    }

    /// The mean heart rate from the beats in [start, end): 60 / mean interval, as an ECG
    /// reference computes it. Needs samples generated past `end`.
    public func meanHeartRateBPM(from start: Double, to end: Double) -> Double? {
        let inside = beatTimes.filter { $0 >= start && $0 < end }
        guard inside.count >= 2 else { return nil }
        return 60 / ((inside[inside.count - 1] - inside[0]) / Double(inside.count - 1))
    }

    /// RMSSD of the beats in [start, end), ms.
    public func rmssdMilliseconds(from start: Double, to end: Double) -> Double? {
        let inside = beatTimes.filter { $0 >= start && $0 < end }
        guard inside.count >= 3 else { return nil }
        var sum = 0.0
        for i in 2..<inside.count {
            let d = (inside[i] - inside[i - 1]) - (inside[i - 1] - inside[i - 2])
            sum += d * d
        }
        return (sum / Double(inside.count - 2)).squareRoot() * 1000
    }

    // MARK: Samples

    /// One sample: the PPG channels in counts and, when the scenario includes it, the
    /// acceleration in g.
    public func sample(atSeconds time: Double) -> (channels: [Double], acceleration: (x: Double, y: Double, z: Double)?) {
        let a = acceleration(at: time)
        advance(to: time)
        let pulse = pulseWave(at: time)
        let respiration = Double.sin(respirationPhase)
        // Artefact: acceleration along a fixed direction, relative to its slow mean, plus a
        // quadratic part (harmonics of the motion).
        let mean = accelerationMean ?? a
        let along = (a.x - mean.x) * artefactDirection.x + (a.y - mean.y) * artefactDirection.y + (a.z - mean.z) * artefactDirection.z
        let motion = along + scenario.artefactHarmonicShare * (along * along - 0.05)
        let off = scenario.offWrist.contains { $0.contains(time) }
        let saturated = scenario.saturated.contains { $0.contains(time) }
        var channels: [Double] = []
        channels.reserveCapacity(scenario.channelCount)
        for c in 0..<scenario.channelCount {
            let amplitude = scenario.pulseAmplitudes[c]
            var value: Double
            if off {
                value = 0.01 * scenario.dcLevels[c] + random.gaussian(standardDeviation: 30)
            } else {
                value = scenario.dcLevels[c] + amplitude * pulse
                    + scenario.respirationWander * abs(amplitude) * respiration
                    + scenario.artefactCountsPerG[c] * motion
                    + random.gaussian(standardDeviation: scenario.noiseFraction * abs(amplitude))
            }
            if let rail = scenario.railCounts {
                value = saturated ? rail : min(rail, value)
            }
            channels.append(value)
        }
        return (channels, scenario.includesAcceleration ? a : nil)
    }

    /// Samples from 0 up to `durationSeconds` at `sampleRateHz`, as recording rows; with
    /// `timingJitterSeconds`, each time is moved by up to that much (uniformly).
    public func rows(sampleRateHz: Double, durationSeconds: Double, timingJitterSeconds: Double = 0) -> [PPGRow] {
        let count = Int((durationSeconds * sampleRateHz).rounded(.down))
        var rows: [PPGRow] = []
        rows.reserveCapacity(count)
        var jitter = SeededRandom(seed: scenario.seed &+ 17)
        var previous = -Double.infinity
        for i in 0..<count {
            var t = Double(i) / sampleRateHz
            if timingJitterSeconds > 0, i > 0 {
                t += (jitter.unit() * 2 - 1) * timingJitterSeconds
            }
            t = max(t, previous + 1e-6)
            previous = t
            let s = sample(atSeconds: t)
            rows.append(PPGRow(timeSeconds: t, ppg: s.channels,
                               acceleration: s.acceleration.map { AccelerationRow(timeSeconds: t, xG: $0.x, yG: $0.y, zG: $0.z) }))
        }
        return rows
    }

    /// The rows as a heart-rate recording (CSV with header time_s,ppg1[,ppg2[,ppg3]],x_g,y_g,z_g).
    public static func csv(_ rows: [PPGRow]) -> String {
        let channels = rows.first?.ppg.count ?? 1
        var text = "time_s," + (1...channels).map { "ppg\($0)" }.joined(separator: ",") + ",x_g,y_g,z_g\n"
        for row in rows {
            text += fixed(row.timeSeconds, 4)
            for v in row.ppg { text += "," + fixed(v, 1) }
            if let a = row.acceleration {
                text += "," + fixed(a.xG, 5) + "," + fixed(a.yG, 5) + "," + fixed(a.zG, 5) + "\n"
            } else {
                text += ",,,\n"
            }
        }
        return text
    }

    // MARK: PPGSource, AccelerationSource (for the MAX30102 and LIS3DH emulators)

    /// Channel 1 as infrared, channel 2 (or 1) as red.
    public func opticalCounts(atSeconds time: Double) -> (red: Double, infrared: Double) {
        let s = sample(atSeconds: time).channels
        return (s.count > 1 ? s[1] : s[0], s[0])
    }

    public func accelerationG(atSeconds time: Double) -> (x: Double, y: Double, z: Double) {
        acceleration(at: time)
    }

    // MARK: Internals

    /// The wearer's acceleration at `time` (cached: both sources may ask for one instant).
    private func acceleration(at time: Double) -> (x: Double, y: Double, z: Double) {
        if let last = lastAcceleration, last.time == time { return last.value }
        while cadenceIndex + 1 < scenario.cadence.count && scenario.cadence[cadenceIndex + 1].timeSeconds <= time {
            cadenceIndex += 1
        }
        let cadence = scenario.cadence.isEmpty ? 0 : scenario.cadence[cadenceIndex].stepsPerMinute
        wearer.activity = cadence > 0 ? .walking(cadenceStepsPerMinute: cadence) : .still
        let a = wearer.accelerationG(atSeconds: time)
        lastAcceleration = (time, a)
        return a
    }

    /// Moves breathing, the slow acceleration mean and the beat schedule up to `time`.
    private func advance(to time: Double) {
        let dt = lastTime.map { max(0, time - $0) } ?? 0
        lastTime = time
        respirationPhase += 2 * .pi * scenario.respirationPerMinute / 60 * dt
        let a: (x: Double, y: Double, z: Double) = lastAcceleration?.value ?? (0, 0, 1)
        if let m = accelerationMean {
            let k = min(1, dt / 2)
            accelerationMean = (m.x + (a.x - m.x) * k, m.y + (a.y - m.y) * k, m.z + (a.z - m.z) * k)
        } else {
            accelerationMean = a
        }
        while beatTimes[beatTimes.count - 1] < time + 2 {
            let t = beatTimes[beatTimes.count - 1]
            let base = 60 / heartRateBPM(atSeconds: t)
            let breathing = 1 + scenario.respiratoryArrhythmia * Double.sin(2 * .pi * scenario.respirationPerMinute / 60 * t)
            let interval = max(0.25, base * breathing + random.gaussian(standardDeviation: scenario.intervalJitterMilliseconds / 1000))
            beatTimes.append(t + interval)
        }
        // Keep only what the pulse wave and the ground-truth queries of a test need.
        if beatTimes.count > 20_000 { beatTimes.removeFirst(10_000) }
    }

    /// The pulse wave at `time`: 0 between beats, 1 at a systolic peak; a dicrotic wave
    /// follows each peak. Systolic peaks are at `beatTimes`.
    private func pulseWave(at time: Double) -> Double {
        var value = 0.0
        // Beats whose waves can reach `time` (binary search for the first beat after it).
        var lo = 0, hi = beatTimes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if beatTimes[mid] <= time { lo = mid + 1 } else { hi = mid }
        }
        for k in max(0, lo - 3)..<min(beatTimes.count, lo + 2) {
            let t0 = beatTimes[k]
            let interval = k + 1 < beatTimes.count ? beatTimes[k + 1] - t0 : 60 / heartRateBPM(atSeconds: t0)
            let x = time - t0
            // Rising edge faster than the fall: a skewed systolic wave.
            let width = x < 0 ? 0.06 * interval : 0.12 * interval
            value += Double.exp(-0.5 * (x / width) * (x / width))
            let d = (x - 0.35 * interval) / (0.09 * interval)
            value += 0.35 * Double.exp(-0.5 * d * d)
        }
        return value
    }

    private static func interpolate(_ points: [(Double, Double)], at time: Double) -> Double {
        guard let first = points.first else { return 70 }
        if time <= first.0 { return first.1 }
        for i in 1..<max(1, points.count) where time < points[i].0 {
            let (t0, v0) = points[i - 1], (t1, v1) = points[i]
            return v0 + (v1 - v0) * (time - t0) / (t1 - t0)
        }
        return points[points.count - 1].1
    }

}
