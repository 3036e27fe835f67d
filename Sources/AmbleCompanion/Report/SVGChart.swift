/// An SVG chart's plot area and its two scales. The SVG has a `viewBox` and no fixed size, so
/// it scales to the width of its box (a phone or a printed page) and keeps its proportions.
struct SVGChart {
    /// The drawing's size in SVG user units (the `viewBox`).
    var width = 720.0
    var height = 260.0
    /// Room for the axis labels, user units.
    var left = 70.0, right = 14.0, top = 18.0, bottom = 34.0
    var xRange: ClosedRange<Double>
    var yRange: ClosedRange<Double>

    var plotWidth: Double { width - left - right }
    var plotHeight: Double { height - top - bottom }

    func x(_ value: Double) -> Double {
        let span = xRange.upperBound - xRange.lowerBound
        return left + (span > 0 ? (value - xRange.lowerBound) / span : 0) * plotWidth
    }

    func y(_ value: Double) -> Double {
        let span = yRange.upperBound - yRange.lowerBound
        let clamped = min(max(value, yRange.lowerBound), yRange.upperBound)
        return top + plotHeight - (span > 0 ? (clamped - yRange.lowerBound) / span : 0) * plotHeight
    }

    /// The opening tag; `label` is the chart's accessible name.
    func open(label: String) -> String {
        "<svg viewBox=\"0 0 \(n(width)) \(n(height))\" preserveAspectRatio=\"xMidYMid meet\" role=\"img\" aria-label=\"\(HTMLPage.escape(label))\" xmlns=\"http://www.w3.org/2000/svg\">"
    }

    /// Horizontal grid lines with their values at the left, and the x axis.
    func yGrid(ticks: [Double], format: (Double) -> String) -> String {
        var out = ""
        for tick in ticks {
            out += "<line class=\"grid\" x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(y(tick)))\" y2=\"\(n(y(tick)))\"/>"
            out += "<text x=\"\(n(left - 6))\" y=\"\(n(y(tick) + 4))\" text-anchor=\"end\">\(HTMLPage.escape(format(tick)))</text>"
        }
        out += "<line class=\"axis\" x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(top + plotHeight))\" y2=\"\(n(top + plotHeight))\"/>"
        return out
    }

    /// The widest a label's character is drawn, user units: 0.7 em of the largest font the page
    /// gives chart text (24 px on a phone, HTMLPage's CSS; DejaVu Sans' digits are 0.64 em, "%"
    /// 0.95 em).
    static let labelCharacterWidth = 0.7 * 24
    /// From the x axis down to the labels' baseline, user units: the phone font's cap height
    /// (0.73 x 24 px) and 8 units of white, so that a label never touches a bar ending on the
    /// axis, nor the lowest value label at its left.
    static let labelBaselineBelowAxis = 26.0
    /// The bottom margin for labels of two lines (a weekday over its date), user units.
    static let twoLineLabelsBottom = 60.0

    /// A left margin wide enough for the value labels at the axis, user units (70 at least).
    static func left(for labels: [String]) -> Double {
        max(70, Double(labels.map(\.count).max() ?? 0) * labelCharacterWidth + 10)
    }

    /// Labels under the x axis at the given positions; a newline starts a second line. A label
    /// centred on its position would cross the drawing's edge is drawn beside it instead,
    /// ending (or starting) there, so that no label is clipped at any width.
    func xLabels(_ labels: [(Double, String)]) -> String {
        labels.map { position, text in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let px = x(position)
            let half = Double(lines.map(\.count).max() ?? 0) * Self.labelCharacterWidth / 2
            let anchor = px + half > width ? "end" : px - half < 0 ? "start" : "middle"
            let spans = lines.enumerated().map { index, line in
                "<tspan x=\"\(n(px))\" dy=\"\(index == 0 ? "0" : "1.15em")\">\(HTMLPage.escape(String(line)))</tspan>"
            }
            return "<text x=\"\(n(px))\" y=\"\(n(height - bottom + Self.labelBaselineBelowAxis))\" text-anchor=\"\(anchor)\">" + (lines.count == 1 ? HTMLPage.escape(text) : spans.joined()) + "</text>"
        }.joined()
    }

    /// A line through points, broken where a point is nil.
    func polylines(_ points: [(Double, Double?)], cssClass: String) -> String {
        var out = ""
        var run: [String] = []
        func flush() {
            if run.count == 1 { run.append(run[0]) }
            if !run.isEmpty { out += "<polyline class=\"\(cssClass)\" points=\"\(run.joined(separator: " "))\"/>" }
            run = []
        }
        for (px, py) in points {
            if let py { run.append("\(n(x(px))),\(n(y(py)))") } else { flush() }
        }
        flush()
        return out
    }

    /// Text in the middle of the plot, for a chart without data.
    func noData(_ text: String) -> String {
        "<text class=\"nodata\" x=\"\(n(left + plotWidth / 2))\" y=\"\(n(top + plotHeight / 2))\" text-anchor=\"middle\">\(HTMLPage.escape(text))</text>"
    }

    /// About `count` round tick values (1, 2 or 5 times a power of ten apart, at least
    /// `minimumStep`) from the first at or above the range's start to the first at or above its
    /// end, so that the last tick covers the largest value.
    static func niceTicks(_ range: ClosedRange<Double>, count: Int = 4, minimumStep: Double = 0) -> [Double] {
        let span = range.upperBound - range.lowerBound
        guard span > 0, count > 0 else { return [range.lowerBound] }
        let raw = span / Double(count)
        var power = 1.0
        while power * 10 <= raw { power *= 10 }
        while power > raw { power /= 10 }
        let step = max(minimumStep, [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= raw } ?? power * 10)
        var ticks: [Double] = []
        var tick = (range.lowerBound / step).rounded(.up) * step
        while true {
            ticks.append(tick)
            if tick >= range.upperBound - step * 1e-9 { break }
            tick += step
        }
        return ticks
    }
}

/// A coordinate with at most one decimal, the way SVG attributes want it.
public func n(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : formatOne(value)
}
