import AmbleCompanionStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

private let surveyStudy = """
name = "Pty study"
start = 2026-03-02
end = 2026-03-15

[[questionnaire]]
name = "evening"
title = "Evening check-in"
due = "daily"
  [[questionnaire.item]]
  id = "calm"
  type = "likert"
  text = "How calm was your day?"
  scale = [1, 7]
  labels = ["restless", "calm"]
  [[questionnaire.item]]
  id = "walked"
  type = "single"
  text = "Did you walk mindfully today?"
  choices = ["yes", "no"]
"""

@Suite(.serialized)
struct SurveyTerminalTests {
    private func joinedStore() throws -> (directory: String, store: String) {
        let directory = NSTemporaryDirectory() + "amble-survey-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try surveyStudy.write(toFile: directory + "/study.toml", atomically: true, encoding: .utf8)
        let store = try CompanionStore(path: directory + "/amble.sqlite")
        try store.joinStudy(participantID: "P07", studyName: "Pty study", fileName: directory + "/study.toml", fileText: surveyStudy, nowUnixSeconds: 0)
        return (directory, directory + "/amble.sqlite")
    }

    private let environment = ["AMBLE_NOW": "2026-03-03T20:15:00+01:00", "TZ": "Europe/Berlin"]

    @Test(.enabled(if: builtExecutable("amble") != nil, "amble is not built; run `swift build` first"))
    func aParticipantAnswersGoesBackChangesAnAnswerInTheReviewAndSubmits() throws {
        let (directory, path) = try joinedStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let survey = try PseudoTerminalSession(try #require(builtExecutable("amble")), ["--store", path, "survey", "evening"], environment: environment)
        survey.answer(after: "1/2 How calm was your day?", "9")
        survey.answer(after: "Not taken: \"9\" is not a number from 1 to 7.", "5")
        survey.answer(after: "2/2 Did you walk mindfully today?", "b")
        survey.answer(after: "Enter keeps 5", "6")
        survey.answer(after: "2/2 Did you walk mindfully today?", "1")
        survey.answer(after: "Your answers:", "2")
        survey.answer(after: "(Answer: a number from 1 to 2; Enter keeps yes)", "2")
        survey.answer(after: "2. Did you walk mindfully today?: no", "s")
        #expect(survey.waitFor("Saved: Evening check-in (today), 2 answers."), "\(survey.output)")
        #expect(survey.finish() == 0)
        let answers = try CompanionStore(path: path).studyAnswers()
        #expect(answers.map(\.value) == ["6", "no"])
        #expect(answers.allSatisfy { $0.period == "day:2026-03-03" })

        // Completed today: asked again, it is refused.
        let again = try PseudoTerminalSession(try #require(builtExecutable("amble")), ["--store", path, "survey", "evening"], environment: environment)
        #expect(again.waitFor("was completed Tue 3 Mar 2026, 20:15 and is not due now; again tomorrow"), "\(again.output)")
        #expect(again.finish() == 1)
    }

    @Test(.enabled(if: builtExecutable("amble") != nil, "amble is not built; run `swift build` first"))
    func endOfInputCancelsWithoutStoring() throws {
        let (directory, path) = try joinedStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let survey = try PseudoTerminalSession(try #require(builtExecutable("amble")), ["--store", path, "survey"], environment: environment)
        survey.answer(after: "1/2 How calm was your day?", "4")
        #expect(survey.waitFor("2/2 Did you walk mindfully today?"))
        survey.type("\u{04}")   // Ctrl-D at the start of a line: end of input
        #expect(survey.waitFor("cancelled at the end of input: nothing of \"Evening check-in\" was saved"), "\(survey.output)")
        #expect(survey.finish() == 1)
        #expect(try CompanionStore(path: path).studyAnswers().isEmpty)
    }
}
