#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleCompanion
import AmbleLinux
import AmbleModel
import AmbleStudyAPI
import AmbleTOML

/// What the server keeps of a study file (docs/study.md, "A study on the server"): its text,
/// the text participants get (without the arms and the allocation, which would unblind them),
/// and the keys the server acts on: the consent document, the arms with their band settings,
/// the enrolment window and what withdrawal does to the data given. The allocation itself is
/// read from the file at each join (`Allocation`).
public struct StudyDefinition: Sendable, Equatable {
    public struct Arm: Sendable, Equatable {
        public var name: String
        public var ratio: Int
        /// Band settings the laptop applies at sync (the band's keys and canonical values).
        public var bandSettings: [String: String]
        public init(name: String, ratio: Int = 1, bandSettings: [String: String] = [:]) {
            self.name = name
            self.ratio = ratio
            self.bandSettings = bandSettings
        }
    }

    /// The arm of a study file that declares none: everyone in one group.
    public static let singleArm = "all"

    public var name: String
    public var fileText: String
    public var participantFileText: String
    public var consentVersion: String
    public var consentText: String
    public var arms: [Arm]
    /// Enrolment window, seconds since 1970 (the server's local days); nil: open on that side.
    public var enrolmentOpens: Double?
    public var enrolmentCloses: Double?
    public var codeExpiryDays: Int
    /// Whether a withdrawal deletes the data already given, when the participant does not say.
    public var deleteOnWithdrawal: Bool

    public var consent: ConsentDocument {
        ConsentDocument(version: consentVersion, sha256: Digest.sha256Hex(Array(consentText.utf8)), text: consentText)
    }

    /// Reads a study file (TOML) with the laptop's own reader (`StudyFile`, every key checked);
    /// `file` is its path, beside which a consent document named in it is read. A study on the
    /// server needs `[consent]`; without `[[arm]]` everyone is in one arm, `all`.
    public static func read(text: String, file: String, time: LocalTime = .serverLocal) throws -> StudyDefinition {
        let study = try StudyFile.parse(text: text, file: file)
        guard let consent = study.consent, let consentText = try StudyFile.consentText(study, studyPath: file) else {
            throw StoreError.invalid("\(file): consent: missing; a study on the server needs a consent document: add [consent] with version and file or text (docs/study.md)")
        }
        let arms = study.arms.isEmpty
            ? [Arm(name: singleArm)]
            : study.arms.map { arm in
                Arm(name: arm.name, ratio: arm.ratio,
                    bandSettings: Dictionary(uniqueKeysWithValues: arm.bandSettings.map { ($0.key.rawValue, $0.value) }))
            }
        return StudyDefinition(
            name: study.name, fileText: text, participantFileText: try participantFile(text, file: file),
            consentVersion: consent.version, consentText: consentText, arms: arms,
            enrolmentOpens: study.enrolment.map { time.startOfDay($0.opens) },
            enrolmentCloses: study.enrolment.map { time.startOfDay($0.closes.adding(days: 1)) },
            codeExpiryDays: study.enrolment?.codeExpiryDays ?? 14, deleteOnWithdrawal: consent.onWithdrawal == .delete)
    }

    /// The study file as participants get it: without `[[arm]]` and `[allocation]` (the arms'
    /// names and the seed would tell them, or anyone they show it to, who gets what).
    static func participantFile(_ text: String, file: String) throws -> String {
        var table: TOMLTable
        do {
            table = try TOMLReader().read(text)
        } catch {
            throw StoreError.invalid("\(file): the server takes study files in TOML; convert this one")
        }
        table.remove("arm")
        table.remove("allocation")
        return table.tomlText
    }

    /// Reads the study file at `path` (UTF-8, at most `StudyFile.maximumBytes`).
    public static func load(path: String) throws -> StudyDefinition {
        try read(text: StudyFile.read(path: path), file: path)
    }
}

extension LocalTime {
    /// The server's own time zone (`TZ`, else /etc/localtime), for the enrolment window's days.
    public static let serverLocal = LocalTime { localUTCOffsetSeconds(atUnixSeconds: $0) }
}

/// Allocation at join time, from the study file's `[allocation]` (AmbleCompanion's
/// `BlockRandomisation`: permuted blocks from the seed, per stratum), given how many were
/// allocated in the stratum before. The file is read again here so that the seed lives in one
/// place, the study's own text, which participants never get.
enum Allocation {
    /// The stratum's key for the values a participant gave at join ("" without strata).
    static func stratum(studyFile: String, values: [String: String]) throws -> String {
        try study(studyFile).allocation?.stratum(values) ?? ""
    }

    /// The arm's name for the participant at `sequence` (0-based) of `stratum`.
    static func arm(studyFile: String, stratum: String, sequence: Int) throws -> String {
        let study = try study(studyFile)
        guard let allocation = study.allocation, !study.arms.isEmpty else { return StudyDefinition.singleArm }
        return study.arms[allocation.arm(of: study.arms, stratum: stratum, sequence: sequence)].name
    }

    private static func study(_ text: String) throws -> Study {
        try StudyFile.parse(text: text, file: "the stored study file")
    }
}
