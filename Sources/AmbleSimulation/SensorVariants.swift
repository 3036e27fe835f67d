import AmbleRecordings
import RealModule

/// A heart-rate recording held in memory compactly: times, the PPG channels row by row and,
/// when it has one, the acceleration (x, y, z per row; not-a-number where a row has none).
public struct RecordedPPG: Sendable {
    public var channels: Int
    public var times: [Double]
    public var ppg: [Double]
    public var acceleration: [Double]?

    public init(channels: Int, times: [Double], ppg: [Double], acceleration: [Double]?) {
        self.channels = channels
        self.times = times
        self.ppg = ppg
        self.acceleration = acceleration
    }

    /// Reads a recording in the format of `amble analyze hr` once.
    public init(recording: PPGRecording) throws {
        var times: [Double] = [], ppg: [Double] = [], acceleration: [Double] = []
        var rowsWithAcceleration = 0
        try recording.forEachRow { row in
            times.append(row.timeSeconds)
            ppg.append(contentsOf: row.ppg)
            if let a = row.acceleration {
                acceleration.append(contentsOf: [a.xG, a.yG, a.zG])
                rowsWithAcceleration += 1
            } else {
                acceleration.append(contentsOf: [.nan, .nan, .nan])
            }
        }
        self.init(channels: try recording.channelCount(), times: times, ppg: ppg,
                  acceleration: rowsWithAcceleration > 0 ? acceleration : nil)
    }

    public var count: Int { times.count }

    /// Row `i` as `PPGRecording` reads it.
    public func row(_ i: Int) -> PPGRow {
        let a = acceleration.flatMap { a in a[3 * i].isFinite ? AccelerationRow(timeSeconds: times[i], xG: a[3 * i], yG: a[3 * i + 1], zG: a[3 * i + 2]) : nil }
        return PPGRow(timeSeconds: times[i], ppg: Array(ppg[(i * channels)..<((i + 1) * channels)]), acceleration: a)
    }

    public var rows: [PPGRow] { times.indices.map(row) }

    /// The CSV `amble analyze hr` reads.
    public var csv: String {
        var text = "time_s," + (1...channels).map { "ppg\($0)" }.joined(separator: ",") + ",x_g,y_g,z_g\n"
        for i in times.indices {
            text += String(times[i])
            for c in 0..<channels { text += "," + String(ppg[i * channels + c]) }
            if let a = acceleration, a[3 * i].isFinite {
                text += ",\(a[3 * i]),\(a[3 * i + 1]),\(a[3 * i + 2])\n"
            } else {
                text += ",,,\n"
            }
        }
        return text
    }
}

/// The sensors issue 15 asks every heart-rate change to be judged as, made from recordings
/// (as the prototype of issue 15 made them): `scripts/score-hr` and the development-set tests.
public enum SensorVariant: String, CaseIterable, Sendable {
    case asRecorded = "orig"
    /// One channel at 25 Hz, acceleration at 12.5 Hz (a Bangle.js 2, or a MAX30102 run slow).
    case slowSensor = "a"
    /// Raw counts: a DC level of 90 000-150 000, a slow drift of ±3 % of it, every second
    /// channel upside down, rounded to whole counts.
    case rawCounts = "b"
    /// Gains ×0.3 and ×3.
    case lowGain = "c03"
    case highGain = "c3"
    /// No accelerometer.
    case noAccelerometer = "d"
    /// A magnitude-only accelerometer (|a| in x, 0 in y and z): not in the list.
    case magnitudeOnly = "mag"

    public var title: String {
        switch self {
        case .asRecorded: "as recorded"
        case .slowSensor: "(a) 1 channel at 25 Hz, acc. at 12.5 Hz"
        case .rawCounts: "(b) raw counts, DC and slow drift"
        case .lowGain: "(c) gain x0.3"
        case .highGain: "(c) gain x3"
        case .noAccelerometer: "(d) no accelerometer"
        case .magnitudeOnly: "(extra) magnitude-only accelerometer"
        }
    }

    /// The prototype's channel phases of the drift (NumPy default_rng(0).uniform(0, 6, 3)).
    static let driftPhases = [3.82177012, 1.61872028, 0.24584114]
    static let rawDC = [150_000.0, 90_000.0, 120_000.0]
    static let driftShare = 0.03
    static let driftCycles = 1.5

    public func apply(to recording: RecordedPPG) -> RecordedPPG {
        var r = recording
        let n = r.times.count, channels = r.channels
        switch self {
        case .asRecorded:
            break
        case .slowSensor:
            let (ppgTimes, ppg) = Self.average(times: r.times, values: r.ppg, width: channels, keep: 1, rateHz: 25)
            r.channels = 1
            if let acceleration = r.acceleration {
                let (accTimes, acc) = Self.average(times: r.times, values: acceleration, width: 3, keep: 3, rateHz: 12.5)
                // Each PPG row carries the newest acceleration sample at or before its time.
                var times: [Double] = [], values: [Double] = [], held: [Double] = []
                var j = -1
                for i in ppgTimes.indices {
                    while j + 1 < accTimes.count, accTimes[j + 1] <= ppgTimes[i] { j += 1 }
                    guard j >= 0 else { continue }
                    times.append(ppgTimes[i])
                    values.append(ppg[i])
                    held.append(contentsOf: acc[(3 * j)..<(3 * j + 3)])
                }
                r.times = times
                r.ppg = values
                r.acceleration = held
            } else {
                r.times = ppgTimes
                r.ppg = ppg
            }
        case .rawCounts:
            let t0 = r.times.first ?? 0
            let span = max(1, (r.times.last ?? 0) - t0)
            for i in 0..<n {
                for c in 0..<channels {
                    let dc = Self.rawDC[c]
                    let drift = Self.driftShare * dc * Double.sin(2 * .pi * (r.times[i] - t0) / span * Self.driftCycles + Self.driftPhases[c])
                    let sign = c % 2 == 1 ? -1.0 : 1.0
                    r.ppg[i * channels + c] = (dc + drift + sign * r.ppg[i * channels + c]).rounded()
                }
            }
        case .lowGain, .highGain:
            let gain = self == .lowGain ? 0.3 : 3
            for i in r.ppg.indices { r.ppg[i] *= gain }
        case .noAccelerometer:
            r.acceleration = nil
        case .magnitudeOnly:
            if var a = r.acceleration {
                for i in 0..<n {
                    let m = (a[3 * i] * a[3 * i] + a[3 * i + 1] * a[3 * i + 1] + a[3 * i + 2] * a[3 * i + 2]).squareRoot()
                    a[3 * i] = m; a[3 * i + 1] = 0; a[3 * i + 2] = 0
                }
                r.acceleration = a
            }
        }
        return r
    }

    /// What a slower sensor delivers: the values averaged over bins of 1 / rate seconds
    /// (bin k holds ⌊t × rate⌋ = k, the last bin what is left), stamped at the bins' middles;
    /// empty bins give no sample. Keeps the first `keep` of the `width` columns.
    public static func average(times: [Double], values: [Double], width: Int, keep: Int, rateHz: Double) -> (times: [Double], values: [Double]) {
        let bins = Int((times.last ?? 0) * rateHz)
        guard bins > 0 else { return ([], []) }
        var sums = Array(repeating: 0.0, count: bins * keep)
        var counts = Array(repeating: 0, count: bins)
        for i in times.indices {
            let k = min(Int(times[i] * rateHz), bins - 1)
            counts[k] += 1
            for c in 0..<keep { sums[k * keep + c] += values[i * width + c] }
        }
        var outTimes: [Double] = [], outValues: [Double] = []
        for k in 0..<bins where counts[k] > 0 {
            outTimes.append((Double(k) + 0.5) / rateHz)
            for c in 0..<keep { outValues.append(sums[k * keep + c] / Double(counts[k])) }
        }
        return (outTimes, outValues)
    }
}
