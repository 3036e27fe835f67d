import AmbleEmulators
import AmbleRecordings

/// Plays a recording into the emulated chips, looping at its end: a steps recording
/// (`time_s,x_g,y_g,z_g`) feeds the accelerometer; a heart-rate recording
/// (`time_s,ppg1[,ppg2[,ppg3]],x_g,y_g,z_g`) feeds both the PPG sensor and, when it has
/// acceleration, the accelerometer. Values between samples are interpolated linearly.
///
/// Recorded PPG comes in arbitrary units; it is mapped onto the MAX30102's counts around a
/// wrist-like DC level (110k infrared, 80k red) with a pulsatile part of about 1 %.
public final class RecordedWearer: AccelerationSource, PPGSource {
    public enum Kind: Equatable, Sendable { case steps, heartRate }

    public let kind: Kind
    public let durationSeconds: Double
    private let times: [Double]
    private let acceleration: [(Double, Double, Double)]
    private let infrared: [Double]
    private let red: [Double]
    private var cursor = 0

    /// Reads the whole recording (tens of thousands of rows at most).
    public init(path: String) throws {
        var firstLine = try LineReader(path: path)
        let header = firstLine.next().map(String.init) ?? ""
        var times: [Double] = []
        var acceleration: [(Double, Double, Double)] = []
        if header.filter({ $0 != " " }).lowercased().hasPrefix("time_s,ppg") {
            kind = .heartRate
            var ppg1: [Double] = [], ppg2: [Double] = []
            var t0: Double?
            try PPGRecording(path: path).forEachRow { row in
                if t0 == nil { t0 = row.timeSeconds }
                times.append(row.timeSeconds - t0!)
                ppg1.append(row.ppg[0])
                ppg2.append(row.ppg.count > 1 ? row.ppg[1] : row.ppg[0])
                let a = row.acceleration
                acceleration.append(a.map { ($0.xG, $0.yG, $0.zG) } ?? (0, 0, 1))
            }
            infrared = Self.mapToCounts(ppg1, dc: 110_000)
            red = Self.mapToCounts(ppg2, dc: 80_000)
        } else {
            kind = .steps
            infrared = []
            red = []
            var t0: Double?
            try AccelerationRecording(path: path).forEachRow { row in
                if t0 == nil { t0 = row.timeSeconds }
                times.append(row.timeSeconds - t0!)
                acceleration.append((row.xG, row.yG, row.zG))
            }
        }
        self.times = times
        self.acceleration = acceleration
        durationSeconds = max(times.last ?? 0, 1e-3)
    }

    /// Arbitrary PPG units to counts: DC level plus the signal scaled to about 1 % of it.
    static func mapToCounts(_ values: [Double], dc: Double) -> [Double] {
        guard !values.isEmpty else { return [] }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        let scale = variance > 0 ? dc * 0.004 / variance.squareRoot() : 0
        return values.map { dc - ($0 - mean) * scale }
    }

    /// Index and weight of `time` (looped) between two samples.
    private func locate(_ time: Double) -> (Int, Double) {
        let t = time.truncatingRemainder(dividingBy: durationSeconds)
        if cursor >= times.count - 1 || times[cursor] > t { cursor = 0 }
        while cursor < times.count - 2 && times[cursor + 1] <= t { cursor += 1 }
        let span = times[cursor + 1] - times[cursor]
        let w = span > 0 ? min(1, max(0, (t - times[cursor]) / span)) : 0
        return (cursor, w)
    }

    public func accelerationG(atSeconds time: Double) -> (x: Double, y: Double, z: Double) {
        guard times.count >= 2 else { return (0, 0, 1) }
        let (i, w) = locate(time)
        let a = acceleration[i], b = acceleration[i + 1]
        // Magnitude-only recordings put |a| on x: the emulated chip then senses it along x.
        return (a.0 + (b.0 - a.0) * w, a.1 + (b.1 - a.1) * w, a.2 + (b.2 - a.2) * w)
    }

    public func opticalCounts(atSeconds time: Double) -> (red: Double, infrared: Double) {
        guard kind == .heartRate, times.count >= 2 else { return (900, 1100) }
        let (i, w) = locate(time)
        return (red[i] + (red[i + 1] - red[i]) * w, infrared[i] + (infrared[i + 1] - infrared[i]) * w)
    }
}
