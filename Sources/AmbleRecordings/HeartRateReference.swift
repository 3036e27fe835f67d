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
