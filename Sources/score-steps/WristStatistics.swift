// The wrist's movement while walking, measured the same way on the development walks and on
// the wrist-walking model (`score-steps --wrist-model`): the fit of `WristWalk` per cadence
// (docs/wrist-model.md).

import AmbleRecordings
import AmbleSignal
import AmbleSimulation

/// Statistics of one walk at the wrist, over its active span, at 25 Hz.
struct WristStatistics {
    /// Steps per minute (the walk's count over its active span, or the model's cadence).
    var cadence: Double
    /// RMS of |a| band-passed at 0.3-4 Hz, g (what the counter's noise floor is compared with).
    var rmsG: Double
    /// Energy of band-passed |a| over that of the band-passed vector: the share of the movement
    /// along gravity (3-axis only).
    var verticalShare: Double?
    /// Normalised autocorrelation of band-passed |a| one step and one stride later.
    var magnitudeAtStep: Double
    var magnitudeAtStride: Double
    /// The same for the band-passed vector (3-axis only): an arm swinging once per stride turns
    /// back after one step (low or negative at the step, high at the stride).
    var vectorAtStep: Double?
    var vectorAtStride: Double?
    /// Amplitude of the vector's component at the stride rate, g (the arm's swing; 3-axis only).
    var swingG: Double?
    /// Median over steps of the largest heel-strike value (|a| minus the mean of its values
    /// 0.12 s before and after) within each step, g.
    var heelStrikeG: Double

    static let rateHz = 25.0

    /// Measures rows (any rate, 3-axis or |a| in x) between `from` and `to` seconds.
    init(rows: [AccelerationRow], from: Double, to: Double, cadence: Double) {
        self.cadence = cadence
        let magnitudeOnly = rows.allSatisfy { $0.yG == 0 && $0.zG == 0 }
        // Resampled at 25 Hz (linear), filtered from 2 s before the span so that the filters settle.
        let start = max(rows[0].timeSeconds, from - 2)
        var channels: [[Double]] = [[], [], [], []]   // |a|, x, y, z
        var j = 0, t = start
        while t <= to {
            while j + 1 < rows.count, rows[j + 1].timeSeconds < t { j += 1 }
            let a = rows[j], b = rows[min(j + 1, rows.count - 1)]
            let w = b.timeSeconds > a.timeSeconds ? min(1, max(0, (t - a.timeSeconds) / (b.timeSeconds - a.timeSeconds))) : 0
            let x = a.xG + w * (b.xG - a.xG), y = a.yG + w * (b.yG - a.yG), z = a.zG + w * (b.zG - a.zG)
            channels[0].append((x * x + y * y + z * z).squareRoot())
            channels[1].append(x); channels[2].append(y); channels[3].append(z)
            t += 1 / Self.rateHz
        }
        let skip = Int((from - start) * Self.rateHz)
        let filtered = channels.map { channel -> [Double] in
            var filter = BandPassFilter(lowCutoffHz: 0.3, highCutoffHz: 4, sampleRateHz: Self.rateHz)
            filter.settle(onConstantInput: channel[0])
            return Array(channel.map { filter.process($0) }.dropFirst(skip))
        }
        let magnitude = filtered[0]
        rmsG = (magnitude.reduce(0) { $0 + $1 * $1 } / Double(max(magnitude.count, 1))).squareRoot()
        let step = Int((60 / cadence * Self.rateHz).rounded())
        magnitudeAtStep = Self.correlation([magnitude], lag: step)
        magnitudeAtStride = Self.correlation([magnitude], lag: 2 * step)
        if magnitudeOnly {
            verticalShare = nil; vectorAtStep = nil; vectorAtStride = nil; swingG = nil
        } else {
            let axes = Array(filtered[1...])
            let vectorEnergy = axes.reduce(0) { $0 + $1.reduce(0) { $0 + $1 * $1 } }
            verticalShare = magnitude.reduce(0) { $0 + $1 * $1 } / max(vectorEnergy, 1e-12)
            vectorAtStep = Self.correlation(axes, lag: step)
            vectorAtStride = Self.correlation(axes, lag: 2 * step)
            swingG = Self.amplitude(axes, frequencyHz: cadence / 120)
        }
        // Heel strikes: |a| minus the mean of its values 0.12 s (3 samples) before and after.
        let raw = Array(channels[0].dropFirst(skip))
        var peaks: [Double] = []
        var k = 3
        while k + step + 3 <= raw.count {
            var largest = 0.0
            for i in k ..< k + step { largest = max(largest, raw[i] - (raw[i - 3] + raw[i + 3]) / 2) }
            peaks.append(largest)
            k += step
        }
        peaks.sort()
        heelStrikeG = peaks.isEmpty ? 0 : peaks[peaks.count / 2]
    }

    /// Normalised autocorrelation of the channels (summed) at `lag` samples.
    static func correlation(_ channels: [[Double]], lag: Int) -> Double {
        var product = 0.0, early = 0.0, late = 0.0
        for channel in channels where channel.count > lag {
            for i in 0 ..< channel.count - lag {
                product += channel[i] * channel[i + lag]
                early += channel[i] * channel[i]
                late += channel[i + lag] * channel[i + lag]
            }
        }
        return product / max((early * late).squareRoot(), 1e-12)
    }

    /// The amplitude of the channels' joint component at `frequencyHz`, g.
    static func amplitude(_ channels: [[Double]], frequencyHz: Double) -> Double {
        var power = 0.0
        for channel in channels {
            // e^{iωn} by repeated rotation (one rotation per sample).
            let step = 2 * Double.pi * frequencyHz / rateHz
            let rotation = (c: 1 - step * step / 2 + step * step * step * step / 24, s: step - step * step * step / 6 + step * step * step * step * step / 120)
            var re = 0.0, im = 0.0, c = 1.0, s = 0.0
            for value in channel {
                re += value * c; im += value * s
                (c, s) = (c * rotation.c - s * rotation.s, s * rotation.c + c * rotation.s)
                let norm = (c * c + s * s).squareRoot()
                (c, s) = (c / norm, s / norm)
            }
            let a = 2 * (re * re + im * im).squareRoot() / Double(max(channel.count, 1))
            power += a * a
        }
        return power.squareRoot()
    }
}

/// The fit of the wrist-walking model: the development walks' statistics per cadence band
/// beside the model's at the band's middle cadence, over wearers and seeds.
enum WristModelFit {
    static let bands: [ClosedRange<Double>] = [30 ... 50, 50 ... 70, 70 ... 90, 90 ... 105, 105 ... 120, 120 ... 150]

    /// Measures every walk of the set (runs left out) over its active span.
    static func realWalks(_ folders: [String]) throws -> [(file: String, device: String, stats: WristStatistics)] {
        var out: [(file: String, device: String, stats: WristStatistics)] = []
        for (label, rows) in try RecordedDays.read(folders: folders) where label.kind == .walking && !label.file.contains("run") {
            let span = RecordedDays.activeSpan(rows)
            let cadence = Double(label.trueSteps) / (span.end - span.start) * 60
            guard span.end - span.start > 10 else { continue }
            out.append((label.file, RecordedDays.device(of: label.file), WristStatistics(rows: rows, from: span.start, to: span.end, cadence: cadence)))
        }
        return out
    }

    /// The model's walks at `cadence`: `wearers` wearers, each arm style, 3-axis at 25 Hz.
    static func modelWalks(cadence: Double, arms: WristWalk.Arms, wearers: Int) -> [WristStatistics] {
        (1 ... wearers).map { seed in
            let recording = WristWalk.recording(cadenceStepsPerMinute: cadence, seconds: 60, arms: arms, wearer: WristWalk.Wearer(seed: UInt64(seed)),
                                                sampling: .init(rateHz: 25), seed: UInt64(seed) &+ 100)
            return WristStatistics(rows: recording.rows, from: 5, to: 55, cadence: cadence)
        }
    }

    static func run(folders: [String], wearers: Int) throws {
        let real = try realWalks(folders)
        print("the wrist while walking: development walks (runs left out) against the model (docs/wrist-model.md)")
        print("median [10th-90th percentile] over walks; the model over \(wearers) wearers at the band's middle cadence, 60-s walks at 25 Hz")
        print("rms: band-passed |a|, g; vertical: share along gravity; |a| r1/r2, vec r1/r2: autocorrelation one step / one stride later;")
        print("swing: the vector at the stride rate, g; heel: median heel strike, g")
        print("")
        let columns = ["rms", "vertical", "|a| r1", "|a| r2", "vec r1", "vec r2", "swing", "heel"]
        print(pad("band (steps/min)", 18) + pad("source", 26) + pad("n", 4) + columns.map { pad($0, 19) }.joined())
        for band in bands {
            let inBand = real.filter { band.contains($0.stats.cadence) }
            let middle = (band.lowerBound + band.upperBound) / 2
            var lines: [(String, [WristStatistics])] = []
            for device in ["Bangle.js", "Pebble", "Sensor Watch"] {
                let walks = inBand.filter { $0.device == device }.map(\.stats)
                if !walks.isEmpty { lines.append((device + (device == "Sensor Watch" ? " (|a|)" : ""), walks)) }
            }
            for arms in WristWalk.Arms.allCases where arms != .swingingPerStep || middle < 75 {
                lines.append(("model, " + arms.rawValue, modelWalks(cadence: middle, arms: arms, wearers: wearers)))
            }
            for (name, walks) in lines {
                let values: [[Double?]] = [walks.map(\.rmsG), walks.map(\.verticalShare), walks.map(\.magnitudeAtStep), walks.map(\.magnitudeAtStride),
                                           walks.map(\.vectorAtStep), walks.map(\.vectorAtStride), walks.map(\.swingG), walks.map(\.heelStrikeG)]
                print(pad("\(Int(band.lowerBound))-\(Int(band.upperBound))", 18) + pad(name, 26) + pad(String(walks.count), 4)
                      + values.map { pad(spread($0.compactMap { $0 }), 19) }.joined())
            }
        }
    }

    /// "median [p10-p90]" of values, or "-".
    static func spread(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "-" }
        let sorted = values.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(q * Double(sorted.count - 1) + 0.5))] }
        return fixed(at(0.5), 2) + " [" + fixed(at(0.1), 2) + "-" + fixed(at(0.9), 2) + "]"
    }
}
