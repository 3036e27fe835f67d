import AmbleModel
import AmbleStateMachines

/// The status line of the simulated board: band time, the motor, the sensors and the screen,
/// cut to the terminal's width; a menu or a choice scrolls so that its selected entry shows.
enum StatusLine {
    /// What the optical sensor is doing, as the line says it.
    enum HeartRateSensor: Equatable {
        case ok
        /// Working, but no skin in front of it: the band is off the wrist.
        case offWrist
        /// The wearer switched heart rate off (consent).
        case off
        /// Not answering (unplugged, failed) or absent.
        case down
    }

    static func render(screen: Screen, bandSeconds: Double, motorRunning: Bool, accelerometerOK: Bool,
                       heartRate: HeartRateSensor, storage: StoreCondition = .sound, width: Int? = nil) -> String {
        let motor = motorRunning ? "[≋ BUZZ ≋]" : "[  ----  ]"
        let ppg: String
        switch heartRate {
        case .ok: ppg = "ppg ok"
        case .offWrist: ppg = "ppg OFF WRIST"
        case .off: ppg = "ppg off"
        case .down: ppg = "ppg --"
        }
        let clock = clockText(Int(bandSeconds))
        let store = storage.warning.map { " " + $0.uppercased() } ?? ""
        let sensors = "\(clock) \(motor) acc \(accelerometerOK ? "ok" : "--") \(ppg)\(store) | "
        guard let width, width > 1, let list = ListLine(screen) else { return fit(sensors + text(screen), width: width) }
        // A menu or a choice always shows its selected entry: the list scrolls around it, and
        // where even that does not fit, the sensors give way to the band time, the motor and a
        // store's warning, then to nothing, and the list's head goes last.
        let room = width - 1
        for (prefix, head) in [(sensors, true), ("\(clock) \(motorRunning ? "≋" : "-")\(store) | ", true), ("", true), ("", false)] {
            if let line = list.fitted(room: room - prefix.count, head: head) { return prefix + line }
        }
        return fit(list.entry(list.selected), width: width)
    }

    /// `line` cut to `width` columns (one left free so the terminal does not wrap), with "…"
    /// where it was cut.
    static func fit(_ line: String, width: Int?) -> String {
        guard let width, width > 1 else { return line }
        let room = width - 1
        guard line.count > room else { return line }
        return String(line.prefix(room - 1)) + "…"
    }

    /// A key that changes when the screen changes in kind (for line-per-change output).
    static func key(_ screen: Screen) -> String {
        switch screen {
        case .menu(let entries, let selected, let status): return "menu\(entries.first?.title ?? "")\(selected)\(status ?? "")"
        case .choosingReduction(let percent, _): return "reduction\(percent)"
        case .countdown(let title, let left): return "countdown\(title)\(left)"
        case .calibrating: return "calibrating"
        case .walking(let walk): return "walking-\(walk.pausedSeconds == nil ? "\(walk.pace)" : "paused")"
        case .notice(let title, _): return "notice\(title)"
        case .question(let title, let detail, _, _): return "question\(title)\(detail)"
        case .choice(let title, _, let selected): return "choice\(title)\(selected)"
        case .summary(let title, _, let page, _): return "summary\(title)\(page)"
        }
    }

    static func text(_ screen: Screen) -> String {
        switch screen {
        case .menu, .choice:
            return ListLine(screen)?.whole ?? ""
        case .choosingReduction(let percent, let limit):
            return "MINDFUL WALK  slower by \(percent)% -> limit \(Int(limit.rounded())) steps/min  (next: change, select: start)"
        case .countdown(let title, let left):
            return "\(title) ... \(left)"
        case .calibrating(let elapsed, let total, let cadence, let steps):
            let progress = total.map { "\(clockText(elapsed))/\(clockText($0))" } ?? clockText(elapsed)
            return "CALIBRATING \(progress)  cadence \(Int(cadence.rounded())) steps/min  steps \(steps)  (back: discard)"
        case .walking(let walk):
            let hr = walk.heartRateBPM.map { "HR \(Int($0.rounded()))" } ?? "HR --"
            if let paused = walk.pausedSeconds {
                return "WALK \(clockText(walk.elapsedSeconds))  PAUSED \(clockText(paused))  steps \(walk.steps)  (select: resume)"
            }
            return "WALK \(clockText(walk.elapsedSeconds))  \(walk.paceText)  \(hr)  steps \(walk.steps)"
        case .notice(let title, let detail):
            return "\(title.uppercased()): \(detail)"
        case .question(let title, let detail, let code, let keys):
            let shownCode = code.map { "  CODE \($0.count == 6 ? String($0.prefix(3)) + " " + String($0.suffix(3)) : $0)" } ?? ""
            return "\(title.uppercased()) \(detail)\(shownCode)\(keys.isEmpty ? "" : "  (\(keys))")"
        case .summary(let title, let lines, let page, let pages):
            return "\(title.uppercased()) (\(page + 1)/\(pages))  " + lines.joined(separator: " · ") + "  (next: page, select: ok)"
        }
    }
}

/// A menu or a choice as the status line writes it: a head ("MENU", the choice's title), the
/// entries with the selected one between `>` and `<`, and a tail (the menu's goal line). Cut to
/// a width, it keeps the selected entry and as many of its neighbours as fit, with "…" where
/// entries are left out.
struct ListLine {
    var head: String
    var entries: [String]
    var selected: Int
    /// Between two entries.
    var separator: String
    /// Around an entry that is not selected.
    var padding: String
    var tail: String

    init?(_ screen: Screen) {
        switch screen {
        case .menu(let entries, let selected, let status):
            head = "MENU "
            self.entries = entries.map { $0.enabled ? $0.title : "\($0.title) (calibrate first)" }
            self.selected = selected
            separator = " "
            padding = "  "
            tail = status.map { "  [\($0)]" } ?? ""
        case .choice(let title, let options, let selected):
            head = title.uppercased() + "  "
            entries = options
            self.selected = selected
            separator = "  "
            padding = ""
            tail = ""
        default:
            return nil
        }
        guard !entries.isEmpty else { return nil }
        self.selected = min(max(0, self.selected), entries.count - 1)
    }

    /// Every entry, the head and the tail.
    var whole: String { line(0 ... entries.count - 1) }

    /// An entry as the line shows it: `> Settings <` when selected.
    func entry(_ index: Int) -> String {
        index == selected ? "> \(entries[index]) <" : padding + entries[index] + padding
    }

    /// The entries in `window`, "…" before and after it when entries are left out there.
    func line(_ window: ClosedRange<Int>, head withHead: Bool = true, tail withTail: Bool = true) -> String {
        var parts = window.map(entry)
        if window.lowerBound > 0 { parts.insert("…", at: 0) }
        if window.upperBound < entries.count - 1 { parts.append("…") }
        return (withHead ? head : "") + parts.joined(separator: separator) + (withTail ? tail : "")
    }

    /// The widest line within `room` columns that shows the selected entry whole (with the
    /// head, unless `head` is false): the window grows by one entry after the selection, then
    /// one before, in turn, while it fits; the tail comes when it fits too. Nil when the
    /// selected entry does not fit.
    func fitted(room: Int, head withHead: Bool = true) -> String? {
        if withHead && whole.count <= room { return whole }
        func fits(_ window: ClosedRange<Int>) -> Bool { line(window, head: withHead, tail: false).count <= room }
        var window = selected ... selected
        guard fits(window) else { return nil }
        var grew = true
        while grew {
            grew = false
            if window.upperBound + 1 < entries.count, fits(window.lowerBound ... window.upperBound + 1) {
                window = window.lowerBound ... window.upperBound + 1
                grew = true
            }
            if window.lowerBound > 0, fits(window.lowerBound - 1 ... window.upperBound) {
                window = window.lowerBound - 1 ... window.upperBound
                grew = true
            }
        }
        let withTail = line(window, head: withHead)
        return withTail.count <= room ? withTail : line(window, head: withHead, tail: false)
    }
}
