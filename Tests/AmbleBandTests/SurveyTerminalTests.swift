import AmbleCompanionStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `amble survey` driven through a pseudo-terminal, as a participant types: each answer is
/// sent only once its prompt shows.
private final class PseudoTerminalSession {
    let process = Process()
    private let controller: Int32
    private(set) var output = ""
    /// Output before this offset has been matched already: each wait looks for new text.
    private var consumed = 0

    init(_ program: String, _ arguments: [String], environment: [String: String]) throws {
        var controllerFD: Int32 = -1, subordinateFD: Int32 = -1
        guard openpty(&controllerFD, &subordinateFD, nil, nil, nil) == 0 else { throw POSIXError(.EIO) }
        controller = controllerFD
        let subordinate = FileHandle(fileDescriptor: subordinateFD, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = subordinate
        process.standardOutput = subordinate
        process.standardError = subordinate
        try process.run()
        try subordinate.close()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(controller)
    }

    /// Whether `text` is in the output not matched yet; if so, the output up to it is matched.
    private func take(_ text: String) -> Bool {
        let unread = output.utf8.dropFirst(consumed)
        guard let range = String(decoding: unread, as: UTF8.self).range(of: text) else { return false }
        consumed += String(decoding: unread, as: UTF8.self)[..<range.upperBound].utf8.count
        return true
    }

    /// Reads until `text` has appeared in new output, or `seconds` pass.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 15) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if take(text) { return true }
            var poller = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return false }
            if poller.revents & Int16(POLLIN) != 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = read(controller, &buffer, buffer.count)
                if n <= 0 { return take(text) }
                output += String(decoding: buffer[..<n], as: UTF8.self)
            } else if poller.revents != 0 {
                return take(text)
            }
        }
        return take(text)
    }

    /// Waits for the prompt after `marker`, then types `line` and Enter.
    func answer(after marker: String, _ line: String) {
        #expect(waitFor(marker), "waited for \(marker); got:\n\(output)")
        type(line + "\n")
    }

    func type(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(controller, $0.baseAddress, $0.count - 1) }
    }

    func finish() -> Int32 {
        waitFor("\u{0}", seconds: 2)   // drains what is left
        process.waitUntilExit()
        return process.terminationStatus
    }
}

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
