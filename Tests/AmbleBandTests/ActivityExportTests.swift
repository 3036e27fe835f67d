@testable import AmbleCLI
import AmbleModel
import Foundation
import Testing

/// The activity formats say walking wherever they can (issue 30, item 4).
struct ActivityExportTests {
    @Test func tcxSaysWalkingWhereTheSchemaLetsIt() throws {
        let walk = try #require(try ExportTests.fixture().1.last)
        // The document without its line breaks and indentation.
        let xml = TCXExport.document(walk).split(separator: "\n").map { $0.drop { $0 == " " } }.joined()
        // Sport may only be Running, Biking or Other: Other, and the rest says walking.
        #expect(xml.contains("<Activity Sport=\"Other\">"))
        #expect(xml.contains("<Other Name=\"Other\"><Folder Name=\"Walking\"><ActivityRef><Id>2026-01-01T00:00:00Z</Id>"),
                "filed in Training Center's history under Other, in a folder named Walking")
        #expect(xml.contains("<Notes>Walking (Amble mindful walk): 170 steps;"))
        #expect(xml.contains("<Training VirtualPartner=\"false\"><Plan Type=\"Workout\" IntervalWorkout=\"false\"><Name>Walking</Name>"))
        #expect(xml.contains("<Creator xsi:type=\"Device_t\"><Name>Amble band Left, &quot;good&quot; wrist</Name>"))
        #expect(xml.contains("xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""))
    }
}
