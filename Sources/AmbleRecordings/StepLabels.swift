import AmbleModel
/// The ground truth of a folder of steps recordings, as `../shared/tools/score.py steps`
/// reads it: `labels.csv` with header `file,true_steps,kind,duration_s`, one row per
/// recording in the folder.
public struct StepLabel: Equatable, Sendable {
    /// What a recording holds, which decides how its count is scored.
    public enum Kind: String, Sendable {
        /// A walk: scored by the absolute percentage error of the count.
        case walking
        /// Walking among other activity: scored like a walk, reported apart.
        case mixed
        /// No walking, or a few real steps (`trueSteps`): scored by the steps counted beyond them.
        case nonWalking = "non-walking"
    }

    /// The recording's file name, relative to the folder.
    public var file: String
    /// Steps counted by hand.
    public var trueSteps: Int
    public var kind: Kind
    /// Length of the recording, seconds.
    public var durationSeconds: Double

    public init(file: String, trueSteps: Int, kind: Kind, durationSeconds: Double) {
        self.file = file
        self.trueSteps = trueSteps
        self.kind = kind
        self.durationSeconds = durationSeconds
    }

    /// Reads `labels.csv`; throws at the first malformed line, naming it.
    public static func read(path: String) throws(RecordingError) -> [StepLabel] {
        var reader = try LineReader(path: path)
        return try read(&reader)
    }

    /// Reads labels from text already in memory (tests).
    public static func read(text: String, name: String) throws(RecordingError) -> [StepLabel] {
        var reader = LineReader(text: text, name: name)
        return try read(&reader)
    }

    private static func read(_ reader: inout LineReader) throws(RecordingError) -> [StepLabel] {
        let parser = CSVRowParser(file: reader.path)
        try parser.expectHeader(&reader, columns: ["file", "true_steps", "kind", "duration_s"], optionalTail: 0)
        var labels: [StepLabel] = []
        while let line = reader.next() {
            let n = reader.lineNumber
            guard let cells = try parser.cells(line, lineNumber: n) else { continue }
            try parser.checkCount(cells, expected: 4, lineNumber: n)
            guard !cells[0].isEmpty else { throw parser.error(n, "file is empty; expected a recording's file name") }
            guard let steps = Int(cells[1]), steps >= 0 else {
                throw parser.error(n, "true_steps is \"\(printableText(String(cells[1]), maximum: 20))\"; expected a whole number of steps, 0 or more")
            }
            guard let kind = Kind(rawValue: String(cells[2])) else {
                throw parser.error(n, "kind is \"\(printableText(String(cells[2]), maximum: 20))\"; expected walking, mixed or non-walking")
            }
            if kind != .nonWalking, steps == 0 {
                throw parser.error(n, "true_steps is 0 for a \(kind.rawValue) recording; a walk's error is relative to its steps (label it non-walking)")
            }
            let duration = try parser.number(cells[3], column: "duration_s", lineNumber: n)
            guard duration > 0 else { throw parser.error(n, "duration_s is \(duration); expected the recording's length in seconds") }
            labels.append(StepLabel(file: String(cells[0]), trueSteps: steps, kind: kind, durationSeconds: duration))
        }
        if labels.isEmpty { throw parser.error(nil, "no recordings after the header") }
        return labels
    }
}

/// Step counts scored as `../shared/tools/score.py steps` scores them: walking recordings by
/// the mean absolute percentage error of their counts (MAPE), non-walking ones by the steps
/// counted beyond their true steps per hour, pooled over all of them. The two are reported
/// apart, never netted.
public struct StepScore: Equatable, Sendable {
    /// |counted - true| / true x 100 of each walking recording, and of each mixed one.
    public private(set) var walkingPercentErrors: [Double] = []
    public private(set) var mixedPercentErrors: [Double] = []
    /// Steps counted beyond the true steps, summed over the non-walking recordings.
    public private(set) var falseSteps = 0
    /// Length of the non-walking recordings, hours.
    public private(set) var nonWalkingHours = 0.0

    public init() {}

    public mutating func add(counted: Int, for label: StepLabel) {
        switch label.kind {
        case .walking: walkingPercentErrors.append(Self.percentError(counted, label.trueSteps))
        case .mixed: mixedPercentErrors.append(Self.percentError(counted, label.trueSteps))
        case .nonWalking:
            falseSteps += max(0, counted - label.trueSteps)
            nonWalkingHours += label.durationSeconds / 3600
        }
    }

    /// Mean absolute percentage error over the walking recordings; nil without any.
    public var walkingMAPEPercent: Double? { Self.mean(walkingPercentErrors) }
    /// The same over the mixed recordings.
    public var mixedMAPEPercent: Double? { Self.mean(mixedPercentErrors) }
    /// False steps per hour of non-walking recordings, pooled; nil without any.
    public var falseStepsPerHour: Double? { nonWalkingHours > 0 ? Double(falseSteps) / nonWalkingHours : nil }

    private static func percentError(_ counted: Int, _ truth: Int) -> Double {
        Double(abs(counted - truth)) / Double(max(truth, 1)) * 100
    }

    private static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}
