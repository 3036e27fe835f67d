@testable import AmbleCompanion
import AmbleModel
import AmbleTestSupport
import Foundation
import Testing

/// The repository's files, found from this file's place.
private func repositoryPath(_ relative: String) -> String {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/AmbleCompanionTests/StudyServerKeysTests.swift
    return parts.joined(separator: "/") + "/" + relative
}

/// A study run by the server: two arms, allocation, consent and enrolment (the tests below
/// name its lines by number: the arms from line 15, [allocation] 29, [consent] 35, [enrolment] 40).
private let serverStudy: String = {
    var study = StudyFileText()
    study.name = "Server study"
    (study.start, study.end) = ("2026-03-02", "2026-03-15")
    (study.question, study.scale) = ("Calm?", "[1, 7]")
    study.arms = [.init("experimental", ratio: 1, description: "Pace alerts at 20 % under the calibrated pace.",
                        band: ["reduction_percent = 20", "alert_style = \"firm\""]),
                  .init("control", description: "Walks without pace alerts.", band: ["alert_style = \"silent\""])]
    (study.blockSizes, study.seed, study.strata) = ("[4, 6]", "20260302", "[\"sex\"]")
    study.consentVersion = "1.0"
    study.enrolment = ("2026-02-16", "2026-03-01", 10)
    return study.text
}()

/// The error for `serverStudy` with `old` replaced by `new`, as a person reads it.
private func error(replacing old: String, with new: String, in text: String = serverStudy) -> String {
    #expect(text.contains(old), "the test's text has \(old)")
    do {
        _ = try StudyFile.parse(text: text.replacing(old, with: new), file: "study.toml")
        return "no error"
    } catch {
        return error.description
    }
}

struct StudyServerKeysTests {
    @Test func armsAllocationConsentAndEnrolmentRead() throws {
        let study = try StudyFile.parse(text: serverStudy, file: "study.toml")
        #expect(study.arms.map(\.name) == ["experimental", "control"])
        #expect(study.arms.map(\.ratio) == [1, 1])
        #expect(study.arms[0].bandSettings == [.reductionPercent: "20", .alertStyle: "firm"])
        #expect(study.arms[1].bandSettings == [.alertStyle: "silent"])
        #expect(study.arms[1].description == "Walks without pace alerts.")
        #expect(study.allocation == StudyAllocation(method: .block, blockSizes: [4, 6], seed: 20_260_302, strata: ["sex"]))
        #expect(study.consent == StudyConsent(version: "1.0", document: .text("I agree to take part."), onWithdrawal: .keep))
        #expect(study.enrolment == StudyEnrolment(opens: CivilDay(year: 2026, month: 2, day: 16)!, closes: CivilDay(year: 2026, month: 3, day: 1)!,
                                                  codeExpiryDays: 10))
        #expect(study.allocation?.stratum(["sex": "f", "other": "x"]) == "sex=f")
        // A band value written as TOML's number or boolean is the band's text.
        let typed = try StudyFile.parse(text: serverStudy.replacing("alert_style = \"silent\"", with: "metronome = true\n  calibration_seconds = 90"), file: "s.toml")
        #expect(typed.arms[1].bandSettings == [.metronome: "on", .calibrationSeconds: "90"])
    }

    @Test func aStudyWithoutArmsHasNone() throws {
        let end = try #require(serverStudy.range(of: "[[arm]]"))
        let study = try StudyFile.parse(text: String(serverStudy[..<end.lowerBound]), file: "study.toml")
        #expect(study.arms.isEmpty && study.allocation == nil && study.consent == nil && study.enrolment == nil)
    }

    @Test func badArmsNameTheLineAndKeyAndSayWhatIsAllowed() {
        let cases: [(old: String, new: String, expected: String)] = [
            ("alert_style = \"silent\"", "alert_style = \"quiet\"",
             "study.toml:27: arm[2].band.alert_style: \"quiet\" is not allowed; expected firm, gentle or silent"),
            ("reduction_percent = 20", "reduction_percent = 22",
             "study.toml:20: arm[1].band.reduction_percent: \"22\" is not allowed; expected 10, 15, 20, 25, 30, 35 or 40"),
            ("alert_style = \"firm\"", "alert_styel = \"firm\"", "study.toml:21: arm[1].band.alert_styel: not a band setting; did you mean alert_style?"),
            ("alert_style = \"firm\"", "band_name = \"Ann's\"",
             "study.toml:21: arm[1].band.band_name: is the wearer's own setting, not the study's; an arm may set "
                + "reduction_percent, reduction_choices, calibration_seconds, alert_style, alert_strength, metronome, reminders, reminder_time, reminder_days, reminder_text"),
            ("ratio = 1", "ratio = 0", "study.toml:17: arm[1].ratio: 0 is outside 1...10"),
            ("ratio = 1", "ratoi = 1", "study.toml:17: arm[1].ratoi: unknown key; did you mean ratio?"),
            ("name = \"control\"", "name = \"experimental\"", "study.toml:24: arm[2].name: \"experimental\" is the name of an earlier arm; names must differ"),
            ("[[arm]]\nname = \"control\"\ndescription = \"Walks without pace alerts.\"\n  [arm.band]\n  alert_style = \"silent\"\n", "",
             "study.toml:15: arm[1]: a study with arms needs at least two (an experimental and a control arm, say); add another [[arm]] or remove this one"),
        ]
        for c in cases { #expect(error(replacing: c.old, with: c.new) == c.expected) }
    }

    @Test func badAllocationConsentAndEnrolmentNameTheLineAndKey() {
        let cases: [(old: String, new: String, expected: String)] = [
            ("block_sizes = [4, 6]", "block_sizes = [4, 5]",
             "study.toml:31: allocation.block_sizes: 5 is not a multiple of the arms' ratios' sum (2) from 2 to 100; a block holds every arm in ratio"),
            ("ratio = 1", "ratio = 2",
             "study.toml:31: allocation.block_sizes: 4 is not a multiple of the arms' ratios' sum (3) from 3 to 100; a block holds every arm in ratio"),
            ("method = \"block\"", "method = \"blocks\"", "study.toml:30: allocation.method: \"blocks\" is not one of \"block\"; did you mean block?"),
            ("seed = 20260302", "seed = \"secret\"", "study.toml:32: allocation.seed: must be a whole number (a 64-bit integer)"),
            ("seed = 20260302\n", "", "study.toml:29: allocation.seed: missing; add seed = N, a whole number kept from the participants"),
            ("strata = [\"sex\"]", "strata = [\"Sex\"]", "study.toml:33: allocation.strata: \"Sex\" may hold only lowercase letters, digits and '_', at most 40"),
            ("[allocation]\nmethod = \"block\"\nblock_sizes = [4, 6]\nseed = 20260302\nstrata = [\"sex\"]\n", "",
             "study.toml:15: arm: arms need an [allocation]: add [allocation] with method = \"block\", block_sizes = [...] and seed = N"),
            ("on_withdrawal = \"keep\"", "on_withdrawal = \"kep\"",
             "study.toml:38: consent.on_withdrawal: \"kep\" is not \"delete\" or \"keep\" (what becomes of the data given when a participant withdraws); did you mean keep?"),
            ("text = \"I agree to take part.\"", "text = \"I agree.\"\nfile = \"consent.md\"", "study.toml:37: consent.text: give the document once: file or text, not both"),
            ("text = \"I agree to take part.\"\n", "", "study.toml:35: consent: no document; add file = \"consent.md\" (beside the study file) or text = \"...\""),
            ("version = \"1.0\"", "versoin = \"1.0\"", "study.toml:36: consent.versoin: unknown key; did you mean version?"),
            ("closes = 2026-03-01", "closes = 2026-04-01", "study.toml:42: enrolment.closes: 2026-04-01 is after the study's last day (2026-03-15); no one could take part"),
            ("closes = 2026-03-01", "closes = 2026-02-01", "study.toml:42: enrolment.closes: 2026-02-01 is before opens (2026-02-16)"),
            ("code_expiry_days = 10", "code_expiry_days = 0", "study.toml:43: enrolment.code_expiry_days: 0 is outside 1...365"),
        ]
        for c in cases { #expect(error(replacing: c.old, with: c.new) == c.expected) }
        // [allocation] with no arms to allocate to.
        let noArms = serverStudy.replacing(/\[\[arm\]\][^\[]*\[arm\.band\][^\[]*/, with: "")
        #expect(error(replacing: "[allocation]", with: "[allocation]", in: noArms)
                == "study.toml:15: allocation: there are no [[arm]]s to allocate to; add at least two, or remove [allocation]")
    }

    @Test func jsonArmsNameTheirLinesToo() throws {
        let json = """
        {"name": "S", "start": "2026-03-02", "end": "2026-03-15",
         "questionnaire": [{"name": "q", "title": "Q", "due": "daily", "item": [{"id": "a", "type": "text", "text": "A?"}]}],
         "arm": [{"name": "a", "band": {"alert_style": "firm"}},
                 {"name": "b", "band": {"alert_style": "loud"}}],
         "allocation": {"method": "block", "block_sizes": [2], "seed": 1}}
        """
        #expect(throws: StudyFileError(file: "s.json", line: 4, key: "arm[2].band.alert_style", message: "\"loud\" is not allowed; expected firm, gentle or silent")) {
            try StudyFile.parse(text: json, file: "s.json")
        }
    }

    @Test func theConsentFileIsReadBesideTheStudyFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("amble-consent-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = serverStudy.replacing("text = \"I agree to take part.\"", with: "file = \"consent.md\"")
        let study = try StudyFile.parse(text: text, file: folder + "/study.toml")
        #expect(study.consent?.document == .file(path: "consent.md", line: 37))
        #expect(throws: StudyFileError.self) { try StudyFile.consentText(study, studyPath: folder + "/study.toml") }
        do {
            _ = try StudyFile.consentText(study, studyPath: folder + "/study.toml")
        } catch {
            #expect(error.file == folder + "/study.toml" && error.line == 37 && error.key == "consent.file", "\(error)")
            #expect(error.message.contains("consent.md"), "\(error.message)")
        }
        try "# Consent\n\nI agree.\n".write(toFile: folder + "/consent.md", atomically: true, encoding: .utf8)
        #expect(try StudyFile.consentText(study, studyPath: folder + "/study.toml") == "# Consent\n\nI agree.\n")
        #expect(try StudyFile.consentText(StudyFile.parse(text: serverStudy, file: "s.toml"), studyPath: "s.toml") == "I agree to take part.")
    }

    @Test func theDocumentedExampleHasTwoArmsAndItsConsentDocument() throws {
        let path = repositoryPath("docs/study-example.toml")
        let study = try StudyFile.load(path: path)
        #expect(study.arms.map(\.name) == ["mindful", "control"])
        #expect(study.arms[0].bandSettings[.alertStyle] != "silent" && study.arms[0].bandSettings[.reductionPercent] == "20")
        #expect(study.arms[1].bandSettings[.alertStyle] == "silent")
        let consent = try #require(try StudyFile.consentText(study, studyPath: path))
        #expect(consent.contains("withdraw"))
        // Its allocation reaches both arms.
        let allocation = try #require(study.allocation)
        #expect(Set((0 ..< 100).map { allocation.arm(of: study.arms, stratum: "", sequence: $0) }) == [0, 1])
    }
}
