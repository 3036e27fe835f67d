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

    /// Labels under the x axis at the given positions; a newline starts a second line.
    func xLabels(_ labels: [(Double, String)]) -> String {
        labels.map { position, text in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let spans = lines.enumerated().map { index, line in
                "<tspan x=\"\(n(x(position)))\" dy=\"\(index == 0 ? "0" : "1.15em")\">\(HTMLPage.escape(String(line)))</tspan>"
            }
            return "<text x=\"\(n(x(position)))\" y=\"\(n(height - bottom + 20))\" text-anchor=\"middle\">" + (lines.count == 1 ? HTMLPage.escape(text) : spans.joined()) + "</text>"
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
func n(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : formatOne(value)
}
