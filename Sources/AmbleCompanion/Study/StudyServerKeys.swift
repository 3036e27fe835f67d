import AmbleLinux
import AmbleModel
import AmbleTOML

/// One arm of a study run by the server (`[[arm]]`): its name (the researcher sees it, the
/// participant does not), its weight in the allocation and the band settings its participants'
/// bands get at sync (`[arm.band]`, the band's own keys and values).
public struct StudyArm: Equatable, Sendable {
    public var name: String
    /// Whole weight in the allocation, 1–10: arms of ratios 2 and 1 get two participants to one.
    public var ratio: Int
    public var description: String?
    /// Validated by the band's own rules (`BandSetting.validate`), in their canonical form.
    public var bandSettings: [BandSetting: String]

    /// The settings an arm may set: the practice and its reminder. The wearer's consents, body,
    /// band name and retention stay the wearer's; the goals' line is the laptop's.
    public static let settableSettings: [BandSetting] = [
        .reductionPercent, .reductionChoices, .calibrationSeconds, .alertStyle, .alertStrength, .metronome,
        .reminders, .reminderTime, .reminderDays, .reminderText,
    ]
}

/// How participants are allocated to the arms (`[allocation]`): permuted blocks whose size is
/// drawn from `blockSizes`, from `seed`, separately in each stratum (`BlockRandomisation`).
public struct StudyAllocation: Equatable, Sendable {
    public enum Method: String, CaseIterable, Sendable { case block }

    public var method: Method
    /// Each a multiple of the arms' ratios' sum.
    public var blockSizes: [Int]
    /// The generator's seed, as written (a TOML integer's 64 bits).
    public var seed: UInt64
    /// Names of the values given at join that split the allocation (`sex`, `age_group`); empty:
    /// one stratum.
    public var strata: [String]

    /// The stratum's key for the values given at join: `sex=f|age_group=60+`, in the file's
    /// order of `strata` (a missing value is empty); "" without strata.
    public func stratum(_ values: [String: String]) -> String {
        strata.map { "\($0)=\(values[$0] ?? "")" }.joined(separator: "|")
    }

    /// The arm (an index into `arms`) of the participant at `sequence` (0-based) of `stratum`.
    public func arm(of arms: [StudyArm], stratum: String, sequence: Int) -> Int {
        BlockRandomisation.arm(ratios: arms.map(\.ratio), blockSizes: blockSizes, seed: seed, stratum: stratum, sequence: sequence)
    }
}

/// The consent document a participant accepts when joining a server-run study (`[consent]`).
public struct StudyConsent: Equatable, Sendable {
    public enum Document: Equatable, Sendable {
        /// Written in the study file.
        case text(String)
        /// A file beside the study file (`StudyFile.consentText` reads it); `line`: where the
        /// study file names it, for errors.
        case file(path: String, line: Int)
    }

    /// What happens to the data a participant already gave when they withdraw.
    public enum Withdrawal: String, CaseIterable, Sendable {
        case delete
        case keep
    }

    /// The document's version, recorded with each acceptance.
    public var version: String
    public var document: Document
    public var onWithdrawal: Withdrawal
}

/// When participants may join (`[enrolment]`), both days included, local to the server, and
/// how long a join code lasts.
public struct StudyEnrolment: Equatable, Sendable {
    public var opens: CivilDay
    public var closes: CivilDay
    public var codeExpiryDays: Int
}

extension StudyFile {
    /// The most a consent document may hold, bytes: 64 KiB, some twenty pages of text.
    public static let consentMaximumBytes = 64 * 1024

    /// `[[arm]]`s, at least two when any is declared.
    static func readArms(_ reader: StudyTableReader) throws(StudyFileError) -> [StudyArm] {
        var arms: [StudyArm] = []
        let readers = try reader.arrayOfTables("arm")
        for a in readers {
            try a.rejectUnknownKeys(known: ["name", "ratio", "description", "band"])
            let name = try a.string("name", length: 1...40)
            guard name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }) else {
                throw a.error("name", "\"\(printableText(name))\" may hold only letters, digits, '-' and '_' (it names the arm in the dashboard and the export)")
            }
            if arms.contains(where: { $0.name == name }) {
                throw a.error("name", "\"\(name)\" is the name of an earlier arm; names must differ")
            }
            let ratio = try a.int("ratio", default: 1, range: 1...10)
            let description = try a.optionalString("description", length: 1...2000)
            arms.append(StudyArm(name: name, ratio: ratio, description: description, bandSettings: try readArmBand(a)))
        }
        if readers.count == 1 {
            throw readers[0].error(nil, "a study with arms needs at least two (an experimental and a control arm, say); add another [[arm]] or remove this one")
        }
        return arms
    }

    /// `[arm.band]`: band settings by the band's own keys, each checked as the band checks it.
    private static func readArmBand(_ arm: StudyTableReader) throws(StudyFileError) -> [BandSetting: String] {
        guard let band = try arm.table("band") else { return [:] }
        let settable = StudyArm.settableSettings.map(\.rawValue)
        var settings: [BandSetting: String] = [:]
        for key in band.keysInFileOrder {
            guard let setting = BandSetting(rawValue: key) else {
                let hint = suggestion(key, among: settable)
                throw band.error(key, "not a band setting" + (hint.isEmpty ? "; an arm may set \(settable.joined(separator: ", "))" : hint))
            }
            guard StudyArm.settableSettings.contains(setting) else {
                throw band.error(key, "is the wearer's own setting, not the study's; an arm may set \(settable.joined(separator: ", "))")
            }
            let raw = band.table[key]
            guard let text = raw?.string ?? raw?.int.map(String.init) ?? raw?.bool.map({ $0 ? "on" : "off" }) else {
                throw band.error(key, "must be a value as `amble band settings set` takes it: \(setting.allowed)")
            }
            do {
                settings[setting] = try setting.validate(text)
            } catch {
                throw band.error(key, "\"\(printableText(text, maximum: 60))\" is not allowed; expected \(setting.allowed)")
            }
        }
        return settings
    }

    /// `[allocation]`.
    static func readAllocation(_ reader: StudyTableReader, arms: [StudyArm]) throws(StudyFileError) -> StudyAllocation? {
        guard let a = try reader.table("allocation") else {
            if !arms.isEmpty {
                throw reader.error("arm", "arms need an [allocation]: add [allocation] with method = \"block\", block_sizes = [...] and seed = N")
            }
            return nil
        }
        guard !arms.isEmpty else {
            throw a.error(nil, "there are no [[arm]]s to allocate to; add at least two, or remove [allocation]")
        }
        try a.rejectUnknownKeys(known: ["method", "block_sizes", "seed", "strata"])
        let methodText = try a.string("method", length: 1...20)
        guard let method = StudyAllocation.Method(rawValue: methodText) else {
            let methods = StudyAllocation.Method.allCases.map(\.rawValue)
            throw a.error("method", "\"\(printableText(methodText))\" is not one of " + methods.map { "\"\($0)\"" }.joined(separator: ", ") + suggestion(methodText, among: methods))
        }
        let sum = arms.reduce(0) { $0 + $1.ratio }
        let sizes = try a.wholeNumbers("block_sizes", example: "[\(sum * 2), \(sum * 3)]")
        guard (1...8).contains(sizes.count) else { throw a.error("block_sizes", "give 1 to 8 block sizes, such as [\(sum * 2), \(sum * 3)]") }
        for size in sizes where size <= 0 || size % sum != 0 || size > 100 {
            throw a.error("block_sizes", "\(size) is not a multiple of the arms' ratios' sum (\(sum)) from \(sum) to 100; a block holds every arm in ratio")
        }
        guard Set(sizes).count == sizes.count else { throw a.error("block_sizes", "a size is listed twice") }
        guard let seedValue = a.table["seed"] else { throw a.error("seed", "missing; add seed = N, a whole number kept from the participants") }
        guard let seed = seedValue.int else { throw a.error("seed", "must be a whole number (a 64-bit integer)") }
        let strata = try a.stringArray("strata", required: false) ?? []
        for name in strata where !name.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" }) || name.count > 40 {
            throw a.error("strata", "\"\(printableText(name, maximum: 60))\" may hold only lowercase letters, digits and '_', at most 40")
        }
        guard Set(strata).count == strata.count else { throw a.error("strata", "a stratum is listed twice") }
        guard strata.count <= 4 else { throw a.error("strata", "\(strata.count) strata; at most 4 (each splits the participants further)") }
        return StudyAllocation(method: method, blockSizes: sizes, seed: UInt64(bitPattern: Int64(seed)), strata: strata)
    }

    /// `[consent]`.
    static func readConsent(_ reader: StudyTableReader) throws(StudyFileError) -> StudyConsent? {
        guard let c = try reader.table("consent") else { return nil }
        try c.rejectUnknownKeys(known: ["version", "file", "text", "on_withdrawal"])
        let version = try c.string("version", length: 1...40)
        let file = try c.optionalString("file", length: 1...255)
        let text = try c.optionalString("text", length: 1...20_000)
        let document: StudyConsent.Document
        switch (file, text) {
        case let (file?, nil):
            guard !file.hasPrefix("/") else { throw c.error("file", "\"\(printableText(file, maximum: 60))\" is an absolute path; give it relative to the study file") }
            document = .file(path: file, line: c.lines.lineOrFirstUnder(c.keyName("file")) ?? 1)
        case let (nil, text?): document = .text(text)
        case (nil, nil): throw c.error(nil, "no document; add file = \"consent.md\" (beside the study file) or text = \"...\"")
        default: throw c.error("text", "give the document once: file or text, not both")
        }
        let withdrawalText = try c.string("on_withdrawal", length: 1...20)
        guard let withdrawal = StudyConsent.Withdrawal(rawValue: withdrawalText) else {
            let choices = StudyConsent.Withdrawal.allCases.map(\.rawValue)
            throw c.error("on_withdrawal", "\"\(printableText(withdrawalText))\" is not \"delete\" or \"keep\" (what becomes of the data given when a participant withdraws)"
                          + suggestion(withdrawalText, among: choices))
        }
        return StudyConsent(version: version, document: document, onWithdrawal: withdrawal)
    }

    /// `[enrolment]`: within the study's days.
    static func readEnrolment(_ reader: StudyTableReader, lastDay: CivilDay) throws(StudyFileError) -> StudyEnrolment? {
        guard let e = try reader.table("enrolment") else { return nil }
        try e.rejectUnknownKeys(known: ["opens", "closes", "code_expiry_days"])
        let opens = try e.day("opens"), closes = try e.day("closes")
        guard closes >= opens else { throw e.error("closes", "\(closes.iso) is before opens (\(opens.iso))") }
        guard closes <= lastDay else { throw e.error("closes", "\(closes.iso) is after the study's last day (\(lastDay.iso)); no one could take part") }
        let expiry = try e.int("code_expiry_days", default: 14, range: 1...365)
        return StudyEnrolment(opens: opens, closes: closes, codeExpiryDays: expiry)
    }

    /// The consent document's text: written in the file, or read from the file named beside the
    /// study file at `studyPath` (UTF-8, at most `consentMaximumBytes`); nil without `[consent]`.
    public static func consentText(_ study: Study, studyPath: String) throws(StudyFileError) -> String? {
        guard let consent = study.consent else { return nil }
        switch consent.document {
        case let .text(text):
            return text
        case let .file(path, line):
            let folderEnd = studyPath.lastIndex(of: "/")
            let full = folderEnd.map { String(studyPath[...$0]) + path } ?? path
            let fail = { (message: String) in StudyFileError(file: studyPath, line: line, key: "consent.file", message: message) }
            let bytes: [UInt8]
            do {
                bytes = try readWholeFile(atPath: full, limitBytes: consentMaximumBytes)
            } catch {
                throw fail("the consent document \(full) " + error.sentence(given: full, whereTheyAre: "the path is relative to the study file", usualSize: "a consent document is a few kB"))
            }
            guard let text = String(validating: bytes, as: UTF8.self), !text.trimmingSpaces.isEmpty else {
                throw fail("the consent document \(full) is empty or not UTF-8 text; save it as UTF-8")
            }
            return text
        }
    }
}

extension StudyTableReader {
    /// The sub-table `key` (`[allocation]`, `[arm.band]`), or nil when absent.
    func table(_ key: String) throws(StudyFileError) -> StudyTableReader? {
        guard let raw = table[key] else { return nil }
        guard let sub = raw.table else { throw error(key, "must be a table: write [\(keyName(key).replacing(/\[\d+\]/, with: ""))] and its keys below it") }
        return StudyTableReader(file: file, lines: lines, path: keyName(key), table: sub)
    }

    /// The table's keys in the order the file writes them.
    var keysInFileOrder: [String] {
        table.keys.sorted { (lines.line(keyName($0)) ?? 0, $0) < (lines.line(keyName($1)) ?? 0, $1) }
    }
}
