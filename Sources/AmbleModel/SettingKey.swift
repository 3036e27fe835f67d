/// How a setting's value reads and writes as text: the text a band stores in its settings
/// table, the link carries and `amble band settings` takes. `parse` takes text already trimmed
/// and accepts exactly what is allowed; `format` gives the canonical text that is stored.
public struct SettingCodec<Value: Sendable>: Sendable {
    /// What may be set, in words (errors and `--help`).
    public let allowed: String
    public let parse: @Sendable (String) -> Value?
    public let format: @Sendable (Value) -> String

    public init(allowed: String, parse: @escaping @Sendable (String) -> Value?, format: @escaping @Sendable (Value) -> String) {
        self.allowed = allowed
        self.parse = parse
        self.format = format
    }
}

extension SettingCodec where Value == Int {
    /// A whole number in `range`, a multiple of `multipleOf`.
    static func integer(_ range: ClosedRange<Int>, multipleOf step: Int = 1, allowed: String) -> Self {
        Self(allowed: allowed, parse: { text in
            guard let n = Int(text), range.contains(n), n % step == 0 else { return nil }
            return n
        }, format: { String($0) })
    }
}

extension SettingCodec where Value == Bool {
    /// "on" or "off", in any case.
    static let onOff = Self(allowed: "on or off", parse: { ["on": true, "off": false][$0.lowercased()] }, format: { $0 ? "on" : "off" })
}

extension SettingCodec where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
    /// One of the cases, by its name in any case: "firm, gentle or silent".
    static var oneOf: Self {
        let names = Value.allCases.map(\.rawValue)
        let allowed = names.dropLast().joined(separator: ", ") + " or " + names.last!
        return Self(allowed: allowed, parse: { Value(rawValue: $0.lowercased()) }, format: { $0.rawValue })
    }
}

extension SettingCodec where Value == String {
    /// Text as typed, when `isAllowed` says so.
    static func text(allowed: String, _ isAllowed: @escaping @Sendable (String) -> Bool) -> Self {
        Self(allowed: allowed, parse: { isAllowed($0) ? $0 : nil }, format: { $0 })
    }
}

/// How a setting shows in the band's Settings menu.
public struct SettingMenuText<Value: Sendable>: Sendable {
    /// The entry's title: "Reduction".
    public let title: String
    /// A value as the menu shows it: "20 %".
    public let label: @Sendable (Value) -> String
    /// The values the band offers, in order, with the current one included; none for a setting
    /// only a laptop sets.
    public let options: @Sendable (_ current: Value) -> [Value]
}

extension SettingMenuText where Value: Equatable {
    /// `offered` in order, and `current` last when it is not among them.
    init(title: String, label: @escaping @Sendable (Value) -> String, offered: [Value]) {
        self.init(title: title, label: label, options: { offered.contains($0) ? offered : offered + [$0] })
    }
}

extension SettingMenuText where Value == Int {
    /// `offered` numbers, `current` among them in order; shown with their `unit`.
    init(title: String, unit: String, offered: [Int]) {
        self.init(title: title, label: { "\($0) \(unit)" }, options: { Array(Set(offered + [$0])).sorted() })
    }
}

/// One band setting, declared once (`SettingKeys`): its key, its type, where the band keeps it
/// (`BandSettingValues`), its default, the text it is stored and sent as, and how the band's
/// menu shows it. The band, the laptop and the link all read this declaration, as
/// argument-parser's `ExpressibleByArgument` carries a type's parsing.
public struct SettingKey<Value: Equatable & Sendable>: Sendable {
    public let setting: BandSetting
    public let path: WritableKeyPath<BandSettingValues, Value> & Sendable
    public let defaultValue: Value
    public let codec: SettingCodec<Value>
    public let menu: SettingMenuText<Value>

    init(_ setting: BandSetting, _ path: WritableKeyPath<BandSettingValues, Value> & Sendable, default defaultValue: Value,
         _ codec: SettingCodec<Value>, menu: SettingMenuText<Value>) {
        self.setting = setting
        self.path = path
        self.defaultValue = defaultValue
        self.codec = codec
        self.menu = menu
    }

    /// A value from text as typed or stored (trimmed), or nil when it is not allowed.
    public func parse(_ raw: String) -> Value? { codec.parse(raw.trimmingWhitespace()) }
}

/// A setting's declaration seen by its `BandSetting` key alone: what the store, the link and
/// the CLI need, all as text at their edge.
public protocol AnySettingKey: Sendable {
    var setting: BandSetting { get }
    var allowed: String { get }
    var defaultText: String { get }
    var title: String { get }
    /// The canonical text of `raw`, or nil when it is not allowed.
    func validate(_ raw: String) -> String?
    func text(in values: BandSettingValues) -> String
    /// The value in `values` as the band's menu shows it: "20 %".
    func label(in values: BandSettingValues) -> String
    /// Sets the value `text` stands for; false (and `values` unchanged) when it is not allowed.
    @discardableResult func set(_ text: String, in values: inout BandSettingValues) -> Bool
    /// The values the band's menu offers for it, with the current one selected.
    func menuChoices(_ values: BandSettingValues) -> SettingChoices
}

extension SettingKey: AnySettingKey {
    public var allowed: String { codec.allowed }
    public var defaultText: String { codec.format(defaultValue) }
    public var title: String { menu.title }

    public func validate(_ raw: String) -> String? { parse(raw).map(codec.format) }

    public func text(in values: BandSettingValues) -> String { codec.format(values[keyPath: path]) }

    public func label(in values: BandSettingValues) -> String { menu.label(values[keyPath: path]) }

    @discardableResult public func set(_ text: String, in values: inout BandSettingValues) -> Bool {
        guard let value = parse(text) else { return false }
        values[keyPath: path] = value
        return true
    }

    public func menuChoices(_ values: BandSettingValues) -> SettingChoices {
        let current = values[keyPath: path]
        let options = menu.options(current)
        return SettingChoices(setting: setting, title: menu.title, labels: options.map(menu.label),
                              storedTexts: options.map(codec.format), selected: options.firstIndex(of: current) ?? 0) { index, values in
            values[keyPath: path] = options[index]
            return codec.format(options[index])
        }
    }
}

/// A setting's values as the band's menu offers them, one selected; choosing one puts the
/// typed value in `BandSettingValues` (no text on the way) and gives the text to store.
public struct SettingChoices: Sendable {
    public let setting: BandSetting
    public let title: String
    /// The values as the menu shows them: "20 %".
    public let labels: [String]
    /// The same values as they are stored and sent.
    public let storedTexts: [String]
    public var selected: Int
    private let take: @Sendable (Int, inout BandSettingValues) -> String

    init(setting: BandSetting, title: String, labels: [String], storedTexts: [String], selected: Int,
         take: @escaping @Sendable (Int, inout BandSettingValues) -> String) {
        self.setting = setting
        self.title = title
        self.labels = labels
        self.storedTexts = storedTexts
        self.selected = selected
        self.take = take
    }

    /// Moves the selection `steps` on (after the last, the first).
    public mutating func move(by steps: Int) { selected = (selected + steps) % labels.count }

    /// Puts the selected value in `values`; returns its stored text.
    public func choose(into values: inout BandSettingValues) -> String { take(selected, &values) }
}
