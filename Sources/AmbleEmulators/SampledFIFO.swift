/// The sampling clock inside an emulated chip: the output-data-rate ticks that happened
/// between two bus accesses. Tick n of a run falls at `origin + n / rate`, computed from the
/// index so that no rounding error builds up.
struct SampleTicker {
    private var origin: Double?
    private var rateHz: Double = 0
    private var nextIndex = 1

    /// Times of the ticks in (last call, now], at `rateHz`. Restarts after a rate change or
    /// power-down (`rateHz` nil); the first tick comes one period after the start.
    mutating func ticks(until now: Double, rateHz newRate: Double?) -> [Double] {
        guard let newRate, newRate > 0 else {
            origin = nil
            return []
        }
        guard let start = origin, newRate == rateHz else {
            origin = now
            rateHz = newRate
            nextIndex = 1
            return []
        }
        let period = 1 / rateHz
        let due = Int(((now - start) * rateHz + 1e-6).rounded(.down))
        // After a long absence keep only what a FIFO could hold (and a bit).
        if due - nextIndex > 256 { nextIndex = due - 256 }
        guard due >= nextIndex else { return [] }
        let times = (nextIndex...due).map { start + Double($0) * period }
        nextIndex = due + 1
        return times
    }

    mutating func restart() { origin = nil }
}
