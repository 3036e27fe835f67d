import AmbleModel
/// One accelerometer sample of a steps recording: time in seconds from the start and
/// acceleration in g. Magnitude-only recordings hold |a| in `x` and 0 in `y` and `z`.
public struct AccelerationRow: Equatable, Sendable {
    public var timeSeconds: Double
    public var xG: Double
    public var yG: Double
    public var zG: Double

    public init(timeSeconds: Double, xG: Double, yG: Double, zG: Double) {
        self.timeSeconds = timeSeconds
        self.xG = xG
        self.yG = yG
        self.zG = zG
    }
}

/// One row of a heart-rate recording: 1 to 3 PPG channels in arbitrary units (any sign and
/// offset) and, when the recording has one, the acceleration in g at the same instant.
public struct PPGRow: Equatable, Sendable {
    public var timeSeconds: Double
    public var ppg: [Double]
    public var acceleration: AccelerationRow?

    public init(timeSeconds: Double, ppg: [Double], acceleration: AccelerationRow?) {
        self.timeSeconds = timeSeconds
        self.ppg = ppg
        self.acceleration = acceleration
    }
}

/// Reads a steps recording: CSV with header `time_s,x_g,y_g,z_g`.
public struct AccelerationRecording {
    private let makeReader: () throws(RecordingError) -> LineReader
    /// How errors name the recording: its path, or the name given with its text.
    public let name: String

    public init(path: String) {
        name = path
        makeReader = { () throws(RecordingError) in try LineReader(path: path) }
    }

    public init(text: String, name: String) {
        self.name = name
        makeReader = { () throws(RecordingError) in LineReader(text: text, name: name) }
    }

    /// Calls `body` with each row in order; throws at the first malformed line.
    public func forEachRow(_ body: (AccelerationRow) throws -> Void) throws {
        var reader = try makeReader()
        var parser = CSVRowParser(file: reader.path)
        try parser.expectHeader(&reader, columns: ["time_s", "x_g", "y_g", "z_g"], optionalTail: 0)
        while let line = reader.next() {
            guard let cells = try parser.cells(line, lineNumber: reader.lineNumber) else { continue }
            try parser.checkCount(cells, expected: 4, lineNumber: reader.lineNumber)
            let t = try parser.time(cells[0], lineNumber: reader.lineNumber)
            let x = try parser.number(cells[1], column: "x_g", lineNumber: reader.lineNumber)
            let y = try parser.number(cells[2], column: "y_g", lineNumber: reader.lineNumber)
            let z = try parser.number(cells[3], column: "z_g", lineNumber: reader.lineNumber)
            try body(AccelerationRow(timeSeconds: t, xG: x, yG: y, zG: z))
        }
        try parser.expectRows(lineNumber: reader.lineNumber)
    }
}

/// Reads a heart-rate recording: CSV with header `time_s,ppg1[,ppg2[,ppg3]],x_g,y_g,z_g`;
/// the acceleration cells may be empty.
public struct PPGRecording {
    private let makeReader: () throws(RecordingError) -> LineReader
    /// How errors name the recording: its path, or the name given with its text.
    public let name: String

    public init(path: String) {
        name = path
        makeReader = { () throws(RecordingError) in try LineReader(path: path) }
    }

    public init(text: String, name: String) {
        self.name = name
        makeReader = { () throws(RecordingError) in LineReader(text: text, name: name) }
    }

    /// The number of PPG channels, read from the header.
    public func channelCount() throws(RecordingError) -> Int {
        var reader = try makeReader()
        return try CSVRowParser(file: reader.path).ppgHeader(&reader)
    }

    /// Calls `body` with each row in order; throws at the first malformed line.
    public func forEachRow(_ body: (PPGRow) throws -> Void) throws {
        var reader = try makeReader()
        var parser = CSVRowParser(file: reader.path)
        let channels = try parser.ppgHeader(&reader)
        while let line = reader.next() {
            let n = reader.lineNumber
            guard let cells = try parser.cells(line, lineNumber: n) else { continue }
            try parser.checkCount(cells, expected: 1 + channels + 3, lineNumber: n)
            let t = try parser.time(cells[0], lineNumber: n)
            var ppg: [Double] = []
            ppg.reserveCapacity(channels)
            for c in 0..<channels {
                ppg.append(try parser.number(cells[1 + c], column: "ppg\(c + 1)", lineNumber: n))
            }
            let accelCells = cells[(1 + channels)...]
            var acceleration: AccelerationRow?
            if accelCells.allSatisfy({ $0.isEmpty }) {
                acceleration = nil
            } else {
                let names = ["x_g", "y_g", "z_g"]
                var values: [Double] = []
                for (i, cell) in accelCells.enumerated() {
                    values.append(try parser.number(cell, column: names[i], lineNumber: n))
                }
                acceleration = AccelerationRow(timeSeconds: t, xG: values[0], yG: values[1], zG: values[2])
            }
            try body(PPGRow(timeSeconds: t, ppg: ppg, acceleration: acceleration))
        }
        try parser.expectRows(lineNumber: reader.lineNumber)
    }
}

/// The checks shared by both formats.
struct CSVRowParser {
    let file: String
    private var lastTime = -Double.infinity
    private var rows = 0

    init(file: String) { self.file = file }

    func error(_ line: Int?, _ message: String) -> RecordingError {
        RecordingError(file: file, line: line, message: message)
    }

    func expectHeader(_ reader: inout LineReader, columns: [String], optionalTail: Int) throws(RecordingError) {
        guard let header = reader.next() else { throw error(nil, "the file is empty; expected a header \(columns.joined(separator: ","))") }
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces.lowercased() }
        guard names == columns else {
            throw error(1, "the header is \"\(printableText(header))\"; expected \"\(columns.joined(separator: ","))\"")
        }
    }

    /// Reads the PPG header and returns the number of PPG channels (1...3).
    func ppgHeader(_ reader: inout LineReader) throws(RecordingError) -> Int {
        let expected = "time_s,ppg1[,ppg2[,ppg3]],x_g,y_g,z_g"
        guard let header = reader.next() else { throw error(nil, "the file is empty; expected a header \(expected)") }
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces.lowercased() }
        for channels in 1...3 {
            let want = ["time_s"] + (1...channels).map { "ppg\($0)" } + ["x_g", "y_g", "z_g"]
            if names == want { return channels }
        }
        throw error(1, "the header is \"\(printableText(header))\"; expected \"\(expected)\"")
    }

    /// Splits a line into cells; nil for a blank line (allowed anywhere).
    func cells(_ line: Substring, lineNumber: Int) throws(RecordingError) -> [Substring]? {
        if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return nil }
        return line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
    }

    func checkCount(_ cells: [Substring], expected: Int, lineNumber: Int) throws(RecordingError) {
        if cells.count != expected {
            throw error(lineNumber, "expected \(expected) comma-separated cells, found \(cells.count)")
        }
    }

    /// The largest time in size, seconds (31,700 years): a double there still places a
    /// sample to 0.12 ms, a 125 Hz recording's to 2 % of its interval; beyond it times blur
    /// into each other.
    static let largestTimeSeconds = 1e12

    mutating func time(_ cell: Substring, lineNumber: Int) throws(RecordingError) -> Double {
        let t = try number(cell, column: "time_s", lineNumber: lineNumber)
        if abs(t) > Self.largestTimeSeconds {
            throw error(lineNumber, "time_s is \(t); expected seconds, at most 1e12 in size (a larger time cannot place a sample "
                + "to a millisecond)")
        }
        if t < lastTime {
            throw error(lineNumber, "time_s goes backwards (\(t) after \(lastTime)); rows must be in time order")
        }
        lastTime = t
        rows += 1
        return t
    }

    func number(_ cell: Substring, column: String, lineNumber: Int) throws(RecordingError) -> Double {
        guard let value = Double(cell), value.isFinite else {
            let shown = cell.isEmpty ? "an empty cell" : "\"\(printableText(String(cell), maximum: 20))\""
            throw error(lineNumber, "\(column) is \(shown); expected a number")
        }
        return value
    }

    func expectRows(lineNumber: Int) throws(RecordingError) {
        if rows == 0 { throw error(nil, "no samples after the header") }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
