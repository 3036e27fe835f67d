#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleCompanion
import AmbleStudyAPI

/// What the server keeps of a study file: its text (served to participants as it is) and the
/// keys the server acts on: the consent document, the arms with their band settings, the
/// allocation, the enrolment window and what withdrawal does to the data given.
public struct StudyDefinition: Sendable, Equatable {
    public struct Arm: Sendable, Equatable {
        public var name: String
        /// Relative share of participants (1:1 by default).
        public var ratio: Int
        /// Band settings the laptop applies at sync (key to value, as `amble band settings` takes).
        public var bandSettings: [String: String]
        public init(name: String, ratio: Int = 1, bandSettings: [String: String] = [:]) {
            self.name = name
            self.ratio = ratio
            self.bandSettings = bandSettings
        }
    }

    public var name: String
    public var fileText: String
    public var consentVersion: String
    public var consentText: String
    public var arms: [Arm]
    /// Block randomisation: the seed and the block size (a multiple of the arms' ratios' sum).
    public var allocationSeed: Int64
    public var allocationBlock: Int
    /// Enrolment window, seconds since 1970; nil: open on that side.
    public var enrolmentOpens: Double?
    public var enrolmentCloses: Double?
    /// Whether a withdrawal deletes the data already given, when the participant does not say.
    public var deleteOnWithdrawal: Bool

    public init(name: String, fileText: String, consentVersion: String, consentText: String, arms: [Arm],
                allocationSeed: Int64, allocationBlock: Int, enrolmentOpens: Double? = nil, enrolmentCloses: Double? = nil,
                deleteOnWithdrawal: Bool) {
        self.name = name
        self.fileText = fileText
        self.consentVersion = consentVersion
        self.consentText = consentText
        self.arms = arms
        self.allocationSeed = allocationSeed
        self.allocationBlock = allocationBlock
        self.enrolmentOpens = enrolmentOpens
        self.enrolmentCloses = enrolmentCloses
        self.deleteOnWithdrawal = deleteOnWithdrawal
    }

    public var consent: ConsentDocument {
        ConsentDocument(version: consentVersion, sha256: Digest.sha256Hex(Array(consentText.utf8)), text: consentText)
    }

    /// Reads a study file with the laptop's own reader (`StudyFile`, every key checked). The
    /// keys for arms, consent, allocation and enrolment are not in it yet; until they are, a
    /// study has one arm, `all`, no band settings, and a consent document that says it is missing.
    public static func read(text: String, file: String) throws(StudyFileError) -> StudyDefinition {
        let study = try StudyFile.parse(text: text, file: file)
        return StudyDefinition(name: study.name, fileText: text, consentVersion: "none",
                               consentText: "This study file has no consent document yet.",
                               arms: [Arm(name: "all")], allocationSeed: 1, allocationBlock: 1, deleteOnWithdrawal: false)
    }
}

/// Which arm the participant at `index` (0-based, in order of joining within a stratum) is given.
/// The one place the allocation is computed: to be AmbleCompanion's block randomisation when
/// the study file's allocation keys land (until then: the arms in turn, by ratio, which
/// balances every block but is guessable; no study should run on it).
enum Allocation {
    static func arm(at index: Int, arms: [StudyDefinition.Arm], seed: Int64, block: Int) -> StudyDefinition.Arm {
        let cycle = arms.flatMap { arm in Array(repeating: arm, count: arm.ratio) }
        return cycle[index % cycle.count]
    }
}

extension StudyDefinition {
    /// Reads the study file at `path` (UTF-8, at most `StudyFile.maximumBytes`).
    public static func load(path: String) throws(StudyFileError) -> StudyDefinition {
        try read(text: StudyFile.read(path: path), file: path)
    }
}
