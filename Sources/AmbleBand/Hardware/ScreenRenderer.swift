import AmbleDrivers
import AmbleStateMachines

/// Lays out the band's screens on a 128x64 one-bit display with the 5x7 font
/// (21 characters by 8 lines at scale 1).
enum ScreenRenderer {
    static func draw(_ screen: Screen, into fb: inout Framebuffer) {
        fb.clear()
        switch screen {
        case .menu(let entries, let selected, let status):
            drawMenu(entries, selected: selected, status: status, into: &fb)
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
            _ = fb.drawText(clockText(elapsed) + (total.map { " / " + clockText($0) } ?? ""), x: 0, y: 12)
            _ = fb.drawText("\(Int(cadence.rounded()))", x: 0, y: 24, scale: 3)
            _ = fb.drawText("steps/min", x: 70, y: 38)
            _ = fb.drawText("steps \(steps)", x: 0, y: 56)
        case .walking(let walk):
            drawWalk(walk, into: &fb)
        case .choice(let title, let options, let selected):
            drawChoice(title, options: options, selected: selected, into: &fb)
        case .summary(let title, let lines, let page, let pages):
            _ = fb.drawText(String(title.prefix(16)), x: 0, y: 0)
            _ = fb.drawText("\(page + 1)/\(pages)", x: 110, y: 0)
            fb.drawLine(fromX: 0, y: 9, toX: fb.width - 1, y: 9)
            for (i, line) in lines.prefix(4).enumerated() {
                _ = fb.drawText(String(line.prefix(21)), x: 0, y: 14 + i * 10)
            }
            _ = fb.drawText("next: page  select: ok", x: 0, y: 56)
        case .notice(let title, let detail):
            _ = fb.drawText(String(title.prefix(21)), x: 0, y: 0)
            for (i, line) in wrap(detail, width: 21).prefix(5).enumerated() {
                _ = fb.drawText(line, x: 0, y: 16 + i * 9)
            }
        case .question(let title, let detail, let code, let keys):
            drawQuestion(title, detail: detail, code: code, keys: keys, into: &fb)
        }
    }

    /// The menu: the title (or the store's warning, or the goals' progress), the entries, the keys.
    private static func drawMenu(_ entries: [Screen.MenuEntry], selected: Int, status: String?, into fb: inout Framebuffer) {
        // The store's warning or the goals' progress a laptop sent, when there is one, in place of the title.
        _ = fb.drawText(status.map { String($0.prefix(21)) } ?? "AMBLE", x: 0, y: 0)
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
    }

    /// A walk under way: time, heart rate, cadence against the limit, the pace, the steps (or paused).
    private static func drawWalk(_ walk: Screen.Walking, into fb: inout Framebuffer) {
        _ = fb.drawText("WALK " + clockText(walk.elapsedSeconds), x: 0, y: 0)
        _ = fb.drawText(walk.heartRateBPM.map { "♥\(Int($0.rounded()))" } ?? "♥--", x: 98, y: 0)
        if let paused = walk.pausedSeconds {
            _ = fb.drawText("PAUSED", x: 0, y: 16, scale: 2)
            _ = fb.drawText(clockText(paused), x: 0, y: 36)
            _ = fb.drawText("select: resume", x: 0, y: 56)
            return
        }
        _ = fb.drawText("\(Int(walk.cadenceStepsPerMinute.rounded()))", x: 0, y: 14, scale: 3)
        _ = fb.drawText("/ \(Int(walk.limitStepsPerMinute.rounded()))", x: 64, y: 24)
        switch walk.pace {
        case .over:
            fb.drawRect(x: 0, y: 42, width: fb.width, height: 11, filled: true)
            _ = fb.drawText("TOO FAST: SLOW DOWN", x: 3, y: 44, on: false)
        case .easing:
            _ = fb.drawText("easing: below \(Int((walk.limitStepsPerMinute).rounded()))", x: 0, y: 44)
        case .under:
            break
        }
        _ = fb.drawText("steps \(walk.steps)", x: 0, y: 56)
    }

    /// A list to choose from: four options fit, a longer list scrolls with the selection.
    private static func drawChoice(_ title: String, options: [String], selected: Int, into fb: inout Framebuffer) {
        _ = fb.drawText(String(title.prefix(21)), x: 0, y: 0)
        fb.drawLine(fromX: 0, y: 9, toX: fb.width - 1, y: 9)
        // Four options fit; a longer list scrolls with the selection.
        let first = max(0, min(selected - 3, options.count - 4))
        for (row, i) in (first ..< min(options.count, first + 4)).enumerated() {
            let y = 13 + row * 10
            if i == selected {
                fb.drawRect(x: 0, y: y - 1, width: fb.width, height: 10, filled: true)
                _ = fb.drawText(String(options[i].prefix(20)), x: 3, y: y, on: false)
            } else {
                _ = fb.drawText(String(options[i].prefix(20)), x: 3, y: y)
            }
        }
        _ = fb.drawText("next  select", x: 0, y: 56)
    }

    /// A question: a pairing code large, or the detail wrapped, and the keys that answer it.
    private static func drawQuestion(_ title: String, detail: String, code: String?, keys: String, into fb: inout Framebuffer) {
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
