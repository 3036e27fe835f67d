import AmbleSignal

/// The last few accelerometer samples, so each PPG sample can be paired with the
/// acceleration at its own time (linearly interpolated), not the newest one.
struct AccelerationHistory {
    private var samples: [AccelerationSample]
    private var next = 0
    private var count = 0

    /// Holds `capacity` samples: 64 is over a second at 50 Hz, more than one read apart.
    init(capacity: Int = 64) {
        samples = Array(repeating: AccelerationSample(timeSeconds: 0, xG: 0, yG: 0, zG: 0), count: capacity)
    }

    mutating func append(_ sample: AccelerationSample) {
        samples[next] = sample
        next = (next + 1) % samples.count
        count = min(count + 1, samples.count)
    }

    /// The acceleration at `time`; the nearest end when outside the samples held, nil when
    /// there are none or the newest is more than `staleSeconds` older than `time`.
    func value(at time: Double, staleSeconds: Double = 0.5) -> AccelerationSample? {
        guard count > 0 else { return nil }
        let newest = samples[(next - 1 + samples.count) % samples.count]
        guard time - newest.timeSeconds <= staleSeconds else { return nil }
        if time >= newest.timeSeconds { return at(newest, time) }
        var later = newest
        for back in 2...count {
            let earlier = samples[(next - back + samples.count) % samples.count]
            if earlier.timeSeconds <= time {
                let span = later.timeSeconds - earlier.timeSeconds
                let w = span > 0 ? (time - earlier.timeSeconds) / span : 0
                return AccelerationSample(timeSeconds: time,
                                          xG: earlier.xG + (later.xG - earlier.xG) * w,
                                          yG: earlier.yG + (later.yG - earlier.yG) * w,
                                          zG: earlier.zG + (later.zG - earlier.zG) * w)
            }
            later = earlier
        }
        return at(later, time)
    }

    private func at(_ sample: AccelerationSample, _ time: Double) -> AccelerationSample {
        var copy = sample
        copy.timeSeconds = time
        return copy
    }
}
