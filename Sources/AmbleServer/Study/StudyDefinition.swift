#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleLinux
import AmbleModel
import AmbleStudyAPI
import TOMLKit

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

    /// Reads a study file. For now only its `name` (the keys for arms, consent, allocation and
    /// enrolment arrive with AmbleCompanion's study file); until then a study has one arm,
    /// `all`, no band settings, and a consent document that says it is missing.
    public static func read(text: String, file: String) throws(StudyDefinitionError) -> StudyDefinition {
        if let problem = TOMLText.problem(in: text) {
            throw StudyDefinitionError(file: file, message: "line \(problem.line): not valid TOML: \(problem.message)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch {
            throw StudyDefinitionError(file: file, message: "not valid TOML: \(printableText("\(error)", maximum: 200))")
        }
        guard let name = table["name"]?.string, (1 ... 80).contains(name.count) else {
            throw StudyDefinitionError(file: file, message: "name: missing or not 1-80 characters; give the study a name (docs/study.md)")
        }
        return StudyDefinition(name: name, fileText: text, consentVersion: "none",
                               consentText: "This study file has no consent document yet.",
                               arms: [Arm(name: "all")], allocationSeed: 1, allocationBlock: 1, deleteOnWithdrawal: false)
    }
}

public struct StudyDefinitionError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var message: String
    public var description: String { "\(file): \(message)" }
}

/// Which arm the participant at `index` (0-based, in order of joining within a stratum) is given.
/// The one place the allocation is computed: swapped for AmbleCompanion's block randomisation
/// when it lands (until then: the arms in turn, by ratio, which balances every block but is
/// guessable; no study should run on it).
enum Allocation {
    static func arm(at index: Int, arms: [StudyDefinition.Arm], seed: Int64, block: Int) -> StudyDefinition.Arm {
        let cycle = arms.flatMap { arm in Array(repeating: arm, count: arm.ratio) }
        return cycle[index % cycle.count]
    }
}

extension StudyDefinition {
    /// Reads the study file at `path` (at most 512 KiB of UTF-8).
    public static func load(path: String) throws -> StudyDefinition {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(atPath: path, limitBytes: 512 * 1024)
        } catch {
            throw StudyDefinitionError(file: path, message: error.sentence(given: path))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StudyDefinitionError(file: path, message: "holds bytes that are not UTF-8 text; save it as UTF-8")
        }
        return try read(text: text, file: path)
    }
}
