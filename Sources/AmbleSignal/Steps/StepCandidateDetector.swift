/// A peak of the band-passed magnitude that may be a step: its time and its rise in g.
struct StepCandidate: Sendable, Equatable {
    var timeSeconds: Double
    /// Rise from the preceding trough to the peak, in g.
    var amplitudeG: Double
    /// Index of the peak in the fixed-rate stream (counted from its first value).
    var sampleIndex: Int
}

/// Finds peaks in a band-passed signal with hysteresis: a peak counts once the signal has
/// risen from a trough and fallen back by at least the hysteresis.
///
/// The hysteresis is the larger of a floor (sensor noise) and a fraction of a running
/// envelope of recent peak amplitudes, so it follows the wearer's intensity. Each peak moves
/// the envelope by at most `envelopeCap` times itself, so one big gesture does not hide the
/// steps around it.
struct StepCandidateDetector: Sendable {
    /// Smallest hysteresis, in g.
    let floorG: Double
    /// Hysteresis as a fraction of the envelope (0...1).
    let relativeThreshold: Double
    /// Weight of each new peak in the envelope (0...1).
    let envelopeWeight: Double
    /// Largest peak, as a multiple of the envelope, that the envelope takes in.
    let envelopeCap: Double
    /// Time between samples, in seconds: peak times are refined between samples by fitting a
    /// parabola through the peak sample and its neighbours.
    let samplePeriodSeconds: Double

    private var envelopeG = 0.1
    private var lookingForPeak = true
    private var peakValue = -Double.infinity
    private var peakTime = 0.0
    private var peakIndex = 0
    private var valueBeforePeak = 0.0
    private var valueAfterPeak: Double?
    private var previousValue = 0.0
    private var troughValue = Double.infinity
    private var lastTroughValue = 0.0

    init(floorG: Double, relativeThreshold: Double, envelopeWeight: Double, envelopeCap: Double, samplePeriodSeconds: Double) {
        self.floorG = floorG
        self.relativeThreshold = relativeThreshold
        self.envelopeWeight = envelopeWeight
        self.envelopeCap = envelopeCap
        self.samplePeriodSeconds = samplePeriodSeconds
    }

    /// Starts over from `value` (after a restart of the stream).
    mutating func reset(to value: Double) {
        lookingForPeak = true
        peakValue = -Double.infinity
        troughValue = Double.infinity
        lastTroughValue = value
        previousValue = value
    }

    /// Feeds one filtered value at `timeSeconds`; returns a candidate when a peak is confirmed.
    mutating func process(_ value: Double, timeSeconds: Double, sampleIndex: Int) -> StepCandidate? {
        defer { previousValue = value }
        let hysteresis = max(floorG, relativeThreshold * envelopeG)
        if lookingForPeak {
            if value > peakValue {
                peakValue = value
                peakTime = timeSeconds
                peakIndex = sampleIndex
                valueBeforePeak = previousValue
                valueAfterPeak = nil
            } else {
                if valueAfterPeak == nil { valueAfterPeak = value }
                if peakValue - value > hysteresis, peakValue - lastTroughValue > hysteresis {
                    let amplitude = peakValue - lastTroughValue
                    envelopeG += (min(amplitude, envelopeCap * envelopeG) - envelopeG) * envelopeWeight
                    lookingForPeak = false
                    troughValue = value
                    return StepCandidate(timeSeconds: peakTime + refinement() * samplePeriodSeconds, amplitudeG: amplitude, sampleIndex: peakIndex)
                }
            }
        } else {
            if value < troughValue {
                troughValue = value
            } else if value - troughValue > hysteresis {
                lastTroughValue = troughValue
                lookingForPeak = true
                peakValue = value
                peakTime = timeSeconds
                peakIndex = sampleIndex
                valueBeforePeak = previousValue
                valueAfterPeak = nil
            }
        }
        return nil
    }

    /// Offset of the parabola's vertex from the peak sample, in samples (-0.5 ... 0.5).
    private func refinement() -> Double {
        guard let after = valueAfterPeak else { return 0 }
        let curvature = valueBeforePeak - 2 * peakValue + after
        guard curvature < 0 else { return 0 }
        return min(max(0.5 * (valueBeforePeak - after) / curvature, -0.5), 0.5)
    }
}
