@testable import AmbleCLI
@testable import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import Foundation
import Testing

/// A small study for the rules: 2 to 15 March 2026.
private let studyText = """
name = "Test study"
start = 2026-03-02
end = 2026-03-15

[[questionnaire]]
name = "baseline"
title = "Baseline"
due = "start"
  [[questionnaire.item]]
  id = "stress"
  type = "likert"
  text = "Stress?"
  scale = [1, 5]
  labels = ["none", "extreme"]

[[questionnaire]]
name = "evening"
title = "Evening check-in"
due = "daily"
remind_at = "20:00"
  [[questionnaire.item]]
  id = "calm"
  type = "likert"
  text = "How calm was your day?"
  scale = [1, 7]
  [[questionnaire.item]]
  id = "walked"
  type = "single"
  text = "Did you walk?"
  choices = ["yes", "no"]

[[questionnaire]]
name = "before"
title = "Before your walk"
due = "before-walk"
  [[questionnaire.item]]
  id = "mood"
  type = "number"
  text = "Mood 0-10?"
  min = 0
  max = 10

[[questionnaire]]
name = "after"
title = "After your walk"
due = "after-walk"
  [[questionnaire.item]]
  id = "note"
  type = "text"
  text = "Anything?"
  required = false

[[questionnaire]]
name = "final"
title = "Final"
due = "end"
  [[questionnaire.item]]
  id = "more"
  type = "multiple"
  text = "What next?"
  choices = ["walk", "run", "rest"]
"""

/// `studyText` in JSON.
private let studyJSON = """
{
  "name": "Test study",
  "start": "2026-03-02",
  "end": "2026-03-15",
  "questionnaire": [
    {
      "name": "baseline",
      "title": "Baseline",
      "due": "start",
      "item": [
        {
          "id": "stress",
          "type": "likert",
          "text": "Stress?",
          "scale": [
            1,
            5
          ],
          "labels": [
            "none",
            "extreme"
          ]
        }
      ]
    },
    {
      "name": "evening",
      "title": "Evening check-in",
      "due": "daily",
      "remind_at": "20:00",
      "item": [
        {
          "id": "calm",
          "type": "likert",
          "text": "How calm was your day?",
          "scale": [
            1,
            7
          ]
        },
        {
          "id": "walked",
          "type": "single",
          "text": "Did you walk?",
          "choices": [
            "yes",
            "no"
          ]
        }
      ]
    },
    {
      "name": "before",
      "title": "Before your walk",
      "due": "before-walk",
      "item": [
        {
          "id": "mood",
          "type": "number",
          "text": "Mood 0-10?",
          "min": 0,
          "max": 10
        }
      ]
    },
    {
      "name": "after",
      "title": "After your walk",
      "due": "after-walk",
      "item": [
        {
          "id": "note",
          "type": "text",
          "text": "Anything?",
          "required": false
        }
      ]
    },
    {
      "name": "final",
      "title": "Final",
      "due": "end",
      "item": [
        {
          "id": "more",
          "type": "multiple",
          "text": "What next?",
          "choices": [
            "walk",
            "run",
            "rest"
          ]
        }
      ]
    }
  ]
}
"""

private let berlin = LocalTime(zone: TimeZone(identifier: "Europe/Berlin")!)

/// A moment written with its offset, as seconds since 1970.
private func at(_ text: String) -> Double {
    try! TimeBound(text, time: .utc).firstUnixSeconds
}

private func study(_ text: String = studyText) throws -> Study {
    try StudyFile.parse(text: text, file: "study.toml")
}

private func status(_ name: String, _ study: Study, now: Double, time: LocalTime = berlin, submissions: [StudySubmission] = [],
                    walks: [StudyWalk] = []) -> QuestionnaireStatus {
    StudyRules.status(of: study.questionnaire(named: name)!, in: study, now: now, time: time, submissions: submissions, walks: walks)
}

private func submission(_ questionnaire: String, _ period: String, at time: Double, walk: Int64? = nil) -> StudySubmission {
    StudySubmission(questionnaire: questionnaire, period: period, submittedUnixSeconds: time, sessionID: walk)
}

struct StudyRulesTests {
    @Test func theStartQuestionnaireOpensAtLocalMidnightOfTheFirstDay() throws {
        let s = try study()
        // 23:30 UTC on 1 March is 00:30 on 2 March in Berlin: open there, not yet in UTC.
        let moment = at("2026-03-01T23:30:00Z")
        #expect(status("baseline", s, now: moment).isDue)
        #expect(status("baseline", s, now: moment, time: .utc) == .upcoming(opensUnixSeconds: at("2026-03-02T00:00:00Z")))
        #expect(status("baseline", s, now: at("2026-03-01T22:59:59Z")) == .upcoming(opensUnixSeconds: at("2026-03-01T23:00:00Z")))
    }

    @Test func aQuestionnaireCompletedInItsPeriodIsNoLongerDue() throws {
        let s = try study()
        let done = [submission("baseline", "start", at: at("2026-03-02T09:00:00+01:00"))]
        #expect(status("baseline", s, now: at("2026-03-10T12:00:00Z"), submissions: done)
                == .completed(atUnixSeconds: at("2026-03-02T09:00:00+01:00"), again: nil))
        #expect(StudyRules.due(s, now: at("2026-03-10T12:00:00Z"), time: berlin, submissions: done, walks: []).map(\.questionnaire)
                == ["evening", "before"])
        // Not answered before the study ended: missed.
        #expect(status("baseline", s, now: at("2026-03-16T00:00:00+01:00")) == .closed("missed: the study is over"))
    }

    @Test func theDailyPeriodIsTheLocalDay() throws {
        let s = try study()
        let lateEvening = at("2026-03-03T23:59:00+01:00")
        guard case let .due(occasions) = status("evening", s, now: lateEvening) else { Issue.record("not due"); return }
        #expect(occasions.map(\.period) == ["day:2026-03-03"])
        let done = [submission("evening", "day:2026-03-03", at: lateEvening)]
        #expect(status("evening", s, now: at("2026-03-03T23:59:59+01:00"), submissions: done)
                == .completed(atUnixSeconds: lateEvening, again: "again tomorrow"))
        // One second after local midnight: the next day's period is due.
        guard case let .due(next) = status("evening", s, now: at("2026-03-04T00:00:01+01:00"), submissions: done) else {
            Issue.record("not due the next day"); return
        }
        #expect(next.map(\.period) == ["day:2026-03-04"])
        // The same moment in UTC is still 3 March there: completed.
        #expect(!status("evening", s, now: at("2026-03-03T23:30:00Z"), time: .utc, submissions: done).isDue)
    }

    @Test func dailyPeriodsFollowDaylightSaving() throws {
        // Berlin moves to summer time on 29 March 2026: that day has 23 hours.
        let s = try study(studyText.replacing("start = 2026-03-02", with: "start = 2026-03-28").replacing("end = 2026-03-15", with: "end = 2026-03-31"))
        guard case let .due(a) = status("evening", s, now: at("2026-03-29T23:30:00+02:00")),
              case let .due(b) = status("evening", s, now: at("2026-03-30T00:30:00+02:00")) else { Issue.record("not due"); return }
        #expect(a.map(\.period) == ["day:2026-03-29"])
        #expect(b.map(\.period) == ["day:2026-03-30"])
        #expect(StudyRules.studyEnd(s, time: berlin) == at("2026-04-01T00:00:00+02:00"))
    }

    @Test func dailyIsClosedAfterTheLastDayAndTheEndQuestionnaireOpensOnIt() throws {
        let s = try study()
        #expect(status("final", s, now: at("2026-03-14T23:59:59+01:00")) == .upcoming(opensUnixSeconds: at("2026-03-15T00:00:00+01:00")))
        #expect(status("final", s, now: at("2026-03-15T00:00:00+01:00")).isDue)
        #expect(status("final", s, now: at("2026-03-20T12:00:00+01:00")).isDue, "still answerable after the study")
        let done = [submission("evening", "day:2026-03-02", at: at("2026-03-02T20:00:00+01:00"))]
        #expect(status("evening", s, now: at("2026-03-16T00:00:00+01:00"), submissions: done)
                == .closed("the study is over; answered on 1 of 14 days"))
    }

    @Test func afterWalkIsDueForEachSyncedWalkOfTheStudy() throws {
        let s = try study()
        let walks = [StudyWalk(sessionID: 1, startUnixSeconds: at("2026-03-01T10:00:00+01:00")),   // before the study
                     StudyWalk(sessionID: 4, startUnixSeconds: at("2026-03-03T08:00:00+01:00")),
                     StudyWalk(sessionID: 6, startUnixSeconds: at("2026-03-04T08:00:00+01:00"))]
        let now = at("2026-03-04T12:00:00+01:00")
        #expect(status("after", s, now: at("2026-03-02T12:00:00+01:00"), walks: walks) == .waiting("due after your first walk, once synced"))
        guard case let .due(both) = status("after", s, now: now, walks: walks) else { Issue.record("not due"); return }
        #expect(both.map(\.period) == ["after:4", "after:6"])
        #expect(both[0].walk?.sessionID == 4)
        let done = [submission("after", "after:4", at: now, walk: 4)]
        guard case let .due(one) = status("after", s, now: now, submissions: done, walks: walks) else { Issue.record("not due"); return }
        #expect(one.map(\.period) == ["after:6"])
        let all = done + [submission("after", "after:6", at: now + 60, walk: 6)]
        #expect(status("after", s, now: now + 120, submissions: all, walks: walks)
                == .completed(atUnixSeconds: now + 60, again: "again after your next walk, once synced"))
    }

    @Test func beforeWalkIsDueAgainOnceALaterWalkIsSynced() throws {
        let s = try study()
        let answered = at("2026-03-03T07:50:00+01:00")
        guard case let .due(first) = status("before", s, now: answered) else { Issue.record("not due"); return }
        #expect(first.map(\.period) == ["before:since-start"])
        let done = [submission("before", "before:since-start", at: answered)]
        #expect(!status("before", s, now: answered + 600, submissions: done).isDue)
        // The walk that followed is synced: the next walk's questionnaire is due.
        let walk = StudyWalk(sessionID: 9, startUnixSeconds: at("2026-03-03T08:00:00+01:00"))
        guard case let .due(next) = status("before", s, now: at("2026-03-03T19:00:00+01:00"), submissions: done, walks: [walk]) else {
            Issue.record("not due again"); return
        }
        #expect(next.map(\.period) == ["before:since-9"])
        #expect(StudyRules.walk(for: done[0], due: .beforeWalk, walks: [walk]) == 9)
    }

    @Test func theReminderFollowsTheDueQuestionnaires() throws {
        let s = try study()
        let running = StudyRules.reminder(s, now: at("2026-03-05T12:00:00+01:00"), time: berlin, submissions: [], walks: [])
        #expect(running??.time == 20 * 60)
        #expect(running??.text == "Study: Evening check-in")
        let over = StudyRules.reminder(s, now: at("2026-03-17T12:00:00+01:00"), time: berlin, submissions: [], walks: [])
        #expect(over != nil && over! == nil, "nothing asks for a reminder after the study")
        // The laptop's own study_reminder, never the wearer's reminder.
        let wearers = ["reminders": "on", "reminder_time": "19:30", "reminder_text": "Walk after dinner", "study_reminder": "off"]
        #expect(try StudyReminderPush.changes(wanted: running, current: wearers).map { "\($0.key)=\($0.value)" } == ["study_reminder=20:00 Study: Evening check-in"])
        #expect(try StudyReminderPush.changes(wanted: running, current: wearers.merging(["study_reminder": "20:00 Study: Evening check-in"]) { $1 }).isEmpty)
        #expect(try StudyReminderPush.changes(wanted: .some(nil), current: wearers.merging(["study_reminder": "20:00 Study: Evening check-in"]) { $1 })
            .map { "\($0.key)=\($0.value)" } == ["study_reminder=off"])
        #expect(try StudyReminderPush.changes(wanted: nil, current: wearers).isEmpty, "no study with reminders: off already")
        // A study reminder an earlier amble put in the wearer's place is turned off once.
        let legacy = ["reminders": "on", "reminder_text": "Study: Evening check-in", "study_reminder": "off"]
        #expect(try StudyReminderPush.changes(wanted: .some(nil), current: legacy).map { "\($0.key)=\($0.value)" } == ["reminders=off"])
        // A band of an older build has no study_reminder: it is not set there, the wearer's is not touched.
        #expect(throws: StudyReminderPush.BandTooOld.self) { try StudyReminderPush.changes(wanted: running, current: ["reminders": "on"]) }
        #expect(try StudyReminderPush.changes(wanted: .some(nil), current: ["reminders": "on"]).isEmpty)
    }
}

struct StudyFileTests {
    @Test func theDocumentedExampleLoads() throws {
        let example = try StudyFile.load(path: repositoryPath("docs/study-example.toml"))
        #expect(example.name == "Mindful walking, two weeks")
        #expect(example.days == 14)
        #expect(Set(example.questionnaires.map(\.due)) == Set(DueKind.allCases))
        #expect(example.course.count == 4)
        // docs/study.md shows the same file.
        let doc = try String(contentsOfFile: repositoryPath("docs/study.md"), encoding: .utf8)
        let file = try String(contentsOfFile: repositoryPath("docs/study-example.toml"), encoding: .utf8)
        #expect(doc.contains(file.trimmingCharacters(in: .whitespacesAndNewlines)), "docs/study.md embeds docs/study-example.toml")
        // And its JSON example reads.
        let json = try #require(doc.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(try StudyFile.parse(text: json, file: "docs/study.md").questionnaires.map(\.name) == ["evening"])
    }

    /// The error for `studyText` with `old` replaced by `new`.
    private func error(replacing old: String, with new: String) -> String {
        #expect(studyText.contains(old), "the test's text has \(old)")
        do {
            _ = try StudyFile.parse(text: studyText.replacing(old, with: new), file: "study.toml")
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func errorsNameTheLineAndKey() {
        #expect(error(replacing: "title = \"Evening check-in\"", with: "titel = \"Evening check-in\"")
                == "study.toml:18: questionnaire[2].titel: unknown key; did you mean title?")
        #expect(error(replacing: "due = \"after-walk\"", with: "due = \"after_walk\"")
                == "study.toml:46: questionnaire[4].due: \"after_walk\" is not one of \"start\", \"end\", \"daily\", \"before-walk\", \"after-walk\"; did you mean after-walk?")
        #expect(error(replacing: "labels = [\"none\", \"extreme\"]", with: "labels = [\"none\", \"some\", \"extreme\"]")
                == "study.toml:14: questionnaire[1].item[1].labels: 3 labels for 5 points (1 to 5); give 5, one per point, or 2 for the ends")
        #expect(error(replacing: "scale = [1, 7]", with: "scale = [7, 1]")
                == "study.toml:25: questionnaire[2].item[1].scale: the lowest point (7) must be below the highest (1)")
        #expect(error(replacing: "choices = [\"yes\", \"no\"]", with: "choices = []")
                == "study.toml:30: questionnaire[2].item[2].choices: a single-choice item needs at least 2 choices")
        #expect(error(replacing: "type = \"multiple\"", with: "type = \"multi\"")
                == "study.toml:59: questionnaire[5].item[1].type: \"multi\" is not one of \"likert\", \"single\", \"multiple\", \"number\", \"text\"; did you mean multiple?")
        #expect(error(replacing: "  min = 0\n", with: "  min = 0\n  choices = [\"a\"]\n")
                == "study.toml:41: questionnaire[3].item[1].choices: is for multiple and single items, not number; remove it")
        #expect(error(replacing: "end = 2026-03-15", with: "end = 2026-03-01")
                == "study.toml:3: end: 2026-03-01 is before start (2026-03-02); the end is the study's last day")
        #expect(error(replacing: "start = 2026-03-02", with: "start = \"2 March\"")
                == "study.toml:2: start: \"2 March\" is not a date; write YYYY-MM-DD, such as 2026-03-02")
        #expect(error(replacing: "remind_at = \"20:00\"", with: "remind_at = \"8pm\"")
                == "study.toml:20: questionnaire[2].remind_at: \"8pm\" is not a time of day; write HH:MM, such as \"19:30\"")
        #expect(error(replacing: "name = \"final\"", with: "name = \"evening\"")
                == "study.toml:54: questionnaire[5].name: \"evening\" is the name of an earlier questionnaire; names must differ")
        #expect(error(replacing: "name = \"Test study\"\n", with: "")
                == "study.toml:1: name: missing; add name = \"...\"", "every error has a line: the top of the file for the top level")
        let syntax = error(replacing: "scale = [1, 7]", with: "scale = [1, 7")
        #expect(syntax.hasPrefix("study.toml:2") && syntax.contains(": not valid TOML"), "\(syntax)")
    }

    @Test func jsonStudiesReadLikeTOMLAndTheirErrorsNameLineAndKey() throws {
        #expect(try StudyFile.parse(text: studyJSON, file: "study.json") == (try study()))
        func error(replacing old: String, with new: String) -> String {
            #expect(studyJSON.contains(old), "the test's JSON has \(old)")
            do {
                _ = try StudyFile.parse(text: studyJSON.replacing(old, with: new), file: "study.json")
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(error(replacing: "\"due\": \"after-walk\"", with: "\"due\": \"after_walk\"")
                == "study.json:69: questionnaire[4].due: \"after_walk\" is not one of \"start\", \"end\", \"daily\", \"before-walk\", \"after-walk\"; did you mean after-walk?")
        #expect(error(replacing: "\"labels\": [", with: "\"labelz\": [")
                == "study.json:19: questionnaire[1].item[1].labelz: unknown key; did you mean labels?")
        #expect(error(replacing: "\"due\": \"after-walk\"", with: "\"due\": null")
                == "study.json:69: questionnaire[4].due: is null; give a value or leave the key out")
        #expect(error(replacing: "\"due\": \"after-walk\",", with: "\"due\": \"after-walk\"")
                == "study.json:70: not valid JSON: expected ',' or '}' after the value of \"due\"")
    }

    /// Found by an outside trial (issue 31): a JSON study whose top level is a list was called
    /// bad TOML, text was quoted whole in errors, and a file of any size was parsed.
    @Test func aJSONListAndHugeTextAreRefusedInFewWords() throws {
        for (name, text) in [("study.json", "[" + studyJSON + "]"), ("study.txt", "[\n " + studyJSON + "]")] {
            #expect(StudyFileCheck.problem(text: text, file: name)
                    == "\(name):1: not valid JSON: the top level is a list; a study file in JSON is one object: {\"name\": ..., \"questionnaire\": [...]}")
        }
        let huge = String(repeating: "x", count: 1_000_000)
        for (old, new, line) in [("name = \"Test study\"", "\(huge) = 1\nname = \"Test study\"", 1), ("choices = [\"yes\", \"no\"]", "choices = [\"\(huge)\", \"\(huge)\"]", 30),
                                 ("start = 2026-03-02", "start = \"\(huge)\"", 2)] {
            let shown = error(replacing: old, with: new)
            #expect(shown.hasPrefix("study.toml:\(line): ") && shown.count < 300, "\(shown.prefix(300))")
        }
        let path = NSTemporaryDirectory() + "study-\(UUID().uuidString).toml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(ascii: "#"), count: StudyFile.maximumBytes + 1))
        #expect(throws: StudyFileError(file: path, line: nil, key: nil, message: "holds 524289 bytes (512 KiB), more than the 524288 (512 KiB) such a file may hold; nothing of it was read; a large study is about 100 kB")) {
            try StudyFile.load(path: path)
        }
    }

    @Test func participantIDsNameAFolder() {
        #expect((try? validateParticipantID("P01_a-b")) != nil)
        for bad in ["", "a/b", "..", "with space", String(repeating: "x", count: 33)] {
            #expect(throws: (any Error).self, "\(bad)") { try validateParticipantID(bad) }
        }
    }

    @Test func answersAreCheckedByType() throws {
        let s = try study()
        let evening = s.questionnaire(named: "evening")!.items
        #expect(evening[0].parse("8") == .failure(StudyAnswerError("\"8\" is not a number from 1 to 7")))
        #expect(evening[0].parse(" 7 ") == .success("7"))
        #expect(evening[1].parse("2") == .success("no"))
        #expect(evening[1].parse("YES") == .success("yes"))
        let more = s.questionnaire(named: "final")!.items[0]
        #expect(more.parse("3, 1,1") == .success("walk | rest"))
        #expect(more.parse("4") == .failure(StudyAnswerError("\"4\" is not one of the numbers 1 to 3; give numbers from 1 to 3 separated by commas (1,3)")))
        let mood = s.questionnaire(named: "before")!.items[0]
        #expect(mood.parse("7,5") == .success("7.5"))
        #expect(mood.parse("11") == .failure(StudyAnswerError("\"11\" is not a number from 0 to 10")))
        #expect(mood.parse("") == .failure(StudyAnswerError("an answer is needed: a number from 0 to 10")))
        #expect(s.questionnaire(named: "after")!.items[0].parse("") == .success(""), "an optional item can be skipped")
    }
}

struct SurveyMachineTests {
    private func machine() throws -> SurveyMachine {
        SurveyMachine(questionnaire: try study().questionnaire(named: "evening")!, label: "today")
    }

    @Test func backChangesThePreviousAnswer() throws {
        var m = try machine()
        #expect(m.start().hasSuffix("1/2 How calm was your day?\n  1 to 7\n  (Answer: a number from 1 to 7)\n> "))
        _ = m.handle("5")
        let back = m.handle("b")
        #expect(back.contains("1/2 How calm was your day?") && back.contains("Enter keeps 5"))
        _ = m.handle("6")
        #expect(m.state == .asking(index: 1, reviewAfter: false))
        let review = m.handle("1")
        #expect(review.contains("1. How calm was your day?: 6") && review.contains("2. Did you walk?: yes"))
        _ = m.handle("s")
        #expect(m.submittedAnswers?.map(\.value) == ["6", "yes"])
    }

    @Test func theReviewChangesOneAnswerAndComesBack() throws {
        var m = try machine()
        _ = m.start()
        _ = m.handle("3")
        _ = m.handle("2")
        #expect(m.state == .reviewing)
        #expect(m.handle("9") == "Type s to submit, or a number from 1 to 2 to change that answer.\n> ")
        _ = m.handle("1")
        #expect(m.state == .asking(index: 0, reviewAfter: true))
        let again = m.handle("")   // Enter keeps 3
        #expect(again.contains("1. How calm was your day?: 3"))
        _ = m.handle("1")
        _ = m.handle("7")
        #expect(m.state == .reviewing, "a changed answer returns to the review")
        _ = m.handle("s")
        #expect(m.submittedAnswers?.map(\.value) == ["7", "no"])
    }

    @Test func invalidAnswersAreAskedAgainAndEndOfInputCancels() throws {
        var m = try machine()
        _ = m.start()
        #expect(m.handle("b").hasPrefix("This is the first question.\n1/2"))
        #expect(m.handle("nine").hasPrefix("Not taken: \"nine\" is not a number from 1 to 7.\n1/2"))
        _ = m.handle("4")
        m.endOfInput()
        #expect(m.state == .cancelled)
        #expect(m.submittedAnswers == nil)
    }
}

/// The message a command's refusal prints.
/// A store in memory that joined the test study as P01 and holds one submitted answer.
private func joinedStore(answer: StudyAnswer) throws -> CompanionStore {
    let store = try CompanionStore(path: nil)
    try store.joinStudy(participantID: "P01", studyName: "Test study", fileName: "s.toml", fileText: studyText, nowUnixSeconds: 0)
    try store.submitStudyAnswers([answer], questionnaire: answer.questionnaire, period: answer.period, sessionID: nil, nowUnixSeconds: answer.answeredUnixSeconds)
    return store
}

private func refusal(_ body: () throws -> Any) -> String {
    do { _ = try body(); return "no error" } catch { return "\(error)" }
}

struct StudyStoreTests {
    @Test func theStudyMigrationsComeAfterTheGoals() {
        let versions = CompanionStore.versions
        #expect(versions.firstIndex(of: "goals").map { Array(versions[$0...].prefix(3)) } == ["goals", "study", "study-leave"], "\(versions)")
    }

    @Test func answersAreStoredOncePerPeriodAndRevisionsKeepTheFirstTime() throws {
        let store = try CompanionStore(path: nil)
        #expect(try store.studyEnrollment() == nil)
        try store.joinStudy(participantID: "P01", studyName: "Test study", fileName: "s.toml", fileText: studyText, nowUnixSeconds: 100)
        #expect(throws: StudyStoreError.otherStudyJoined(studyName: "Test study", participantID: "P01")) {
            try store.joinStudy(participantID: "P02", studyName: "Test study", fileName: "s.toml", fileText: studyText, nowUnixSeconds: 101)
        }
        let answers = [StudyAnswer(questionnaire: "evening", period: "day:2026-03-02", item: "calm", value: "5", answeredUnixSeconds: 200),
                       StudyAnswer(questionnaire: "evening", period: "day:2026-03-02", item: "walked", value: "yes", answeredUnixSeconds: 200)]
        try store.submitStudyAnswers(answers, questionnaire: "evening", period: "day:2026-03-02", sessionID: nil, nowUnixSeconds: 200)
        #expect(throws: StudyStoreError.alreadySubmitted(questionnaire: "evening", period: "day:2026-03-02")) {
            try store.submitStudyAnswers(answers, questionnaire: "evening", period: "day:2026-03-02", sessionID: nil, nowUnixSeconds: 300)
        }
        try store.reviseStudyAnswer(questionnaire: "evening", period: "day:2026-03-02", item: "calm", value: "6", nowUnixSeconds: 400)
        let stored = try store.studyAnswers()
        #expect(stored.count == 2)
        #expect(stored[0].value == "6" && stored[0].answeredUnixSeconds == 400 && stored[0].firstAnsweredUnixSeconds == 200)
        #expect(try store.studySubmissions().map(\.period) == ["day:2026-03-02"])
        // Joining again as the same participant keeps the answers.
        try store.joinStudy(participantID: "P01", studyName: "Test study", fileName: "new.toml", fileText: studyText + "\n", nowUnixSeconds: 500)
        #expect(try store.studyAnswers().count == 2)
        #expect(try store.studyEnrollment()?.joinedUnixSeconds == 100)
    }

    @Test func leavingAsksNothingMoreKeepsTheAnswersAndTurnsOnlyTheStudysReminderOff() throws {
        let now = at("2026-03-04T12:00:00+01:00")
        let store = try joinedStore(answer: StudyAnswer(questionnaire: "baseline", period: "start", item: "stress", value: "2", answeredUnixSeconds: now))
        #expect(try StudyContext.read(store: store).reminder(now: now, time: berlin)??.text == "Study: Evening check-in")
        let quiet = Console(isInteractive: false, ask: { _ in nil }, say: { _ in })
        let said = try StudyCommand.LeaveCommand.leave(store: store, deleteAnswers: false, yes: false, now: now + 60, time: berlin, console: quiet)
        #expect(said == """
            Left "Test study" (participant P01): nothing more is asked.
            Your answers (1) stay in this store: `amble study export` writes them, `amble study leave --delete-answers` deletes them.
            The next `amble sync` turns the study's reminder off on the band (a reminder you set yourself stays).
            """)
        let context = try StudyContext.read(store: store)
        #expect(context.answers.count == 1, "the answers stay")
        #expect(try SurveyCommand.occasions(context, name: nil, now: now + 120, time: berlin).isEmpty)
        #expect(refusal { try SurveyCommand.occasions(context, name: "evening", now: now + 120, time: berlin) }
                == "\"Evening check-in\" is not due any more: you left the study on Wed 4 Mar 2026, 12:01")
        #expect(throws: StudyStoreError.left(studyName: "Test study")) {
            try store.submitStudyAnswers([], questionnaire: "evening", period: "day:2026-03-04", sessionID: nil, nowUnixSeconds: now + 180)
        }
        // The next sync turns this laptop's study reminder off, and never the wearer's own.
        let wanted = context.reminder(now: now + 120, time: berlin)
        let band = ["reminders": "on", "reminder_text": "Walk after lunch", "study_reminder": "20:00 Study: Evening check-in"]
        #expect(try StudyReminderPush.changes(wanted: wanted, current: band).map { "\($0.key)=\($0.value)" } == ["study_reminder=off"])
        #expect(context.statusText(now: now + 120, time: berlin).hasPrefix("Test study: participant P01, left Wed 4 Mar 2026, 12:01"))
        // Joining the same study again takes part again, with the answer kept.
        try store.joinStudy(participantID: "P01", studyName: "Test study", fileName: "s.toml", fileText: studyText, nowUnixSeconds: now + 240)
        #expect(try store.studyEnrollment()?.leftUnixSeconds == nil)
        #expect(try StudyContext.read(store: store).reminder(now: now + 240, time: berlin)??.text == "Study: Evening check-in")
    }

    @Test func anotherStudyWaitsUntilTheLeftOnesAnswersAreDeleted() throws {
        let store = try joinedStore(answer: StudyAnswer(questionnaire: "baseline", period: "start", item: "stress", value: "2", answeredUnixSeconds: 10))
        func joinOther() throws { try store.joinStudy(participantID: "Q7", studyName: "Other", fileName: "o.toml", fileText: studyText, nowUnixSeconds: 50) }
        #expect(throws: StudyStoreError.otherStudyJoined(studyName: "Test study", participantID: "P01"), "not left yet") { try joinOther() }
        var asked: [String] = []
        let declines = Console(isInteractive: true, ask: { asked.append($0); return "n" }, say: { _ in })
        _ = try StudyCommand.LeaveCommand.leave(store: store, deleteAnswers: true, yes: false, now: 20, time: berlin, console: declines)
        #expect(asked.count == 1 && asked[0].hasPrefix("Delete the 1 answer given to \"Test study\""))
        #expect(throws: StudyStoreError.leftStudyHasAnswers(studyName: "Test study", participantID: "P01", answers: 1)) { try joinOther() }
        let said = try StudyCommand.LeaveCommand.leave(store: store, deleteAnswers: true, yes: true, now: 30, time: berlin, console: declines)
        #expect(said.hasPrefix("You left \"Test study\" on Thu 1 Jan 1970, 01:00 already.\nDeleted 1 answer."), "\(said)")
        #expect(try store.studyAnswers().isEmpty && store.studySubmissions().isEmpty)
        try joinOther()
        #expect(try store.studyEnrollment()?.studyName == "Other")
    }

    @Test func joiningAStudyThatIsOverOrFarAheadWarns() throws {
        let s = try study()
        let enrollment = try CompanionStore(path: nil).joinStudy(participantID: "P01", studyName: s.name, fileName: "s.toml", fileText: studyText, nowUnixSeconds: 0)
        func warning(_ now: String) -> String? { StudyCommand.JoinCommand.joined(s, enrollment: enrollment, now: at(now), time: berlin).warning }
        #expect(warning("2026-03-10T09:00:00+01:00") == nil)
        #expect(warning("2026-03-15T23:00:00+01:00") == nil, "the last day is part of the study")
        #expect(warning("2026-06-01T09:00:00+02:00")?.hasPrefix("\"Test study\" ended on Sun 15 Mar 2026, 78 days ago: only what is due after its end") == true)
        #expect(warning("2026-01-01T09:00:00+01:00") == "\"Test study\" starts on Mon 2 Mar 2026, in 60 days: nothing is asked before then.")
        #expect(StudyCommand.JoinCommand.joined(s, enrollment: enrollment, now: at("2026-03-10T09:00:00+01:00"), time: berlin).text
                .hasPrefix("Joined \"Test study\" as participant P01: Mon 2 Mar 2026 to Sun 15 Mar 2026, 5 questionnaires."))
    }

    @Test func surveyRefusesAQuestionnaireCompletedInItsPeriod() throws {
        let store = try CompanionStore(path: nil)
        try store.joinStudy(participantID: "P01", studyName: "Test study", fileName: "s.toml", fileText: studyText, nowUnixSeconds: 0)
        let now = at("2026-03-03T20:00:00+01:00")
        try store.submitStudyAnswers([], questionnaire: "evening", period: "day:2026-03-03", sessionID: nil, nowUnixSeconds: now)
        let context = try StudyContext.read(store: store)
        #expect(refusal { try SurveyCommand.occasions(context, name: "evening", now: now + 60, time: berlin) }
                == "\"Evening check-in\" was completed Tue 3 Mar 2026, 20:00 and is not due now; again tomorrow")
        #expect(refusal { try SurveyCommand.occasions(context, name: "final", now: now, time: berlin) }
                == "\"Final\" is not due yet: it opens Sun 15 Mar 2026, 00:00")
        #expect(refusal { try SurveyCommand.occasions(context, name: "evenin", now: now, time: berlin) }
                == "the study has no questionnaire \"evenin\"; did you mean evening? (it has baseline, evening, before, after, final)")
        #expect(try SurveyCommand.occasions(context, name: nil, now: now + 60, time: berlin).map(\.questionnaire) == ["baseline", "before"])
    }

    /// The sheet queued for a study server carries the period the answers complete.
    @Test func theQueuedSheetCarriesItsPeriod() throws {
        let context = try StudyContext.read(store: try joinedStore(answer: StudyAnswer(questionnaire: "baseline", period: "start", item: "mood", value: "3",
                                                                                        answeredUnixSeconds: at("2026-03-02T09:00:00+01:00"))))
        let now = at("2026-03-03T20:00:00+01:00")
        let occasions = try SurveyCommand.occasions(context, name: nil, now: now, time: berlin)
        let sheets = occasions.map { SurveyCommand.sheet($0, answers: [(item: "calm", value: "4")], at: now) }
        #expect(sheets.map(\.questionnaire) == ["evening", "before"])
        #expect(sheets.map(\.period) == ["day:2026-03-03", "before:since-start"])
        let wire = try #require(String(bytes: StudyServerClient.json(sheets[0]), encoding: .utf8))
        #expect(wire.contains("\"period\":\"day:2026-03-03\""))
    }

    @Test func readingTheStudyNeverMakesAStore() throws {
        let path = NSTemporaryDirectory() + "amble-no-store-\(UUID().uuidString)/amble.sqlite"
        #expect(refusal { try StudyContext.read(storePath: path) }.hasPrefix("no store at \(path)"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func theAnswersExportNamesTheWalkEachAnswerBelongsTo() throws {
        let before = at("2026-03-03T07:50:00+01:00")
        let store = try joinedStore(answer: StudyAnswer(questionnaire: "before", period: "before:since-start", item: "mood", value: "7", answeredUnixSeconds: before))
        let summary = SessionTally([]).summary(kind: .mindfulWalk, startUnixSeconds: at("2026-03-03T08:00:00+01:00"),
                                               endUnixSeconds: at("2026-03-03T08:20:00+01:00"), parameters: SessionParameters(stepLengthMeters: 0.7))
        let walk = try #require(try store.insert(bandID: "band-1", bandName: "b", bandSessionID: 12, record: SessionRecord(summary: summary, seconds: []),
                                                 syncedAtUnixSeconds: 0))
        try store.submitStudyAnswers([StudyAnswer(questionnaire: "after", period: "after:\(walk)", item: "note", value: "rain, \"fine\"",
                                                  answeredUnixSeconds: before + 3600, sessionID: walk)],
                                     questionnaire: "after", period: "after:\(walk)", sessionID: walk, nowUnixSeconds: before + 3600)
        let file = StudyExport.answersFile(try StudyContext.read(store: store))
        // The next survey records the walk the before-walk answer belongs to.
        try SurveyCommand.attachWalks(try StudyContext.read(store: store), store: store)
        #expect(try store.studyAnswers().map(\.sessionID) == [walk, walk])
        #expect(try store.studySubmissions().map(\.sessionID) == [walk, walk])
        #expect(StudyExport.answersFile(try StudyContext.read(store: store)) == file)
        #expect(file.contents == """
            participant_id,study,questionnaire,due,period,item,item_type,question,value,answered_utc,first_answered_utc,submitted_utc,session_id,band_id,band_session_id
            P01,Test study,before,before-walk,before:since-start,mood,number,Mood 0-10?,7,2026-03-03T06:50:00Z,2026-03-03T06:50:00Z,2026-03-03T06:50:00Z,\(walk),band-1,12
            P01,Test study,after,after-walk,after:\(walk),note,text,Anything?,"rain, ""fine\"\"",2026-03-03T07:50:00Z,2026-03-03T07:50:00Z,2026-03-03T07:50:00Z,\(walk),band-1,12

            """)
    }

    @Test func surveyHelpIsExactly() {
        #expect(AmbleCommand.helpMessage(for: SurveyCommand.self, columns: 100) == """
            OVERVIEW: Answer the study's due questionnaires, one question at a time.

            Without NAME every due questionnaire is asked in turn (an after-walk one once for each walk not
            answered yet). b goes back to change the previous answer; after the last question a review lists
            the answers: a number changes one, s submits. End of input (Ctrl-D) cancels without saving. A
            questionnaire completed in its period is refused. Lines can be piped in: printf '4\\n2\\ns\\n' | amble
            survey evening.

            USAGE: amble survey [<name>]

            ARGUMENTS:
              <name>                  A questionnaire's name (`amble study` lists them). Default: every due one.

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            """)
        let root = AmbleCommand.helpMessage()
        #expect(root.contains("  study ") && root.contains("  survey "))
    }
}
