import AmbleModel
import AmbleStateMachines

/// The status line of the simulated board: band time, the motor, the sensors and the screen,
/// cut to the terminal's width.
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
        let store = storage.warning.map { " " + $0.uppercased() } ?? ""
        let line = "\(clockText(Int(bandSeconds))) \(motor) acc \(accelerometerOK ? "ok" : "--") \(ppg)\(store) | \(text(screen))"
        return fit(line, width: width)
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
        case .menu(let entries, let selected, let status):
            let items = entries.enumerated().map { i, entry in
                let title = entry.enabled ? entry.title : "\(entry.title) (calibrate first)"
                return i == selected ? "> \(title) <" : "  \(title)  "
            }
            return "MENU " + items.joined(separator: " ") + (status.map { "  [\($0)]" } ?? "")
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
        case .choice(let title, let options, let selected):
            let items = options.enumerated().map { i, option in i == selected ? "> \(option) <" : option }
            return "\(title.uppercased())  " + items.joined(separator: "  ")
        case .summary(let title, let lines, let page, let pages):
            return "\(title.uppercased()) (\(page + 1)/\(pages))  " + lines.joined(separator: " · ") + "  (next: page, select: ok)"
        }
    }
}
