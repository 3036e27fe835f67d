/// The sampling clock inside an emulated chip: how many output-data-rate ticks happened
/// between two bus accesses.
struct SampleTicker {
    private(set) var nextTickSeconds: Double?

    /// Times of the ticks in (last call, now], at `rateHz`. Restarts after a rate change or
    /// power-down (`rateHz` nil).
    mutating func ticks(until now: Double, rateHz: Double?) -> [Double] {
        guard let rateHz, rateHz > 0 else {
            nextTickSeconds = nil
            return []
        }
        let period = 1 / rateHz
        guard var next = nextTickSeconds else {
            nextTickSeconds = now + period
            return []
        }
        // After a long absence keep only what a FIFO could hold (and a bit).
        if now - next > period * 256 {
            next = now - period * 256
        }
        var times: [Double] = []
        while next <= now {
            times.append(next)
            next += period
        }
        nextTickSeconds = next
        return times
    }

    mutating func restart() { nextTickSeconds = nil }
}
