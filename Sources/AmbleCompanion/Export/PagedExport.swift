import AmbleCompanionStore

/// One file of the study export written a page at a time, for a reader that streams it (the
/// study server's `GET /studies/{id}/export`): what the pieces add up to is, byte for byte, the
/// file `amble study export` writes from the same sessions or answers (PagedExportTests), and
/// the writer holds nothing but whether it wrote an item yet.
public struct PagedExport: Sendable {
    public enum File: String, CaseIterable, Sendable {
        /// `amble-sessions.csv`: a row per session.
        case sessions
        /// `amble-seconds.csv`: a row per recorded second.
        case seconds
        /// `amble-answers.csv`: a row per answer.
        case answers
        /// `amble-openmhealth.json`: one JSON array of data points.
        case openMHealth = "openmhealth"

        public var fileName: String {
            switch self {
            case .sessions: CSVExport.sessionsFileName
            case .seconds: CSVExport.secondsFileName
            case .answers: StudyExport.answersFileName
            case .openMHealth: OpenMHealthExport.fileName
            }
        }

        public var contentType: String { self == .openMHealth ? "application/json" : "text/csv; charset=utf-8" }

        /// Whether its items are sessions (else answers).
        public var holdsSessions: Bool { self != .answers }
    }

    public let file: File
    private var wroteItem = false

    public init(_ file: File) { self.file = file }

    /// What comes before the first page: the CSV header.
    public func head() -> String {
        switch file {
        case .sessions: CSVExport.sessionColumns.joined(separator: ",") + "\n"
        case .seconds: CSVExport.secondColumns.joined(separator: ",") + "\n"
        case .answers: StudyExport.answerColumns.joined(separator: ",") + "\n"
        case .openMHealth: ""
        }
    }

    /// A page of sessions (the session files).
    public mutating func page(_ sessions: [ExportedSession]) -> String {
        switch file {
        case .sessions: return lines(sessions.map(CSVExport.sessionRow))
        case .seconds: return lines(sessions.flatMap(CSVExport.secondRows))
        case .answers: return ""
        case .openMHealth:
            var text = ""
            for point in sessions.flatMap(OpenMHealthExport.dataPoints) {
                text += (wroteItem ? ",\n  " : "[\n  ") + point.text
                wroteItem = true
            }
            return text
        }
    }

    /// A page of answers (`amble-answers.csv`): those of `context`.
    public mutating func page(answersOf context: StudyContext) -> String {
        file == .answers ? lines(StudyExport.answerRows(context)) : ""
    }

    /// What comes after the last page.
    public func end() -> String {
        file == .openMHealth ? (wroteItem ? "\n]\n" : "[]\n") : ""
    }

    private func lines(_ rows: [String]) -> String {
        rows.isEmpty ? "" : rows.joined(separator: "\n") + "\n"
    }
}
