import AmbleCompanionStore
import AmbleModel
import AmbleVersion

/// A session with its per-second rows: what every export format is made from. The rows add
/// up to the summary's steps (`withSummarySteps`), so every format adds up to the session.
public struct ExportedSession: Equatable, Sendable {
    var session: CompanionSession
    var seconds: [SessionSecond]

    public init(session: CompanionSession, seconds: [SessionSecond]) {
        self.session = session
        self.seconds = Self.withSummarySteps(seconds, steps: session.summary.steps)
    }

    var summary: SessionSummary { session.summary }

    /// `seconds` holding `total` steps. A band files each step under the second it was taken
    /// in, and its rows add up to the summary; sessions recorded before it did lack the
    /// counter's last steps in their rows: those came only with the summary, released when
    /// the walk ended. They are put back here, deterministically,
    /// where the counter held them: the walk's last seconds (walking, not paused), from the
    /// end backwards, at each second's cadence, over as many seconds as that cadence takes to
    /// make them (all the walking seconds when they are fewer; the last seconds at all when
    /// none walked). Rows holding more than the summary (no band makes them) lose the excess
    /// from the end.
    static func withSummarySteps(_ seconds: [SessionSecond], steps total: Int) -> [SessionSecond] {
        var seconds = seconds
        var missing = total - seconds.reduce(0) { $0 + $1.steps }
        guard missing != 0, !seconds.isEmpty else { return seconds }
        if missing < 0 {
            for index in seconds.indices.reversed() where missing < 0 {
                let taken = min(seconds[index].steps, -missing)
                seconds[index].steps -= taken
                missing += taken
            }
            return seconds
        }
        let walking = seconds.indices.filter { seconds[$0].isWalking }
        var chosen: [Int] = []
        var weights: [Double] = []
        if walking.isEmpty {
            chosen = [seconds.count - 1]
            weights = [1]
        } else {
            var expected = 0.0
            for index in walking.reversed() where expected < Double(missing) {
                chosen.append(index)
                weights.append(seconds[index].cadenceStepsPerMinute / 60)
                expected += weights.last!
            }
        }
        for (index, share) in zip(chosen, apportion(missing, by: weights)) { seconds[index].steps += share }
        return seconds
    }

    /// The UTC time of a second: the session's start plus the second's offset.
    func unixSeconds(of second: SessionSecond) -> Double {
        session.summary.startUnixSeconds + Double(second.offsetSeconds)
    }
}

/// One file an export writes: its name (no folder) and its whole contents.
public struct ExportFile: Equatable, Sendable {
    public var name: String
    public var bytes: [UInt8]
    /// What it holds, for the line printed after writing it ("3 sessions").
    public var summary: String

    /// A text file (UTF-8).
    init(name: String, contents: String, summary: String) {
        self.init(name: name, bytes: Array(contents.utf8), summary: summary)
    }

    init(name: String, bytes: [UInt8], summary: String) {
        self.name = name
        self.bytes = bytes
        self.summary = summary
    }

    /// The contents as text.
    var contents: String { String(decoding: bytes, as: UTF8.self) }
}

/// The formats of `amble export`.
public enum ExportFormat: String, CaseIterable, Sendable {
    case csv
    case openmhealth
    case tcx
    /// FIT activity files (`FITExport`), one per mindful walk.
    case fit
    /// Raw sensor capture (where consent allowed it): per session, the CSVs `amble analyze
    /// steps` and `amble analyze hr` read (`RawExport`); built by `ExportCommand` from the
    /// store's raw blocks.
    case raw

    /// The formats this build writes, for help and messages.
    public static let available: [ExportFormat] = [.csv, .openmhealth, .tcx, .fit, .raw]

    /// The files this format makes from `sessions` (which are in the order to write them).
    /// `notes` collects what was left out and why.
    public func files(_ sessions: [ExportedSession], notes: inout [String]) -> [ExportFile] {
        switch self {
        case .csv: return CSVExport.files(sessions)
        case .openmhealth: return [OpenMHealthExport.file(sessions)]
        case .tcx: return TCXExport.files(sessions, notes: &notes)
        case .fit: return FITExport.files(sessions, notes: &notes)
        case .raw: return []   // from the raw blocks: `rawFiles`
        }
    }

    /// `--format raw`: for each session with raw samples, `amble-raw-ID-steps.csv` (its
    /// accelerometer samples) and, with PPG samples, `amble-raw-ID-hr.csv`. Sessions without
    /// raw samples are noted.
    public static func rawFiles(_ sessions: [(id: Int64, blocks: [RawBlock])], notes: inout [String]) -> [ExportFile] {
        var files: [ExportFile] = []
        for session in sessions {
            for format in RawExportFormat.allCases {
                var contents = ""
                var rows = -1   // the header
                do {
                    try RawExport.write(session.blocks, as: format) { piece in
                        contents += piece
                        rows += piece.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
                    }
                } catch {
                    if format == .steps {
                        notes.append("session \(session.id) has no raw samples (consent_raw_capture was off while it was recorded): left out")
                    } else if !session.blocks.isEmpty {
                        notes.append("session \(session.id) has no PPG samples (consent_heart_rate was off): only its accelerometer samples are written")
                    }
                    continue
                }
                files.append(ExportFile(name: "amble-raw-\(session.id)-\(format.rawValue).csv", contents: contents,
                                        summary: "\(rows) \(format == .steps ? "accelerometer" : "PPG") samples"))
            }
        }
        return files
    }
}

/// The mindful walks among `sessions`, for the formats that hold activities (TCX, FIT); the
/// calibrations left out are noted.
func mindfulWalks(_ sessions: [ExportedSession], format: ExportFormat, notes: inout [String]) -> [ExportedSession] {
    let walks = sessions.filter { $0.summary.kind == .mindfulWalk }
    let left = sessions.count - walks.count
    if left > 0 {
        notes.append("\(format.rawValue): left out \(plural(left, "calibration")) (\(format.rawValue.uppercased()) holds the mindful walks)")
    }
    return walks
}

/// Numbers as exports write them: '.' decimals whatever the locale, at most `digits`
/// decimals, no trailing zeros, integers without a point; nil (and non-finite) is nil.
func exportNumber(_ value: Double?, digits: Int) -> String? {
    guard let value, value.isFinite else { return nil }
    return SessionJSON.number(value, digits: digits)
}

/// A compact, timestamp-safe form of a UTC time for file names: 20260101T093000Z.
func fileNameTime(_ unixSeconds: Double) -> String {
    String(isoDate(unixSeconds).filter { $0 != "-" && $0 != ":" })
}

/// `total` split in whole numbers in proportion to `weights` (evenly when they are all 0 or
/// none is finite): each share is the rounded running total less what came before, so the
/// shares add up to `total` exactly.
func apportion(_ total: Int, by weights: [Double]) -> [Int] {
    guard !weights.isEmpty else { return [] }
    let usable = weights.map { $0.isFinite && $0 > 0 ? $0 : 0 }
    let sum = usable.reduce(0, +)
    var result: [Int] = []
    var given = 0
    var cumulative = 0.0
    for (index, weight) in usable.enumerated() {
        cumulative += weight
        let upTo = sum > 0 ? Double(total) * cumulative / sum : Double(total) * Double(index + 1) / Double(usable.count)
        let share = Int(upTo.rounded()) - given
        given += share
        result.append(share)
    }
    return result
}

/// Amble's release as numbers (0.1.0: major 0, minor 1), for the formats that name the
/// program that wrote them.
let ambleRelease: (major: Int, minor: Int) = {
    let parts = AmbleVersion.release.split(separator: ".").map { Int($0) ?? 0 }
    return (parts.first ?? 0, parts.dropFirst().first ?? 0)
}()

/// "1 session", "3 sessions".
public func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
