import AmbleStateMachines

/// The status line of the simulated board: band time, the motor, sensors and the screen.
enum StatusLine {
    static func render(screen: Screen, bandSeconds: Double, motorRunning: Bool, accelerometerOK: Bool, heartRateOK: Bool) -> String {
        let motor = motorRunning ? "[≋ BUZZ ≋]" : "[  ----  ]"
        let sensors = "acc \(accelerometerOK ? "ok" : "--") ppg \(heartRateOK ? "ok" : "--")"
        return "\(clock(bandSeconds)) \(motor) \(sensors) | \(text(screen))"
    }

    /// A key that changes when the screen changes in kind (for line-per-change output).
    static func key(_ screen: Screen) -> String {
        switch screen {
        case .menu(_, let selected): return "menu\(selected)"
        case .choosingReduction(let percent, _): return "reduction\(percent)"
        case .countdown(let title, let left): return "countdown\(title)\(left)"
        case .calibrating: return "calibrating"
        case .walking(_, _, _, _, _, let over): return over ? "walking-over" : "walking"
        case .notice(let title, _): return "notice\(title)"
        case .question(let title, let detail, _, _): return "question\(title)\(detail)"
        }
    }

    static func text(_ screen: Screen) -> String {
        switch screen {
        case .menu(let entries, let selected):
            let items = entries.enumerated().map { i, entry in
                let title = entry.enabled ? entry.title : "\(entry.title) (calibrate first)"
                return i == selected ? "> \(title) <" : "  \(title)  "
            }
            return "MENU " + items.joined(separator: " ")
        case .choosingReduction(let percent, let limit):
            return "MINDFUL WALK  slower by \(percent)% -> limit \(Int(limit.rounded())) steps/min  (next: change, select: start)"
        case .countdown(let title, let left):
            return "\(title) ... \(left)"
        case .calibrating(let elapsed, let total, let cadence, let steps):
            let progress = total.map { "\(clock(Double(elapsed)))/\(clock(Double($0)))" } ?? clock(Double(elapsed))
            return "CALIBRATING \(progress)  cadence \(Int(cadence.rounded())) steps/min  steps \(steps)"
        case .walking(let elapsed, let cadence, let limit, let steps, let heartRate, let over):
            let pace = "\(Int(cadence.rounded())) / limit \(Int(limit.rounded())) steps/min"
            let hr = heartRate.map { "HR \(Int($0.rounded()))" } ?? "HR --"
            return "WALK \(clock(Double(elapsed)))  \(pace)\(over ? "  TOO FAST" : "")  \(hr)  steps \(steps)"
        case .notice(let title, let detail):
            return "\(title.uppercased()): \(detail)"
        case .question(let title, let detail, let code, let keys):
            let shownCode = code.map { "  CODE \($0.count == 6 ? String($0.prefix(3)) + " " + String($0.suffix(3)) : $0)" } ?? ""
            return "\(title.uppercased()) \(detail)\(shownCode)\(keys.isEmpty ? "" : "  (\(keys))")"
        }
    }

    static func clock(_ seconds: Double) -> String {
        let total = max(0, Int(seconds))
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        let mm = m < 10 ? "0\(m)" : "\(m)", ss = s < 10 ? "0\(s)" : "\(s)"
        return h > 0 ? "\(h):\(mm):\(ss)" : "\(m):\(ss)"
    }
}
