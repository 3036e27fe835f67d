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
    /// Raw sensor capture (where consent allowed it): per session, the CSVs `amble analyze
    /// steps` and `amble analyze hr` read (`RawExport`); built by `ExportCommand` from the
    /// store's raw blocks.
    case raw

    /// The formats this build writes, for help and messages.
    static let available: [ExportFormat] = [.csv, .openmhealth, .tcx, .raw]

    /// The files this format makes from `sessions` (which are in the order to write them).
    /// `notes` collects what was left out and why.
    func files(_ sessions: [ExportedSession], notes: inout [String]) -> [ExportFile] {
        switch self {
        case .csv: return CSVExport.files(sessions)
        case .openmhealth: return [OpenMHealthExport.file(sessions)]
        case .tcx: return TCXExport.files(sessions, notes: &notes)
        case .raw: return []   // from the raw blocks: `rawFiles`
        }
    }

    /// `--format raw`: for each session with raw samples, `amble-raw-ID-steps.csv` (its
    /// accelerometer samples) and, with PPG samples, `amble-raw-ID-hr.csv`. Sessions without
    /// raw samples are noted.
    static func rawFiles(_ sessions: [(id: Int64, blocks: [RawBlock])], notes: inout [String]) -> [ExportFile] {
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
