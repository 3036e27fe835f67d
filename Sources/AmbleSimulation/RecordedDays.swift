import AmbleRecordings

/// Synthetic days made from labelled wrist recordings of one device at one rate: bouts of a
/// few to a few dozen steps cut from steady counted walks, separated by stretches of the
/// device's non-walking recordings, plus a few whole walks (`scripts/make-day`,
/// `scripts/score-steps`; docs/steps.md, "Mixed days").
///
/// **A bout's truth.** A counted walk of `n` steps is walked at `n / T` steps per second over
/// its *active span* `T`: from the first to the last second whose movement (RMS over 1 s of
/// |a| minus its 2-s mean) reaches `activeShare` of the walk's median, which leaves out the
/// still seconds before the first step and after the last. A bout cut from inside that span
/// (at least `edgeMarginSeconds` from either end, where the walker speeds up or slows down)
/// holds `n × duration / T` steps, kept fractional; a day's truth is the sum of its pieces
/// rounded once. The same share of the walk's whole recording (as the issue first put it,
/// `n × duration / length`) is kept beside it in `Piece.stepsByLength`: the two differ by
/// the still ends, and their difference is the truth's uncertainty from that source.
///
/// **Cuts** fall at low-motion points: each end of a bout moves, within half a step of where
/// the drawn length puts it, to the sample where |a| is nearest its local mean (0.2 s), so a
/// piece never starts or ends mid-swing. Pieces are joined on one time line (each starts one
/// typical sample interval after the last) and the first 0.3 s of each blends from the last
/// sample of the one before, as a wrist turning would.
///
/// **Non-walking recordings that hold real steps** (`trueSteps > 0`, such as a drive with the
/// walk to the car) are never cut: each is used whole, once per day, and its steps are added to
/// the day's truth (or left out with `Plan.includesRecordingsWithSteps = false`).
public enum RecordedDays {
    /// One labelled recording offered to the day maker.
    public struct Source: Sendable {
        public var file: String
        /// Steps counted by hand; for a walk the whole recording's, for a non-walking one the
        /// real steps it holds (0 for most).
        public var trueSteps: Int
        public var isWalk: Bool
        public var rows: [AccelerationRow]

        public init(file: String, trueSteps: Int, isWalk: Bool, rows: [AccelerationRow]) {
            self.file = file
            self.trueSteps = trueSteps
            self.isWalk = isWalk
            self.rows = rows
        }

        /// A labelled recording as a source; nil for a mixed one (a made day is not cut again).
        public init?(label: StepLabel, rows: [AccelerationRow]) {
            guard label.kind != .mixed else { return nil }
            self.init(file: label.file, trueSteps: label.trueSteps, isWalk: label.kind == .walking, rows: rows)
        }

        /// From the first sample to the last, seconds.
        public var lengthSeconds: Double { rows.isEmpty ? 0 : rows[rows.count - 1].timeSeconds - rows[0].timeSeconds }

        /// The typical sample interval (median), seconds.
        public var typicalIntervalSeconds: Double {
            guard rows.count > 1 else { return 0.04 }
            var intervals = zip(rows.dropFirst(), rows).map { $0.timeSeconds - $1.timeSeconds }
            intervals.sort()
            return intervals[intervals.count / 2]
        }

        /// The nominal rate, Hz, as a day groups recordings: 12.5 or 25 (or the nearest whole Hz).
        public var nominalRateHz: Double {
            let rate = 1 / max(typicalIntervalSeconds, 1e-3)
            for nominal in [12.5, 25, 50, 100, 125] where abs(rate / nominal - 1) < 0.15 { return nominal }
            return rate.rounded()
        }
    }

    /// One piece of a day, as `pieces.csv` lists it.
    public struct Piece: Sendable {
        public enum Kind: String, Sendable {
            /// A part of a counted walk.
            case bout
            /// A whole counted walk.
            case walk
            /// A part of a non-walking recording without steps, or a whole one with some.
            case nonWalking = "non-walking"
        }

        public var kind: Kind
        public var source: String
        /// Where the piece lies in its source recording, seconds of the source's time.
        public var sourceStartSeconds: Double
        public var sourceEndSeconds: Double
        /// Where it starts in the day, seconds.
        public var dayStartSeconds: Double
        /// Its steps: a bout's fraction of its walk's count by the active span (see the type's
        /// comment), a whole recording's label.
        public var trueSteps: Double
        /// A bout's fraction of its walk's count by the walk's whole length (the still ends
        /// included); the same as `trueSteps` for whole recordings.
        public var stepsByLength: Double
    }

    /// A made day: rows in the steps CSV format, its pieces and its truth.
    public struct Day: Sendable {
        public var name: String
        public var rows: [AccelerationRow]
        public var pieces: [Piece]

        /// The sum of the pieces' steps, rounded once.
        public var trueSteps: Int { Int(pieces.reduce(0) { $0 + $1.trueSteps }.rounded()) }
        public var durationSeconds: Double { rows.last.map { $0.timeSeconds } ?? 0 }
    }

    /// What a day holds.
    public struct Plan: Sendable {
        /// Bouts cut from walks.
        public var bouts = 40
        /// Steps in a bout, drawn uniformly.
        public var boutSteps: ClosedRange<Double> = 4 ... 60
        /// Whole walks added (the shorter walks of the device only: at most `longestWholeWalkSeconds`).
        public var wholeWalks = 2
        public var longestWholeWalkSeconds = 300.0
        /// Length of each stretch of non-walking recording between two walking pieces, drawn uniformly.
        public var stretchSeconds: ClosedRange<Double> = 15 ... 150
        /// Whether non-walking recordings that hold real steps are used (whole, their steps counted).
        public var includesRecordingsWithSteps = true
        /// The word in the days' names (`pebble__day-25hz-1`).
        public var kind = "day"

        public init() {}

        /// A day at home: 120 bouts of 4-15 steps (across a kitchen, to a door) between 3-30 s
        /// of other activity, no whole walks, named `...__home-...`. The bouts are cut from
        /// steady walks, so they are still easier than a home's: no first steps from standing,
        /// no turns, no shuffling (docs/steps.md, "Mixed days").
        public static var home: Plan {
            var plan = Plan()
            plan.bouts = 120
            plan.boutSteps = 4 ... 15
            plan.wholeWalks = 0
            plan.stretchSeconds = 3 ... 30
            plan.kind = "home"
            return plan
        }
    }

    /// Why a day cannot be made.
    public struct MakeError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The share of a walk's median movement that marks its active span.
    public static let activeShare = 0.3
    /// How far inside the active span a bout stays, seconds (the first and last steps of a
    /// counted walk are slower).
    public static let edgeMarginSeconds = 3.0
    /// How long a piece blends from the last sample of the one before, seconds.
    public static let blendSeconds = 0.3

    /// The labelled recordings of `folders` (each with its `labels.csv`), read whole.
    public static func read(folders: [String]) throws -> [(label: StepLabel, rows: [AccelerationRow])] {
        var recordings: [(label: StepLabel, rows: [AccelerationRow])] = []
        for folder in folders {
            for label in try StepLabel.read(path: folder + "/labels.csv") {
                var rows: [AccelerationRow] = []
                try AccelerationRecording(path: folder + "/" + label.file).forEachRow { rows.append($0) }
                recordings.append((label, rows))
            }
        }
        return recordings
    }

    /// A walk's active span, seconds of its time: from the first to the last sample whose
    /// movement (RMS over 1 s of |a| minus its 2-s mean) reaches `activeShare` of its median.
    public static func activeSpan(_ rows: [AccelerationRow]) -> (start: Double, end: Double) {
        let times = rows.map(\.timeSeconds), magnitude = rows.map(Self.magnitude)
        let deviation = zip(magnitude, movingMean(magnitude, times, halfWidth: 1)).map { $0 - $1 }
        let envelope = movingMean(deviation.map { $0 * $0 }, times, halfWidth: 0.5).map { $0.squareRoot() }
        let threshold = activeShare * envelope.sorted()[envelope.count / 2]
        let first = envelope.firstIndex { $0 >= threshold } ?? 0
        let last = envelope.lastIndex { $0 >= threshold } ?? times.count - 1
        return (times[first], times[last])
    }

    static func magnitude(_ row: AccelerationRow) -> Double { (row.xG * row.xG + row.yG * row.yG + row.zG * row.zG).squareRoot() }

    /// The mean of `values` over `halfWidth` seconds either side of each sample.
    static func movingMean(_ values: [Double], _ times: [Double], halfWidth: Double) -> [Double] {
        var out = [Double](repeating: 0, count: values.count)
        var low = 0, high = 0, sum = 0.0
        for i in values.indices {
            while high < values.count, times[high] <= times[i] + halfWidth { sum += values[high]; high += 1 }
            while times[low] < times[i] - halfWidth { sum -= values[low]; low += 1 }
            out[i] = sum / Double(high - low)
        }
        return out
    }

    /// A device's name by a development recording's file name, as the scorers group them.
    public static func device(of file: String) -> String {
        if file.hasPrefix("bangle__") { return "Bangle.js" }
        if file.hasPrefix("pebble__") { return "Pebble" }
        if file.hasPrefix("l1-") || file.hasPrefix("l2-") { return "Sensor Watch" }
        return "other"
    }

    /// The file-name prefix of a day made from `device`'s recordings, so that `device(of:)`
    /// finds the device again.
    public static func filePrefix(of device: String) -> String {
        switch device {
        case "Bangle.js": return "bangle__"
        case "Pebble": return "pebble__"
        case "Sensor Watch": return "l1-l2__"
        default: return "other__"
        }
    }

    /// Groups sources by device and nominal rate ("Pebble 25 Hz"), in order of first appearance;
    /// runs (`run` in the name) are left out: a day's walking is walking.
    public static func groups(_ sources: [Source]) -> [(device: String, rateHz: Double, sources: [Source])] {
        var groups: [(device: String, rateHz: Double, sources: [Source])] = []
        for source in sources where !source.file.contains("run") {
            let device = device(of: source.file), rate = source.nominalRateHz
            if let i = groups.firstIndex(where: { $0.device == device && $0.rateHz == rate }) {
                groups[i].sources.append(source)
            } else {
                groups.append((device, rate, [source]))
            }
        }
        return groups
    }

    /// The day's name: the device's prefix, the plan's kind, the rate and the day's number
    /// (`pebble__day-25hz-1`).
    public static func name(device: String, rateHz: Double, number: Int, kind: String = "day") -> String {
        "\(filePrefix(of: device))\(kind)-\(Int(rateHz))hz-\(number)"
    }

    /// Makes one day from sources of one device and rate.
    public static func make(name: String, from sources: [Source], plan: Plan = Plan(), seed: UInt64) throws(MakeError) -> Day {
        var random = SeededRandom(seed: seed)
        let walks = sources.filter { $0.isWalk && $0.trueSteps > 0 }.map(Walk.init)
            .filter { $0.activeEnd - $0.activeStart > 2 * edgeMarginSeconds + 4 }
        let stretches = sources.filter { !$0.isWalk && $0.trueSteps == 0 && $0.rows.count > 10 }
        let stretchSeconds = stretches.reduce(0) { $0 + $1.lengthSeconds }
        let withSteps = plan.includesRecordingsWithSteps ? sources.filter { !$0.isWalk && $0.trueSteps > 0 } : []
        let whole = walks.filter { $0.source.lengthSeconds <= plan.longestWholeWalkSeconds }
        guard !walks.isEmpty else { throw MakeError(description: "\(name): no counted walk long enough to cut bouts from (walking recordings of more than \(Int(2 * edgeMarginSeconds + 4)) s of movement)") }
        guard !stretches.isEmpty else { throw MakeError(description: "\(name): no non-walking recording without steps to put between the bouts") }

        // The walking pieces in a random order; the non-walking pieces between them.
        var walking: [Piece?] = Array(repeating: nil, count: plan.bouts)
        for _ in 0 ..< min(plan.wholeWalks, whole.count) {
            let walk = whole[Int(random.unit() * Double(whole.count))]
            walking.insert(Piece(kind: .walk, source: walk.source.file, sourceStartSeconds: walk.source.rows[0].timeSeconds,
                                 sourceEndSeconds: walk.source.rows.last!.timeSeconds, dayStartSeconds: 0,
                                 trueSteps: Double(walk.source.trueSteps), stepsByLength: Double(walk.source.trueSteps)),
                           at: Int(random.unit() * Double(walking.count + 1)))
        }
        var between: [Source?] = Array(repeating: nil, count: walking.count + 1)
        for source in withSteps {
            let free = between.indices.filter { between[$0] == nil }
            guard !free.isEmpty else { break }
            between[free[Int(random.unit() * Double(free.count))]] = source
        }

        var day = DayBuilder()
        for i in 0 ... walking.count {
            if let source = between[i] {
                day.append(source, from: source.rows[0].timeSeconds, to: source.rows.last!.timeSeconds,
                           piece: Piece(kind: .nonWalking, source: source.file, sourceStartSeconds: source.rows[0].timeSeconds,
                                        sourceEndSeconds: source.rows.last!.timeSeconds, dayStartSeconds: 0,
                                        trueSteps: Double(source.trueSteps), stepsByLength: Double(source.trueSteps)))
            } else {
                // Drawn in proportion to length, so that a day holds each activity as the set does
                // (a 14-s arm swing is not as likely as an hour at a desk).
                var draw = random.unit() * stretchSeconds
                let source = stretches.first { draw -= $0.lengthSeconds; return draw < 0 } ?? stretches[stretches.count - 1]
                let first = source.rows[0].timeSeconds, last = source.rows.last!.timeSeconds
                let length = min(last - first, plan.stretchSeconds.lowerBound + random.unit() * (plan.stretchSeconds.upperBound - plan.stretchSeconds.lowerBound))
                let start = first + random.unit() * (last - first - length)
                day.append(source, from: start, to: start + length,
                           piece: Piece(kind: .nonWalking, source: source.file, sourceStartSeconds: start, sourceEndSeconds: start + length,
                                        dayStartSeconds: 0, trueSteps: 0, stepsByLength: 0))
            }
            guard i < walking.count else { break }
            if let piece = walking[i] {
                let source = walks.first { $0.source.file == piece.source }!.source
                day.append(source, from: piece.sourceStartSeconds, to: piece.sourceEndSeconds, piece: piece)
            } else {
                let walk = walks[Int(random.unit() * Double(walks.count))]
                let steps = plan.boutSteps.lowerBound + random.unit() * (plan.boutSteps.upperBound - plan.boutSteps.lowerBound)
                day.append(walk.source, bout: walk.bout(steps: steps, random: &random))
            }
        }
        return Day(name: name, rows: day.rows, pieces: day.pieces)
    }

    /// `days` days per device and rate (`name(device:rateHz:number:)`), each with its own seed.
    public static func make(days: Int, from sources: [Source], plan: Plan = Plan(), seed: UInt64) throws(MakeError) -> [(device: String, day: Day)] {
        var made: [(device: String, day: Day)] = []
        for group in groups(sources) {
            guard group.sources.contains(where: \.isWalk), group.sources.contains(where: { !$0.isWalk }) else { continue }
            for number in 1 ... max(days, 1) where days > 0 {
                let daySeed = seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(number) &* 1_000_003 &+ UInt64(group.rateHz * 10) &+ UInt64(made.count) << 32
                made.append((group.device, try make(name: name(device: group.device, rateHz: group.rateHz, number: number, kind: plan.kind),
                                                    from: group.sources, plan: plan, seed: daySeed)))
            }
        }
        return made
    }

    /// The days' labels as `labels.csv` (`file,true_steps,kind,duration_s`, kind `mixed`).
    public static func labelsCSV(_ days: [Day]) -> String {
        "file,true_steps,kind,duration_s\n" + days.map { "\($0.name).csv,\($0.trueSteps),mixed,\(fixed($0.durationSeconds, 2))\n" }.joined()
    }

    /// Every piece of every day as `pieces.csv`.
    public static func piecesCSV(_ days: [Day]) -> String {
        var text = "day,kind,source,source_start_s,source_end_s,day_start_s,true_steps,steps_by_length\n"
        for day in days {
            for p in day.pieces {
                text += "\(day.name),\(p.kind.rawValue),\(p.source),\(fixed(p.sourceStartSeconds, 2)),\(fixed(p.sourceEndSeconds, 2)),"
                    + "\(fixed(p.dayStartSeconds, 2)),\(fixed(p.trueSteps, 2)),\(fixed(p.stepsByLength, 2))\n"
            }
        }
        return text
    }
}

/// A counted walk measured for cutting: its active span and its movement.
private struct Walk {
    let source: RecordedDays.Source
    let activeStart: Double
    let activeEnd: Double
    /// Steps per second over the active span.
    let stepRate: Double
    /// |a| minus its local mean (0.2 s), smoothed: small where the wrist is between movements.
    let motion: [Double]

    init(_ source: RecordedDays.Source) {
        self.source = source
        (activeStart, activeEnd) = RecordedDays.activeSpan(source.rows)
        stepRate = Double(source.trueSteps) / max(activeEnd - activeStart, 1)
        let times = source.rows.map(\.timeSeconds), magnitude = source.rows.map(RecordedDays.magnitude)
        let local = RecordedDays.movingMean(magnitude, times, halfWidth: 0.1)
        motion = RecordedDays.movingMean(zip(magnitude, local).map { abs($0 - $1) }, times, halfWidth: 0.1)
    }

    /// A bout of about `steps` steps from inside the active span, its ends at low-motion points.
    func bout(steps: Double, random: inout SeededRandom) -> RecordedDays.Piece {
        let margin = RecordedDays.edgeMarginSeconds
        let length = min(steps / stepRate, activeEnd - activeStart - 2 * margin)
        let start = activeStart + margin + random.unit() * (activeEnd - activeStart - 2 * margin - length)
        let halfStep = 0.5 / stepRate
        let from = quietest(near: start, within: halfStep), to = quietest(near: start + length, within: halfStep)
        return RecordedDays.Piece(kind: .bout, source: source.file, sourceStartSeconds: from, sourceEndSeconds: to, dayStartSeconds: 0,
                                  trueSteps: stepRate * (to - from), stepsByLength: Double(source.trueSteps) * (to - from) / source.lengthSeconds)
    }

    /// The time of the sample with the least motion within `within` seconds of `time`.
    private func quietest(near time: Double, within: Double) -> Double {
        var best: (time: Double, motion: Double)?
        for (i, row) in source.rows.enumerated() where abs(row.timeSeconds - time) <= within {
            if best == nil || motion[i] < best!.motion { best = (row.timeSeconds, motion[i]) }
        }
        return best?.time ?? time
    }

}

/// Joins pieces on one time line.
private struct DayBuilder {
    var rows: [AccelerationRow] = []
    var pieces: [RecordedDays.Piece] = []

    mutating func append(_ source: RecordedDays.Source, bout: RecordedDays.Piece) {
        append(source, from: bout.sourceStartSeconds, to: bout.sourceEndSeconds, piece: bout)
    }

    /// Appends the source's rows from `from` to `to` (source time), shifted to follow the day's
    /// last row by one typical interval, their first `blendSeconds` blended from it.
    mutating func append(_ source: RecordedDays.Source, from: Double, to: Double, piece: RecordedDays.Piece) {
        let part = source.rows.filter { $0.timeSeconds >= from && $0.timeSeconds <= to }
        guard let first = part.first else { return }
        let dayStart = rows.last.map { $0.timeSeconds + source.typicalIntervalSeconds } ?? 0
        let previous = rows.last
        var piece = piece
        piece.dayStartSeconds = dayStart
        pieces.append(piece)
        for row in part {
            let since = row.timeSeconds - first.timeSeconds
            var out = AccelerationRow(timeSeconds: dayStart + since, xG: row.xG, yG: row.yG, zG: row.zG)
            if let previous, since < RecordedDays.blendSeconds {
                let w = since / RecordedDays.blendSeconds
                out.xG = w * row.xG + (1 - w) * previous.xG
                out.yG = w * row.yG + (1 - w) * previous.yG
                out.zG = w * row.zG + (1 - w) * previous.zG
            }
            rows.append(out)
        }
    }
}
