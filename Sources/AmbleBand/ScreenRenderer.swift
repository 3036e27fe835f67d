import AmbleDrivers
import AmbleStateMachines

/// Lays out the band's screens on a 128x64 one-bit display with the 5x7 font
/// (21 characters by 8 lines at scale 1).
enum ScreenRenderer {
    static func draw(_ screen: Screen, into fb: inout Framebuffer) {
        fb.clear()
        switch screen {
        case .menu(let entries, let selected):
            _ = fb.drawText("AMBLE", x: 0, y: 0)
            fb.drawLine(fromX: 0, y: 9, toX: fb.width - 1, y: 9)
            let spacing = entries.count > 3 ? 10 : 12
            for (i, entry) in entries.enumerated() {
                let y = 13 + i * spacing
                let title = entry.enabled ? entry.title : "\(entry.title) (lock)"
                if i == selected {
                    fb.drawRect(x: 0, y: y - 2, width: fb.width, height: 11, filled: true)
                    _ = fb.drawText(title, x: 3, y: y, on: false)
                } else {
                    _ = fb.drawText(title, x: 3, y: y)
                }
            }
            _ = fb.drawText("next  select", x: 0, y: 56)
        case .choosingReduction(let percent, let limit):
            _ = fb.drawText("MINDFUL WALK", x: 0, y: 0)
            _ = fb.drawText("slower by", x: 0, y: 14)
            _ = fb.drawText("-\(percent)%", x: 0, y: 24, scale: 2)
            _ = fb.drawText("limit \(Int(limit.rounded())) steps/min", x: 0, y: 44)
            _ = fb.drawText("next  start", x: 0, y: 56)
        case .countdown(let title, let left):
            _ = fb.drawText(String(title.prefix(21)), x: 0, y: 0)
            _ = fb.drawText(String(left), x: 52, y: 20, scale: 4)
        case .calibrating(let elapsed, let total, let cadence, let steps):
            _ = fb.drawText("CALIBRATING", x: 0, y: 0)
            _ = fb.drawText(StatusLine.clock(Double(elapsed)) + (total.map { " / " + StatusLine.clock(Double($0)) } ?? ""), x: 0, y: 12)
            _ = fb.drawText("\(Int(cadence.rounded()))", x: 0, y: 24, scale: 3)
            _ = fb.drawText("steps/min", x: 70, y: 38)
            _ = fb.drawText("steps \(steps)", x: 0, y: 56)
        case .walking(let elapsed, let cadence, let limit, let steps, let heartRate, let over):
            _ = fb.drawText("WALK " + StatusLine.clock(Double(elapsed)), x: 0, y: 0)
            _ = fb.drawText(heartRate.map { "♥\(Int($0.rounded()))" } ?? "♥--", x: 98, y: 0)
            _ = fb.drawText("\(Int(cadence.rounded()))", x: 0, y: 14, scale: 3)
            _ = fb.drawText("/ \(Int(limit.rounded()))", x: 64, y: 24)
            if over {
                fb.drawRect(x: 0, y: 42, width: fb.width, height: 11, filled: true)
                _ = fb.drawText("TOO FAST: SLOW DOWN", x: 3, y: 44, on: false)
            }
            _ = fb.drawText("steps \(steps)", x: 0, y: 56)
        case .notice(let title, let detail):
            _ = fb.drawText(String(title.prefix(21)), x: 0, y: 0)
            for (i, line) in wrap(detail, width: 21).prefix(5).enumerated() {
                _ = fb.drawText(line, x: 0, y: 16 + i * 9)
            }
        case .question(let title, let detail, let code, let keys):
            _ = fb.drawText(String(title.prefix(21)), x: 0, y: 0)
            if let code {
                // Six digits at scale 2 (12 px each) as "123 456".
                let shown = code.count == 6 ? String(code.prefix(3)) + " " + String(code.suffix(3)) : code
                _ = fb.drawText(shown, x: 0, y: 12, scale: 2)
                _ = fb.drawText(String(detail.prefix(21)), x: 0, y: 34)
            } else {
                for (i, line) in wrap(detail, width: 21).prefix(4).enumerated() {
                    _ = fb.drawText(line, x: 0, y: 12 + i * 9)
                }
            }
            _ = fb.drawText(String(keys.prefix(21)), x: 0, y: 56)
        }
    }

    /// Words to lines of at most `width` characters.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word.prefix(width))
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word.prefix(width))
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
