@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import AmbleSync
import Testing

/// A file of the study export written in pages adds up, byte for byte, to the file the
/// companion writes whole, whatever the pages (none, one session, pages of 1 and 2, one page).
struct PagedExportTests {
    static func sessions(_ count: Int) -> [ExportedSession] {
        (0 ..< count).map { index in
            let bytes = sessionBytes(start: 1_772_409_600 + Double(index) * 7200, seconds: 70 + index, steps: 1 + index)
            let record = try! SessionCoding.decode(bytes)
            return ExportedSession(session: CompanionSession(id: Int64(index + 1), bandID: "band", bandName: "Left", bandSessionID: Int64(index + 1),
                                                             summary: record.summary), seconds: record.seconds)
        }
    }

    @Test(arguments: [0, 1, 3], [1, 2, 5])
    func pagesAddUpToTheWholeFile(count: Int, pageSize: Int) {
        let sessions = Self.sessions(count)
        var notes: [String] = []
        let whole = ExportFormat.csv.files(sessions, notes: &notes) + ExportFormat.openmhealth.files(sessions, notes: &notes)
        for file in [PagedExport.File.sessions, .seconds, .openMHealth] {
            var writer = PagedExport(file)
            var text = writer.head()
            for start in stride(from: 0, to: sessions.count, by: pageSize) {
                text += writer.page(Array(sessions[start ..< min(start + pageSize, sessions.count)]))
            }
            text += writer.end()
            #expect(text == whole.first { $0.name == file.fileName }?.contents, "\(file) \(count) sessions in pages of \(pageSize)")
        }
    }
}
