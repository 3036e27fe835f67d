import AmbleCompanionStore
import AmbleModel

/// A session with its per-second rows: what every export format is made from.
struct ExportedSession: Equatable, Sendable {
    var session: CompanionSession
    var seconds: [SessionSecond]

    var summary: SessionSummary { session.summary }

    /// The UTC time of a second: the session's start plus the second's offset.
    func unixSeconds(of second: SessionSecond) -> Double {
        session.summary.startUnixSeconds + Double(second.offsetSeconds)
    }
}

/// One file an export writes: its name (no folder) and its whole text.
struct ExportFile: Equatable, Sendable {
    var name: String
    var contents: String
    /// What it holds, for the line printed after writing it ("3 sessions").
    var summary: String
}

/// The formats of `amble export`.
enum ExportFormat: String, CaseIterable, Sendable {
    case csv
    case openmhealth
    case tcx
    /// Raw sensor capture: not built here (it will be `amble sessions export ID --raw`);
    /// parsed so that `--format raw` gets a clear answer instead of "invalid value".
    case raw

    /// The formats this build writes, for help and messages.
    static let available: [ExportFormat] = [.csv, .openmhealth, .tcx]

    /// The files this format makes from `sessions` (which are in the order to write them).
    /// `notes` collects what was left out and why.
    func files(_ sessions: [ExportedSession], notes: inout [String]) -> [ExportFile] {
        switch self {
        case .csv: return CSVExport.files(sessions)
        case .openmhealth: return [OpenMHealthExport.file(sessions)]
        case .tcx: return TCXExport.files(sessions, notes: &notes)
        case .raw: return []
        }
    }
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

/// "1 session", "3 sessions".
func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
