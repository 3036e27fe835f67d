/// One self-contained HTML page: inline CSS and SVG, no script, nothing fetched. Text that
/// comes from a store (band names) goes through `escape` before it reaches the page.
public enum HTMLPage {
    /// `&`, `<`, `>`, `"` and `'` as character references: safe in text and in quoted attributes.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The whole document around `body` (already HTML).
    public static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="amble report">
        <title>\(escape(title))</title>
        <style>
        \(css)
        </style>
        </head>
        <body>
        <main>
        \(body)
        </main>
        </body>
        </html>

        """
    }

    /// A summary figure: a label over a value, with an optional note under it.
    public static func figure(_ label: String, _ value: String, note: String? = nil) -> String {
        "<div class=\"figure\"><div class=\"label\">\(escape(label))</div><div class=\"value\">\(escape(value))</div>"
            + (note.map { "<div class=\"note\">\(escape($0))</div>" } ?? "") + "</div>"
    }

    /// A chart's section: heading, the SVG, and a legend of (CSS class, text) swatches.
    static func chartSection(id: String, heading: String, svg: String, legend: [(String, String)]) -> String {
        var html = "<section class=\"chart\" id=\"\(escape(id))\">\n<h2>\(escape(heading))</h2>\n\(svg)\n"
        if !legend.isEmpty {
            html += "<ul class=\"legend\">" + legend.map { "<li><span class=\"swatch \(escape($0.0))\"></span>\(escape($0.1))</li>" }.joined() + "</ul>\n"
        }
        return html + "</section>"
    }

    static let css = """
    :root { --ink: #1f2937; --muted: #6b7280; --line: #d1d5db; --cadence: #2563eb; --over: #dc2626;
            --limit: #111827; --alert: #ea580c; --pause: #e5e7eb; --hr: #9333ea; --bar: #0d9488; }
    * { box-sizing: border-box; }
    html { -webkit-text-size-adjust: 100%; }
    body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
           color: var(--ink); background: #f9fafb; }
    main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
    header h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
    header p { margin: 0; color: var(--muted); }
    h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
    .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .5rem; margin: 1rem 0; }
    .figure { background: #fff; border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .75rem; }
    .figure .label { font-size: .8rem; color: var(--muted); }
    .figure .value { font-size: 1.3rem; font-weight: 600; }
    .figure .note { font-size: .8rem; color: var(--muted); }
    section.chart, section.table { background: #fff; border: 1px solid var(--line); border-radius: .5rem; padding: .75rem; margin: 0 0 1rem; }
    svg { display: block; width: 100%; height: auto; }
    svg text { font-size: 13px; fill: var(--muted); font-family: inherit; }
    svg .grid { stroke: var(--line); stroke-width: 1; }
    svg .axis { stroke: var(--muted); stroke-width: 1; }
    svg .cadence { fill: none; stroke: var(--cadence); stroke-width: 2; stroke-linejoin: round; }
    svg .cadence.over { stroke: var(--over); }
    svg .limit { stroke: var(--limit); stroke-width: 1.5; stroke-dasharray: 6 4; }
    svg .alert { fill: var(--alert); }
    svg .pause { fill: var(--pause); }
    svg .hr { fill: none; stroke: var(--hr); stroke-width: 2; stroke-linejoin: round; }
    svg .bar { fill: var(--bar); }
    svg .point { fill: var(--cadence); }
    svg .trend { fill: none; stroke: var(--cadence); stroke-width: 1.5; }
    svg .hr-point { fill: var(--hr); }
    svg .nodata { font-size: 16px; fill: var(--muted); }
    svg .value-label { font-size: 12px; fill: var(--ink); }
    .legend { list-style: none; margin: .5rem 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .85rem; color: var(--muted); }
    .swatch { display: inline-block; width: 1.1rem; height: .7rem; margin-right: .35rem; vertical-align: middle; border-radius: 2px; }
    .swatch.cadence { background: var(--cadence); } .swatch.over { background: var(--over); }
    .swatch.limit { background: repeating-linear-gradient(90deg, var(--limit) 0 5px, transparent 5px 8px); height: 2px; }
    .swatch.alert { background: var(--alert); width: .7rem; clip-path: polygon(50% 100%, 0 0, 100% 0); }
    .swatch.pause { background: var(--pause); border: 1px solid var(--line); } .swatch.hr { background: var(--hr); }
    .swatch.bar { background: var(--bar); }
    table { width: 100%; border-collapse: collapse; font-size: .9rem; }
    th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid var(--line); }
    td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
    td.when, td.num { white-space: nowrap; }
    .scroll { overflow-x: auto; }
    footer { color: var(--muted); font-size: .8rem; margin-top: 1rem; }
    @media (max-width: 30rem) {
      main { padding: .5rem; }
      header h1 { font-size: 1.25rem; }
      .figures { grid-template-columns: repeat(2, 1fr); }
      .figure .value { font-size: 1.1rem; }
      svg text, svg .value-label { font-size: 24px; }
      svg .nodata { font-size: 26px; }
      svg .cadence, svg .hr { stroke-width: 3; }
      table { font-size: .8rem; }
    }
    @media print {
      @page { margin: 12mm; }
      body { background: #fff; font-size: 11pt; }
      main { max-width: none; padding: 0; }
      * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
      section.chart, section.table, .figure { break-inside: avoid; border-color: #999; }
      .scroll { overflow: visible; }
    }
    """
}
