import AmbleSignal

/// The last few accelerometer samples, so each PPG sample can be paired with the
/// acceleration at its own time (linearly interpolated), not the newest one.
struct AccelerationHistory {
    private var samples: RingBuffer<AccelerationSample>

    /// Holds `capacity` samples: 64 is over a second at 50 Hz, more than one read apart.
    init(capacity: Int = 64) {
        samples = RingBuffer(capacity: capacity, filling: AccelerationSample(timeSeconds: 0, xG: 0, yG: 0, zG: 0))
    }

    mutating func append(_ sample: AccelerationSample) {
        samples.append(sample)
    }

    /// The acceleration at `time`; the nearest end when outside the samples held (the only
    /// one when one is held), nil when there are none or the newest is more than
    /// `staleSeconds` older than `time`.
    func value(at time: Double, staleSeconds: Double = 0.5) -> AccelerationSample? {
        guard samples.count > 0 else { return nil }
        let newest = samples[age: 0]
        guard time - newest.timeSeconds <= staleSeconds else { return nil }
        if time >= newest.timeSeconds { return at(newest, time) }
        var later = newest
        // Empty when only one sample is held: `later` is then the nearest end.
        for age in 1..<samples.count {
            let earlier = samples[age: age]
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
