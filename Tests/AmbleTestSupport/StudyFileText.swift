/// A study file run by a server, as the tests of three targets need it (the laptop's rules,
/// the server, the laptop against the server): one questionnaire of one likert question, two
/// or more arms with their band settings, block allocation and a consent text, optionally an
/// enrolment window. Each test changes what it checks; the shape is written once, here.
///
/// `text` lays the file out line for line the same whatever is changed, so that a test can
/// name a line by its number (`StudyServerKeysTests`).
public struct StudyFileText: Sendable {
    /// One `[[arm]]`: its band settings as TOML lines (`alert_style = "firm"`).
    public struct Arm: Sendable {
        public var name: String
        public var ratio: Int?
        public var description: String?
        public var band: [String]

        public init(_ name: String, ratio: Int? = nil, description: String? = nil, band: [String]) {
            self.name = name
            self.ratio = ratio
            self.description = description
            self.band = band
        }
    }

    public var name = "Mindful walking"
    /// The study's first and last day, TOML local dates.
    public var start = "2026-02-23"
    public var end = "2026-03-08"
    /// The evening questionnaire's one question, a likert item `calm` on `scale`.
    public var question = "How calm was your day?"
    public var scale = "[1, 5]"
    public var arms = [Arm("walk", band: ["alert_style = \"firm\""]), Arm("control", band: ["alert_style = \"silent\""])]
    public var blockSizes = "[4]"
    public var seed = "7"
    /// `strata = ...` under `[allocation]`, left out when nil.
    public var strata: String?
    public var consentVersion = "2"
    public var consentText = "I agree to take part."
    public var onWithdrawal = "keep"
    /// `[enrolment]`: opens, closes (TOML local dates) and the codes' days; left out when nil.
    public var enrolment: (opens: String, closes: String, codeExpiryDays: Int)?

    public init() {}

    public var text: String {
        var lines = ["name = \"\(name)\"", "start = \(start)", "end = \(end)", "",
                     "[[questionnaire]]", "name = \"evening\"", "title = \"Evening\"", "due = \"daily\"",
                     "  [[questionnaire.item]]", "  id = \"calm\"", "  type = \"likert\"", "  text = \"\(question)\"", "  scale = \(scale)", ""]
        for arm in arms {
            lines += ["[[arm]]", "name = \"\(arm.name)\""]
            if let ratio = arm.ratio { lines.append("ratio = \(ratio)") }
            if let description = arm.description { lines.append("description = \"\(description)\"") }
            lines += ["  [arm.band]"] + arm.band.map { "  " + $0 } + [""]
        }
        lines += ["[allocation]", "method = \"block\"", "block_sizes = \(blockSizes)", "seed = \(seed)"]
        if let strata { lines.append("strata = \(strata)") }
        lines += ["", "[consent]", "version = \"\(consentVersion)\"", "text = \"\(consentText)\"", "on_withdrawal = \"\(onWithdrawal)\""]
        if let enrolment {
            lines += ["", "[enrolment]", "opens = \(enrolment.opens)", "closes = \(enrolment.closes)", "code_expiry_days = \(enrolment.codeExpiryDays)"]
        }
        return lines.joined(separator: "\n")
    }
}
