import AmbleSimulation

/// Prints `seconds` of `source` as the band takes them in (`bench-hr --band-events`, for
/// scripts/bench-pipeline-aarch64): every 0.1 s (the band's sensor period at these rates) a
/// read gives the accelerometer samples since the last read, then the PPG samples (2 channels),
/// and after every tenth read a second closes. Times are the samples' own, `n / rate`; the PPG
/// is in whole counts, as the MAX30102 gives it; values print in full (Swift's shortest exact
/// form), so the harness reads them back unchanged.
///
/// One CSV line per event: `0,t,x_g,y_g,z_g`, `1,t,ppg1,ppg2,0`, `2,t,0,0,0`.
func printBandEvents(_ source: SyntheticPPG, accelerometerHz: Double, ppgHz: Double, seconds: Double) {
    let readSeconds = 0.1
    let reads = Int((seconds / readSeconds).rounded(.down))
    /// The read that takes a sample at `time` in: the first at or after it.
    func read(of time: Double) -> Int { max(0, Int((time / readSeconds - 1e-9).rounded(.up))) }
    var accelerometer = 0, ppg = 0
    var lines: [String] = []
    for k in 1...reads {
        // The wearer is asked in time order: both sensors' samples of this read, merged.
        var batch: (acceleration: [String], ppg: [String]) = ([], [])
        while true {
            let ta = Double(accelerometer) / accelerometerHz, tp = Double(ppg) / ppgHz
            let nextIsAcceleration = ta <= tp
            let t = nextIsAcceleration ? ta : tp
            guard read(of: t) <= k else { break }
            if nextIsAcceleration {
                let a = source.accelerationG(atSeconds: t)
                batch.acceleration.append("0,\(t),\(a.x),\(a.y),\(a.z)")
                accelerometer += 1
            } else {
                let channels = source.sample(atSeconds: t).channels
                batch.ppg.append("1,\(t),\(channels[0].rounded()),\(channels[1].rounded()),0")
                ppg += 1
            }
        }
        lines += batch.acceleration + batch.ppg
        if k % 10 == 0 { lines.append("2,\(Double(k) * readSeconds),0,0,0") }
    }
    for line in lines { print(line) }
}
