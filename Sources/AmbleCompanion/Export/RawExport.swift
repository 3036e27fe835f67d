import AmbleModel

/// The CSV formats `amble sessions export --raw` writes: exactly those `amble analyze` reads.
public enum RawExportFormat: String, CaseIterable {
    /// `time_s,x_g,y_g,z_g`, one row per accelerometer sample (`amble analyze steps`).
    case steps
    /// `time_s,ppg1[,ppg2[,ppg3]],x_g,y_g,z_g`, one row per PPG sample with the acceleration at
    /// its time (`amble analyze hr`).
    case hr
}

/// A session's raw blocks as CSV. Times are seconds since the session began (band time);
/// acceleration in g to the mg it was kept in; PPG in ADC counts (the MAX30102's infrared as
/// `ppg1`, red as `ppg2`, the order the band's estimator takes them in).
public enum RawExport {
    public enum Failure: Error, Equatable {
        /// The session has no samples of the sensor this format needs.
        case noSamples(RawSensor)
    }

    /// Calls `emit` with the CSV in pieces (header first), so that a long session is never
    /// one string in memory.
    public static func write(_ blocks: [RawBlock], as format: RawExportFormat, emit: (String) -> Void) throws(Failure) {
        let acceleration = samples(blocks, of: .accelerometer)
        switch format {
        case .steps:
            guard !acceleration.isEmpty else { throw .noSamples(.accelerometer) }
            emit("time_s,x_g,y_g,z_g\n")
            var piece = ""
            for sample in acceleration {
                piece += seconds(sample.time) + "," + milli(sample[0]) + "," + milli(sample[1]) + "," + milli(sample[2]) + "\n"
                if piece.utf8.count > 64 << 10 { emit(piece); piece = "" }
            }
            emit(piece)
        case .hr:
            let ppg = samples(blocks, of: .ppg)
            guard !ppg.isEmpty else { throw .noSamples(.ppg) }
            let channels = ppg.map(\.values.count).max() ?? 1
            emit("time_s," + (1 ... channels).map { "ppg\($0)" }.joined(separator: ",") + ",x_g,y_g,z_g\n")
            var piece = ""
            var next = 0   // the first acceleration sample after the PPG sample's time
            for sample in ppg {
                while next < acceleration.count && acceleration[next].time <= sample.time { next += 1 }
                var row = seconds(sample.time)
                for c in 0 ..< channels { row += "," + (c < sample.values.count ? String(sample[c]) : "0") }
                if let a = accelerationAt(sample.time, before: next > 0 ? acceleration[next - 1] : nil,
                                          after: next < acceleration.count ? acceleration[next] : nil) {
                    row += "," + grams(a.0) + "," + grams(a.1) + "," + grams(a.2) + "\n"
                } else {
                    row += ",,,\n"
                }
                piece += row
                if piece.utf8.count > 64 << 10 { emit(piece); piece = "" }
            }
            emit(piece)
        }
    }

    struct Sample {
        var time: Double
        var values: ArraySlice<Int32>
        /// Channel `c`'s value.
        subscript(c: Int) -> Int32 { values[values.startIndex + c] }
    }

    /// The sensor's samples in time order; a time never goes backwards (the reader refuses that).
    static func samples(_ blocks: [RawBlock], of sensor: RawSensor) -> [Sample] {
        var out: [Sample] = []
        for block in blocks where block.sensor == sensor {
            for i in 0 ..< block.sampleCount {
                out.append(Sample(time: block.timeSeconds(ofSample: i), values: block.values[i * block.channels ..< (i + 1) * block.channels]))
            }
        }
        out.sort { $0.time < $1.time }
        return out
    }

    /// The acceleration at `time` (g), interpolated between the samples around it, or the
    /// nearer one; none when neither is within half a second (a gap), as on the band.
    static func accelerationAt(_ time: Double, before: Sample?, after: Sample?) -> (Double, Double, Double)? {
        func g(_ s: Sample, _ c: Int) -> Double { Double(s[c]) / 1000 }
        let near = { (s: Sample?) -> Sample? in s.flatMap { abs($0.time - time) <= 0.5 ? $0 : nil } }
        switch (near(before), near(after)) {
        case let (b?, a?):
            let w = a.time > b.time ? (time - b.time) / (a.time - b.time) : 0
            return (g(b, 0) + (g(a, 0) - g(b, 0)) * w, g(b, 1) + (g(a, 1) - g(b, 1)) * w, g(b, 2) + (g(a, 2) - g(b, 2)) * w)
        case let (b?, nil): return (g(b, 0), g(b, 1), g(b, 2))
        case let (nil, a?): return (g(a, 0), g(a, 1), g(a, 2))
        case (nil, nil): return nil
        }
    }

    /// Seconds to 0.1 ms.
    static func seconds(_ value: Double) -> String {
        fixed(Int64((value * 10_000).rounded()), digits: 4)
    }

    /// mg as g, exactly.
    static func milli(_ value: Int32) -> String { fixed(Int64(value), digits: 3) }

    /// g to the mg.
    static func grams(_ value: Double) -> String { fixed(Int64((value * 1000).rounded()), digits: 3) }

    /// `value` / 10^digits in decimal, without trailing zeros.
    static func fixed(_ value: Int64, digits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0 ..< digits { scale *= 10 }
        let whole = abs(value) / scale, fraction = abs(value) % scale
        var text = (value < 0 ? "-" : "") + String(whole)
        if fraction != 0 {
            var f = String(fraction)
            f = String(repeating: "0", count: digits - f.count) + f
            while f.hasSuffix("0") { f.removeLast() }
            text += "." + f
        }
        return text
    }
}
