import AmbleLinux
import AmbleModel
import AmbleTOML
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A study file that cannot be used: the file, the line and key, and what to do, as board
/// files report theirs (`study.toml:14: questionnaire[2].item[1].type: "scale" is not one of ...`).
public struct StudyFileError: Error, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based line of the key (or of its table) when known.
    public var line: Int?
    /// The key as written in the file: `start`, `questionnaire[2].item[1].labels`.
    public var key: String?
    public var message: String

    public var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if let key { return "\(place): \(key): \(message)" }
        return "\(place): \(message)"
    }
}

/// Reads and checks study files (TOML, or the same in JSON; docs/study.md). Everything is checked before a study
/// is joined: unknown keys (with "did you mean"), item types, Likert scales and labels,
/// choices, due kinds, dates, reminders.
public enum StudyFile {
    /// The most a study file may hold, bytes: 512 KiB, five times a large study (a score of
    /// questionnaires of thirty items with long texts is about 100 kB; docs/study-example.toml
    /// is 3.5 kB). Parsing costs up to about 130 times the text in memory (a JSON list of
    /// empty objects; docs/robustness.md), so a file at the limit costs tens of megabytes on the
    /// laptop, and a larger one is refused unread.
    static let maximumBytes = 512 * 1024
    /// The most values a study file in TOML may hold: 20,000, several times a large study
    /// (docs/study-example.toml holds about 150), so that reading one costs at most some 6 MB.
    static let maximumValues = 20_000

    static func load(path: String) throws(StudyFileError) -> Study {
        try parse(text: read(path: path), file: path)
    }

    /// The text of the study file at `path`: UTF-8, at most `maximumBytes`.
    public static func read(path: String) throws(StudyFileError) -> String {
        let data: [UInt8]
        do {
            data = try readWholeFile(atPath: path, limitBytes: maximumBytes)
        } catch {
            let message = error.sentence(given: path, whereTheyAre: "docs/study-example.toml is an example", usualSize: "a large study is about 100 kB")
            throw StudyFileError(file: path, line: nil, key: nil, message: message)
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            let line = TOMLReader.invalidUTF8Position(in: data)?.line
            throw StudyFileError(file: path, line: line, key: nil, message: "holds bytes that are not UTF-8 text; save the file as UTF-8")
        }
        return text
    }

    public static func parse(text: String, file: String) throws(StudyFileError) -> Study {
        // JSON: a file named .json, or text that starts as no TOML can (an object, or a list of
        // objects, which is then refused as JSON, not as bad TOML).
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        let start = text.drop(while: blank)
        let isJSON = file.lowercased().hasSuffix(".json") || start.first == "{"
            || (start.first == "[" && ["{", "]"].contains(start.dropFirst().drop(while: blank).first))
        let root: TOMLTable
        let lines: StudyKeyLines
        if isJSON {
            var json = StudyJSONReader(text: text, file: file)
            root = try json.document()
            lines = StudyKeyLines(lines: json.lines)
        } else {
            do {
                root = try TOMLReader(maximumValues: maximumValues).read(text)
            } catch {
                throw StudyFileError(file: file, line: error.line, key: nil, message: "not valid TOML: \(printableText(error.description, maximum: 200))")
            }
            lines = StudyKeyLines(text: text)
        }
        let reader = StudyTableReader(file: file, lines: lines, path: "", table: root)
        try reader.rejectUnknownKeys(known: ["name", "description", "start", "end", "course", "questionnaire", "arm", "allocation", "consent", "enrolment"])
        let name = try reader.string("name", length: 1...80)
        let description = try reader.optionalString("description", length: 1...2000)
        let first = try reader.day("start")
        let last = try reader.day("end")
        guard last >= first else {
            throw reader.error("end", "\(last.iso) is before start (\(first.iso)); the end is the study's last day")
        }
        guard last.daysSinceEpoch - first.daysSinceEpoch < 366 else {
            throw reader.error("end", "the study lasts more than a year (\(first.iso) to \(last.iso)); split it")
        }
        var questionnaires: [Questionnaire] = []
        let questionnaireReaders = try reader.arrayOfTables("questionnaire")
        guard !questionnaireReaders.isEmpty else {
            throw reader.error(nil, "no questionnaire; add at least one [[questionnaire]] with its [[questionnaire.item]]s")
        }
        for q in questionnaireReaders {
            let questionnaire = try readQuestionnaire(q)
            if questionnaires.contains(where: { $0.name == questionnaire.name }) {
                throw q.error("name", "\"\(questionnaire.name)\" is the name of an earlier questionnaire; names must differ")
            }
            questionnaires.append(questionnaire)
        }
        var course: [CourseStep] = []
        for step in try reader.arrayOfTables("course") {
            try step.rejectUnknownKeys(known: ["title", "when", "text", "questionnaire"])
            let named = try step.optionalString("questionnaire", length: 1...40)
            if let named, !questionnaires.contains(where: { $0.name == named }) {
                throw step.error("questionnaire", "no questionnaire \"\(named)\"" + suggestion(named, among: questionnaires.map(\.name)))
            }
            course.append(CourseStep(title: try step.string("title", length: 1...80), when: try step.optionalString("when", length: 1...80),
                                     text: try step.optionalString("text", length: 1...2000), questionnaire: named))
        }
        let arms = try readArms(reader)
        return Study(name: name, description: description, firstDay: first, lastDay: last, course: course, questionnaires: questionnaires,
                     arms: arms, allocation: try readAllocation(reader, arms: arms), consent: try readConsent(reader),
                     enrolment: try readEnrolment(reader, lastDay: last))
    }

    private static func readQuestionnaire(_ q: StudyTableReader) throws(StudyFileError) -> Questionnaire {
        try q.rejectUnknownKeys(known: ["name", "title", "due", "remind_at", "intro", "item"])
        let name = try q.string("name", length: 1...40)
        guard name.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }) else {
            throw q.error("name", "\"\(name)\" may hold only lowercase letters, digits and '-' (it is typed in `amble survey NAME`)")
        }
        let title = try q.string("title", length: 1...80)
        let dueText = try q.string("due", length: 1...40)
        guard let due = DueKind(rawValue: dueText) else {
            throw q.error("due", "\"\(dueText)\" is not one of " + DueKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                          + suggestion(dueText, among: DueKind.allCases.map(\.rawValue)))
        }
        var remind: Int?
        if let text = try q.optionalString("remind_at", length: 1...10) {
            guard let minutes = minutesOfDay(text) else { throw q.error("remind_at", "\"\(text)\" is not a time of day; write HH:MM, such as \"19:30\"") }
            remind = minutes
        }
        let intro = try q.optionalString("intro", length: 1...2000)
        var items: [StudyItem] = []
        let itemReaders = try q.arrayOfTables("item")
        guard !itemReaders.isEmpty else {
            throw q.error(nil, "no items; add [[questionnaire.item]] tables after this [[questionnaire]]")
        }
        for itemReader in itemReaders {
            let item = try readItem(itemReader)
            if items.contains(where: { $0.id == item.id }) {
                throw itemReader.error("id", "\"\(item.id)\" is the id of an earlier item of \(name); ids must differ within a questionnaire")
            }
            items.append(item)
        }
        return Questionnaire(name: name, title: title, due: due, remindAtMinutes: remind, intro: intro, items: items)
    }

    static let itemTypes = ["likert", "single", "multiple", "number", "text"]
    /// Keys each item type takes besides `id`, `type`, `text` and `required`.
    static let typeKeys: [String: [String]] = [
        "likert": ["scale", "labels"], "single": ["choices"], "multiple": ["choices"],
        "number": ["min", "max", "unit"], "text": ["max_length"],
    ]

    private static func readItem(_ r: StudyTableReader) throws(StudyFileError) -> StudyItem {
        let allKeys = ["id", "type", "text", "required"] + Array(Set(typeKeys.values.joined())).sorted()
        try r.rejectUnknownKeys(known: allKeys)
        let id = try r.string("id", length: 1...40)
        guard id.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }) else {
            throw r.error("id", "\"\(id)\" may hold only letters, digits, '-' and '_' (it names a column of the export)")
        }
        let type = try r.string("type", length: 1...20)
        guard let ownKeys = typeKeys[type] else {
            throw r.error("type", "\"\(type)\" is not one of " + itemTypes.map { "\"\($0)\"" }.joined(separator: ", ") + suggestion(type, among: itemTypes))
        }
        for key in r.table.keys where !["id", "type", "text", "required"].contains(key) && !ownKeys.contains(key) {
            let owners = typeKeys.filter { $0.value.contains(key) }.keys.sorted()
            throw r.error(key, "is for \(owners.joined(separator: " and ")) items, not \(type); remove it")
        }
        let text = try r.string("text", length: 1...500)
        let required = try r.bool("required", default: true)
        let kind: StudyItem.Kind
        switch type {
        case "likert":
            let scale = try r.intArray("scale")
            guard scale.count == 2 else { throw r.error("scale", "give the lowest and highest point, such as scale = [1, 5]") }
            let (low, high) = (scale[0], scale[1])
            guard low < high else { throw r.error("scale", "the lowest point (\(low)) must be below the highest (\(high))") }
            guard (-10...10).contains(low), (-10...10).contains(high), high - low <= 10 else {
                throw r.error("scale", "[\(low), \(high)]: points must lie within -10...10, at most 11 of them")
            }
            let labels = try r.stringArray("labels", required: false) ?? []
            let points = high - low + 1
            guard labels.isEmpty || labels.count == 2 || labels.count == points else {
                throw r.error("labels", "\(labels.count) labels for \(points) points (\(low) to \(high)); give \(points), one per point, or 2 for the ends")
            }
            kind = .likert(low: low, high: high, labels: labels)
        case "single", "multiple":
            guard let choices = try r.stringArray("choices", required: true) else { fatalError("required") }
            guard choices.count >= (type == "single" ? 2 : 1) else {
                throw r.error("choices", type == "single" ? "a single-choice item needs at least 2 choices" : "needs at least one choice")
            }
            if let twice = choices.enumerated().first(where: { i, c in choices[..<i].contains { $0.lowercased() == c.lowercased() } }) {
                throw r.error("choices", "\"\(printableText(twice.element))\" is listed twice")
            }
            if type == "multiple", let bar = choices.first(where: { $0.contains("|") }) {
                throw r.error("choices", "\"\(printableText(bar))\" contains '|', which separates the choices of a multiple answer")
            }
            kind = type == "single" ? .single(choices: choices) : .multiple(choices: choices)
        case "number":
            let min = try r.number("min"), max = try r.number("max")
            guard min < max else { throw r.error("max", "\(formatPlain(max)) is not above min (\(formatPlain(min)))") }
            kind = .number(min: min, max: max, unit: try r.optionalString("unit", length: 1...20))
        default:
            kind = .text(maxLength: try r.int("max_length", default: 500, range: 1...5000))
        }
        return StudyItem(id: id, text: text, required: required, kind: kind)
    }

    /// `19:30` as minutes after midnight.
    static func minutesOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let h = Int(parts[0]), let m = Int(parts[1]),
              (0...23).contains(h), (0...59).contains(m) else { return nil }
        return h * 60 + m
    }
}

/// "; did you mean X?" when a known word is close.
public func suggestion(_ word: String, among known: [String]) -> String {
    // No known word is longer than 40 characters, and the distance costs the product of lengths.
    guard word.utf8.count <= 40, let nearest = known.min(by: { editDistance($0, word) < editDistance($1, word) }),
          editDistance(nearest, word) <= 3 else { return "" }
    return "; did you mean \(nearest)?"
}

/// Levenshtein distance, counting a swap of two neighbouring letters as one edit.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}

/// The line of every key and table of a study file, under names as errors write them:
/// `name`, `questionnaire[2]`, `questionnaire[2].item[1].type`. It reads the `[table]`,
/// `[[array.of.tables]]` and `key = value` lines a study file is made of.
struct StudyKeyLines {
    private(set) var lines: [String: Int] = [:]

    init(text: String) {
        var prefix = ""
        /// The last element path written for each array of tables (`questionnaire` → `questionnaire[2]`).
        var current: [String: String] = [:]
        var counts: [String: Int] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Substring(raw).trimmingCharacters
            if line.hasPrefix("[[") {
                let name = line.dropFirst(2).prefix { $0 != "]" }.trimmingCharacters
                let parts = name.split(separator: ".").map(String.init)
                guard let last = parts.last else { continue }   // `[[]]`: the parser says what is wrong
                // The parent is the element last written for the name's first parts.
                let parent = parts.dropLast().isEmpty ? "" : (current[parts.dropLast().joined(separator: ".")] ?? parts.dropLast().joined(separator: "."))
                let base = parent.isEmpty ? last : parent + "." + last
                let n = counts[base, default: 0] + 1
                counts[base] = n
                prefix = "\(base)[\(n)]"
                current[name] = prefix
                lines[prefix] = number + 1
            } else if line.hasPrefix("[") {
                // `[arm.band]` belongs to the element last written of `[[arm]]`: `arm[2].band`.
                let name = line.dropFirst().prefix { $0 != "]" }.trimmingCharacters
                let parts = name.split(separator: ".").map(String.init)
                let parent = parts.count > 1 ? current[parts.dropLast().joined(separator: ".")] : nil
                prefix = parent.map { $0 + "." + parts[parts.count - 1] } ?? name
                lines[prefix] = number + 1
            } else if !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") {
                let key = line[..<equals].trimmingCharacters.replacingQuotes
                let full = prefix.isEmpty ? key : prefix + "." + key
                if lines[full] == nil { lines[full] = number + 1 }
            }
        }
    }

    /// Lines found by another reader (`StudyJSONReader`).
    init(lines: [String: Int]) { self.lines = lines }

    func line(_ key: String) -> Int? { lines[key] }

    /// The line of `key`, or for a table written only through dotted keys (`extra.a = 1`) or
    /// elements, the first line under it (for an error: it looks at every key).
    func lineOrFirstUnder(_ key: String) -> Int? {
        lines[key] ?? lines.filter { $0.key.hasPrefix(key + ".") || $0.key.hasPrefix(key + "[") }.map(\.value).min()
    }
}

extension String {
    fileprivate var replacingQuotes: String {
        if count >= 2, (hasPrefix("\"") && hasSuffix("\"")) || (hasPrefix("'") && hasSuffix("'")) { return String(dropFirst().dropLast()) }
        return self
    }
}

/// One table of a study file with typed reads whose errors name the file, line and key.
struct StudyTableReader {
    let file: String
    let lines: StudyKeyLines
    /// The table's name as errors write it ("" at the top, `questionnaire[2]`).
    let path: String
    let table: TOMLTable

    func keyName(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func error(_ key: String?, _ message: String) -> StudyFileError {
        let name = key.map(keyName) ?? (path.isEmpty ? nil : path)
        // Every error has a line (a key missing from the top level: the top of the file), and
        // a key is quoted in at most 60 characters (a file may hold a key of a megabyte).
        return StudyFileError(file: file, line: name.flatMap { lines.lineOrFirstUnder($0) } ?? (path.isEmpty ? nil : lines.line(path)) ?? 1,
                              key: name.map { printableText($0) }, message: message)
    }

    func rejectUnknownKeys(known: [String]) throws(StudyFileError) {
        for key in keysInFileOrder where !known.contains(key) {
            let hint = suggestion(key, among: known)
            throw error(key, "unknown key" + (hint.isEmpty ? "; known keys here: \(known.joined(separator: ", "))" : hint))
        }
    }

    func string(_ key: String, length: ClosedRange<Int>) throws(StudyFileError) -> String {
        guard let value = try optionalString(key, length: length) else { throw error(key, "missing; add \(key) = \"...\"") }
        return value
    }

    func optionalString(_ key: String, length: ClosedRange<Int>) throws(StudyFileError) -> String? {
        guard let raw = table[key] else { return nil }
        guard let text = raw.string else { throw error(key, "must be a string in quotes") }
        let trimmed = text.trimmingSpaces
        guard length.contains(trimmed.count) else {
            throw error(key, trimmed.isEmpty ? "is empty; write some text or remove the key" : "has \(trimmed.count) characters; at most \(length.upperBound)")
        }
        return trimmed
    }

    func bool(_ key: String, default value: Bool) throws(StudyFileError) -> Bool {
        guard let raw = table[key] else { return value }
        guard let flag = raw.bool else { throw error(key, "must be true or false") }
        return flag
    }

    func int(_ key: String, default value: Int, range: ClosedRange<Int>) throws(StudyFileError) -> Int {
        guard let raw = table[key] else { return value }
        guard let n = raw.int else { throw error(key, "must be a whole number (\(range.lowerBound)...\(range.upperBound))") }
        guard range.contains(n) else { throw error(key, "\(n) is outside \(range.lowerBound)...\(range.upperBound)") }
        return n
    }

    func number(_ key: String) throws(StudyFileError) -> Double {
        guard let raw = table[key] else { throw error(key, "missing; add \(key) = N") }
        guard let n = raw.double ?? raw.int.map(Double.init), n.isFinite else { throw error(key, "must be a number") }
        return n
    }

    func intArray(_ key: String) throws(StudyFileError) -> [Int] {
        try wholeNumbers(key, example: "[1, 5]", what: "a list of two whole numbers")
    }

    /// A list of whole numbers (`what` it must be, for the error).
    func wholeNumbers(_ key: String, example: String, what: String = "a list of whole numbers") throws(StudyFileError) -> [Int] {
        guard let raw = table[key] else { throw error(key, "missing; add \(key) = \(example)") }
        guard let array = raw.array else { throw error(key, "must be \(what), such as \(example)") }
        var values: [Int] = []
        for element in array {
            guard let n = element.int else { throw error(key, "must be \(what), such as \(example)") }
            values.append(n)
        }
        return values
    }

    func stringArray(_ key: String, required: Bool) throws(StudyFileError) -> [String]? {
        guard let raw = table[key] else {
            if required { throw error(key, "missing; add \(key) = [\"...\", \"...\"]") }
            return nil
        }
        guard let array = raw.array else { throw error(key, "must be a list of strings, such as [\"yes\", \"no\"]") }
        var values: [String] = []
        for (i, element) in array.enumerated() {
            guard let text = element.string?.trimmingSpaces else { throw error(key, "element \(i + 1) must be a string in quotes") }
            guard !text.isEmpty else { throw error(key, "element \(i + 1) is empty") }
            values.append(text)
        }
        return values
    }

    /// A date: TOML's `2026-03-02` or the string "2026-03-02".
    func day(_ key: String) throws(StudyFileError) -> CivilDay {
        guard let raw = table[key] else { throw error(key, "missing; add \(key) = YYYY-MM-DD") }
        if let date = raw.date {
            guard let day = CivilDay(year: date.year, month: date.month, day: date.day) else { throw error(key, "is not a day of the calendar") }
            return day
        }
        if let text = raw.string {
            guard text.count == 10, let day = CivilDay(parsing: text) else { throw error(key, "\"\(printableText(text))\" is not a date; write YYYY-MM-DD, such as 2026-03-02") }
            return day
        }
        throw error(key, "must be a date, YYYY-MM-DD (a whole local day)")
    }

    func arrayOfTables(_ key: String) throws(StudyFileError) -> [StudyTableReader] {
        guard let raw = table[key] else { return [] }
        guard let array = raw.array else { throw error(key, "must be an array of tables: write [[\(keyName(key))]] before each") }
        var readers: [StudyTableReader] = []
        for (i, element) in array.enumerated() {
            guard let sub = element.table else { throw error(key, "element \(i + 1) must be a table: write [[\(keyName(key))]] before each") }
            readers.append(StudyTableReader(file: file, lines: lines, path: "\(keyName(key))[\(i + 1)]", table: sub))
        }
        return readers
    }
}

/// Reads study-file text as `amble study join` does, for tools outside this module (the
/// fuzzing target): nil when it is a valid study, else the error a person would read.
public enum StudyFileCheck {
    public static func problem(text: String, file: String = "study.toml") -> String? {
        do {
            _ = try StudyFile.parse(text: text, file: file)
            return nil
        } catch {
            return error.description
        }
    }
}
