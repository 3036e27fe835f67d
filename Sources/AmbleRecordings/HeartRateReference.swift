/// The reference of a heart-rate recording, as `../shared/tools/score.py hr` reads it:
/// `<name>.ref.csv` with header `time_s,bpm`, one row per 8 s window slid by 2 s; `time_s` is
/// the end of the window (from an ECG, in the development sets).
public struct HeartRateReference: Equatable, Sendable {
    public struct Window: Equatable, Sendable {
        /// End of the reference window, seconds from the recording's start.
        public var timeSeconds: Double
        public var bpm: Double

        public init(timeSeconds: Double, bpm: Double) {
            self.timeSeconds = timeSeconds
            self.bpm = bpm
        }
    }

    public var windows: [Window]

    public init(windows: [Window]) {
        self.windows = windows
    }

    /// Reads `<name>.ref.csv`; throws at the first malformed line, naming it.
    public static func read(path: String) throws(RecordingError) -> HeartRateReference {
        var reader = try LineReader(path: path)
        return try read(&reader)
    }

    /// Reads a reference from text already in memory (tests).
    public static func read(text: String, name: String) throws(RecordingError) -> HeartRateReference {
        var reader = LineReader(text: text, name: name)
        return try read(&reader)
    }

    private static func read(_ reader: inout LineReader) throws(RecordingError) -> HeartRateReference {
        var parser = CSVRowParser(file: reader.path)
        try parser.expectHeader(&reader, columns: ["time_s", "bpm"], optionalTail: 0)
        var windows: [Window] = []
        while let line = reader.next() {
            let n = reader.lineNumber
            guard let cells = try parser.cells(line, lineNumber: n) else { continue }
            try parser.checkCount(cells, expected: 2, lineNumber: n)
            let t = try parser.time(cells[0], lineNumber: n)
            let bpm = try parser.number(cells[1], column: "bpm", lineNumber: n)
            windows.append(Window(timeSeconds: t, bpm: bpm))
        }
        try parser.expectRows(lineNumber: reader.lineNumber)
        return HeartRateReference(windows: windows)
    }
}

/// Heart-rate estimates scored as `../shared/tools/score.py hr` scores them. For a reference
/// window ending at t the estimate is the last output with t - 2.5 <= time <= t + 0.01
/// (outputs with no value count as none). Per recording: the mean absolute error over the
/// windows with an estimate; the headline is the mean of the recordings' errors (recordings
/// with no estimate at all are left out of it); coverage is pooled over all windows; so is
/// the share of the values given that are more than 10 bpm off.
public struct HeartRateScore: Equatable, Sendable {
    /// Each recording's mean absolute error, bpm (nil: no estimate at all).
    public private(set) var recordingErrors: [Double?] = []
    public private(set) var windows = 0
    public private(set) var windowsWithValue = 0
    public private(set) var valuesOffByMoreThan10 = 0

    /// How far a reference window's end may lie after an output, seconds, and before it.
    public static let matchBeforeSeconds = 2.5
    public static let matchAfterSeconds = 0.01
    /// What counts as far off, bpm.
    public static let farOffBPM = 10.0

    public init() {}

    /// For each reference window, the index of the output that score.py matches to it: the
    /// last one at or before t + 0.01, if it is not before t - 2.5 (`outputTimes` in order).
    public static func matches(outputTimes: [Double], reference: HeartRateReference) -> [Int?] {
        var last = -1
        return reference.windows.map { window in
            while last + 1 < outputTimes.count, outputTimes[last + 1] <= window.timeSeconds + matchAfterSeconds { last += 1 }
            return last >= 0 && outputTimes[last] >= window.timeSeconds - matchBeforeSeconds ? last : nil
        }
    }

    /// Scores one recording: `outputs` in time order (seconds from the recording's start, bpm
    /// or nil for no value), against its reference.
    public mutating func add(outputs: [(timeSeconds: Double, bpm: Double?)], reference: HeartRateReference) {
        let matched = Self.matches(outputTimes: outputs.map(\.timeSeconds), reference: reference)
        add(estimates: matched.map { $0.flatMap { outputs[$0].bpm } }, truths: reference.windows.map(\.bpm))
    }

    /// Scores one recording from the estimate already matched to each reference window (nil:
    /// none) and the windows' true rates.
    public mutating func add(estimates: [Double?], truths: [Double]) {
        var sum = 0.0, given = 0
        for (estimate, truth) in zip(estimates, truths) {
            windows += 1
            guard let bpm = estimate, bpm.isFinite else { continue }
            let error = abs(bpm - truth)
            sum += error
            given += 1
            if error > Self.farOffBPM { valuesOffByMoreThan10 += 1 }
        }
        windowsWithValue += given
        recordingErrors.append(given > 0 ? sum / Double(given) : nil)
    }

    /// Mean of the per-recording mean absolute errors, bpm; nil when no recording had an estimate.
    public var meanAbsoluteErrorBPM: Double? {
        let errors = recordingErrors.compactMap { $0 }
        return errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count)
    }

    /// Share of the reference windows with an estimate, 0...1.
    public var coverage: Double { windows > 0 ? Double(windowsWithValue) / Double(windows) : 0 }

    /// Share of the estimates given that are more than 10 bpm off, 0...1.
    public var farOffShare: Double { windowsWithValue > 0 ? Double(valuesOffByMoreThan10) / Double(windowsWithValue) : 0 }
}

/// How far the values of each confidence bin are from the reference, over every reference
/// window of a set (no threshold): per bin, the values whose confidence falls in it, how many
/// are within 5 bpm (what the confidence claims to be the chance of) and how many more than
/// 10 bpm off. `scripts/score-hr` prints one per development set and sensor variant and reads
/// the display threshold from them (`displayThreshold`; docs/heart-rate.md).
public struct HeartRateReliability: Equatable, Sendable {
    /// Bin edges: [edges[b], edges[b + 1]), the last bin closed. Every lower edge is a
    /// candidate display threshold.
    public static let edges = [0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 1.0]
    /// The most a display threshold may let through more than 10 bpm off, on any set and variant.
    public static let displayFarOffShare = 0.03
    /// The least share within 5 bpm of every bin a display threshold shows: a value shown is at
    /// least as likely as not within 5 bpm (what a confidence of one half claims).
    public static let displayWithinFiveShare = 0.5

    public struct Bin: Equatable, Sendable {
        /// Values in the bin, those within 5 bpm, those more than 10 bpm off.
        public var count = 0
        public var withinFive = 0
        public var farOff = 0

        public init(count: Int = 0, withinFive: Int = 0, farOff: Int = 0) {
            self.count = count
            self.withinFive = withinFive
            self.farOff = farOff
        }
    }

    public private(set) var bins = Array(repeating: Bin(), count: edges.count - 1)

    /// Every reference window: the value given (nil: none), the reference rate and the value's
    /// confidence. Values below the first edge are left out.
    public init(windows: [(bpm: Double?, truthBPM: Double, confidence: Double)]) {
        for window in windows {
            guard let bpm = window.bpm, let b = Self.bin(of: window.confidence) else { continue }
            let error = abs(bpm - window.truthBPM)
            bins[b].count += 1
            if error <= 5 { bins[b].withinFive += 1 }
            if error > HeartRateScore.farOffBPM { bins[b].farOff += 1 }
        }
    }

    /// The bin a confidence falls in; nil below the first edge.
    public static func bin(of confidence: Double) -> Int? {
        guard confidence >= edges[0] else { return nil }
        return (0..<(edges.count - 2)).first { confidence < edges[$0 + 1] } ?? edges.count - 2
    }

    /// The share more than 10 bpm off of the values in the bins from the one starting at
    /// `threshold` (a lower edge) up: what a display threshold there would show (0 when none).
    public func farOffShare(from threshold: Double) -> Double {
        let shown = bins.indices.filter { Self.edges[$0] >= threshold - 1e-9 }
        let count = shown.reduce(0) { $0 + bins[$1].count }
        return count > 0 ? Double(shown.reduce(0) { $0 + bins[$1].farOff }) / Double(count) : 0
    }

    /// Whether a display threshold at `threshold` (a lower edge) meets the rule on this table:
    /// at most `displayFarOffShare` of the values shown more than 10 bpm off, and every bin
    /// shown at least `displayWithinFiveShare` within 5 bpm (empty bins pass).
    public func meetsDisplayRule(from threshold: Double) -> Bool {
        farOffShare(from: threshold) <= Self.displayFarOffShare
            && bins.indices.allSatisfy { b in
                Self.edges[b] < threshold - 1e-9 || bins[b].count == 0
                    || Double(bins[b].withinFive) >= Self.displayWithinFiveShare * Double(bins[b].count)
            }
    }

    /// The display threshold's rule: the lowest lower edge at which every table meets
    /// `meetsDisplayRule`; nil when none does.
    public static func displayThreshold(_ tables: [HeartRateReliability]) -> Double? {
        edges.dropLast().first { t in tables.allSatisfy { $0.meetsDisplayRule(from: t) } }
    }

    /// Where the rule is met at no edge: the lowest edge with the fewest values more than
    /// 10 bpm off on the worst table. A class kept at this edge is shown and said to fail the
    /// rule (docs/heart-rate.md), not silenced.
    public static func bestEdge(_ tables: [HeartRateReliability]) -> Double {
        let candidates = edges.dropLast()
        func worst(_ t: Double) -> Double { tables.map { $0.farOffShare(from: t) }.max() ?? 0 }
        return candidates.min { worst($0) < worst($1) - 1e-12 } ?? candidates[0]
    }
}
