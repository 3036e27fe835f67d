#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleCompanion

/// The dashboard as one server-rendered page (AmbleCompanion's `HTMLPage`: inline CSS, no
/// script). Everything from the database goes through `HTMLPage.escape`.
enum DashboardPage {
    /// Extra rules over `HTMLPage.css`: the silence flag, and tables that scroll.
    static let css = """
    <style>
    td.flag { background: #dc2626; color: #fff; font-weight: 600; }
    td.ok { color: #0d9488; }
    tr.arm td { font-weight: 600; background: #f3f4f6; }
    nav.top { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; margin-bottom: .5rem; }
    nav.top form { margin: 0; }
    form.range { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; margin: .5rem 0 1rem; }
    </style>
    """

    static func html(_ dashboard: Dashboard, arms: [String], researcher: String) -> String {
        let e = HTMLPage.escape
        var body = css + "\n"
        body += "<nav class=\"top\"><a href=\"/studies\">Your studies</a><span>logged in as \(e(researcher))</span>"
            + "<form method=\"post\" action=\"/logout\"><button type=\"submit\">Log out</button></form></nav>\n"
        body += "<header><h1>\(e(dashboard.studyName))</h1><p>\(e(dashboard.days.first!.iso)) to \(e(dashboard.days.last!.iso)), days in \(e(dashboard.timeZone)); "
            + "a participant is flagged after \(Int(Dashboard.silentDays)) days without an upload.</p></header>\n"
        body += "<form class=\"range\" method=\"get\"><label>Last day <input name=\"to\" value=\"\(e(dashboard.days.last!.iso))\" size=\"10\"></label>"
            + "<label>Days <input name=\"days\" value=\"\(dashboard.days.count)\" size=\"3\"></label>"
            + "<label>Time zone <input name=\"tz\" value=\"\(e(dashboard.timeZone))\" size=\"14\"></label><button type=\"submit\">Show</button></form>\n"
        let base = "/studies/\(dashboard.studyID.uuidString.lowercased())/export"
        body += "<p>Export: " + ["csv&amp;table=sessions", "csv&amp;table=seconds", "csv&amp;table=answers", "openmhealth"]
            .map { "<a href=\"\(base)?format=\($0)\">\($0.replacingOccurrences(of: "&amp;table=", with: " "))</a>" }.joined(separator: " · ") + "</p>\n"

        // Written into one string as it goes: a page of 62 days is 12,400 participant-day rows
        // (2.4 MB), where an array of cells per row joined afterwards took most of the page's time.
        let iso = Dictionary(uniqueKeysWithValues: dashboard.days.map { ($0.daysSinceEpoch, $0.iso) })
        let armRows = dashboard.armDays(arms: arms)
        section(id: "arms", heading: "Per arm and day", head: ["Arm", "Participants", "Day"] + dayColumns,
                rows: armRows.reduce(0) { $0 + $1.days.count }, into: &body) { html in
            for arm in armRows {
                let lead = "<td>\(e(arm.arm))</td><td class=\"num\">\(arm.participants)" + (arm.silent > 0 ? " (\(arm.silent) silent)" : "") + "</td>"
                for day in arm.days { appendRow(lead: lead, day, iso: iso, to: &html) }
            }
        }
        section(id: "participants", heading: "Participants",
                head: ["Participant", "Arm", "Joined", "Last upload", "Last band contact", "Status"],
                rows: dashboard.participants.count, into: &body) { html in
            for p in dashboard.participants {
                html += "<tr><td>\(e(short(p.id)))</td><td>\(e(p.arm))</td><td class=\"when\">\(e(time(p.joinedAt)))</td>"
                html += "<td class=\"when\">\(e(p.lastUpload.map(time) ?? "never"))</td>"
                html += "<td class=\"when\">\(e(p.lastBandContact.map(time) ?? "never"))</td>\(status(p, now: dashboard.now))</tr>\n"
            }
        }
        section(id: "days", heading: "Per participant and day", head: ["Participant", "Arm", "Day"] + dayColumns,
                rows: dashboard.participants.reduce(0) { $0 + (dashboard.participantDays[$1.id]?.count ?? 0) }, into: &body) { html in
            for p in dashboard.participants {
                let lead = "<td>\(e(short(p.id)))</td><td>\(e(p.arm))</td>"
                for day in dashboard.participantDays[p.id] ?? [] { appendRow(lead: lead, day, iso: iso, to: &html) }
            }
        }
        body += "<footer>amble-server; the figures are the uploads' as stored (docs/server.md, \"Dashboard\").</footer>"
        return HTMLPage.document(title: "\(dashboard.studyName): dashboard", body: body)
    }

    static let dayColumns = ["Walks", "Mindful min", "Within limit", "Surveys due", "Answered"]

    /// A row: `lead` (the cells naming the arm or participant), then the day's figures.
    static func appendRow(lead: String, _ day: Dashboard.Day, iso: [Int: String], to html: inout String) {
        html += "<tr>"
        html += lead
        html += "<td class=\"when\">"
        html += iso[day.day.daysSinceEpoch] ?? day.day.iso
        html += "</td><td class=\"num\">\(day.walks)</td><td class=\"num\">"
        html += n(day.mindfulSeconds / 60)
        html += "</td><td class=\"num\">"
        html += day.withinLimitShare.map { "\(Int(($0 * 100).rounded())) %" } ?? "–"
        html += "</td><td class=\"num\">"
        html += day.due.map(String.init) ?? "–"
        html += "</td><td class=\"num\">\(day.answered)</td></tr>\n"
    }

    static func status(_ p: Dashboard.Participant, now: Double) -> String {
        if let withdrawn = p.withdrawnAt { return "<td>withdrew \(HTMLPage.escape(time(withdrawn)))</td>" }
        let silent = p.silentDays(now: now) ?? 0
        return silent >= Dashboard.silentDays
            ? "<td class=\"flag\">silent \(Int(silent.rounded(.down))) days</td>"
            : "<td class=\"ok\">active</td>"
    }

    /// A table of `rows` rows, which `write` appends (or "none yet").
    static func section(id: String, heading: String, head: [String], rows: Int, into html: inout String, write: (inout String) -> Void) {
        html += "<section class=\"table\" id=\"\(id)\"><h2>\(HTMLPage.escape(heading))</h2><div class=\"scroll\"><table>\n<thead><tr>"
        html += head.map { "<th>\(HTMLPage.escape($0))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
        if rows == 0 { html += "<tr><td colspan=\"\(head.count)\">none yet</td></tr>\n" } else { write(&html) }
        html += "</tbody></table></div></section>\n"
    }

    /// The first 8 hex digits of a participant's id, as the dashboard names them.
    static func short(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }

    /// UTC, to the minute.
    static func time(_ unixSeconds: Double) -> String {
        let iso = isoDate(unixSeconds)
        return String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC"
    }
}
