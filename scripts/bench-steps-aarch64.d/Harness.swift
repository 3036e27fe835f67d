// The step counter over samples linked into the program (start.S), in Embedded Swift: the same
// source as the band's, built for a processor this machine can only emulate.
import AmbleSignal

@_extern(c, "amble_values") func sampleValues() -> UnsafePointer<Double>
@_extern(c, "amble_value_count") func sampleValueCount() -> Int

/// Runs a fresh StepCounter over the first `limit` samples (all when negative): the steps.
@_cdecl("amble_count")
public func count(_ limit: Int) -> Int {
    let values = sampleValues()
    let available = sampleValueCount() / 4
    let n = limit < 0 ? available : min(limit, available)
    var counter = StepCounter()
    var total = 0
    for i in 0 ..< n {
        let p = values + 4 * i
        total += counter.process(AccelerationSample(timeSeconds: p[0], xG: p[1], yG: p[2], zG: p[3]))
    }
    return total + counter.finish()
}
