#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleCompanion
import AmbleModel
import HTTPTypes
import Hummingbird

/// The researcher's pages (docs/server.md, "Researchers"): login and logout, their studies,
/// each study's dashboard and exports. A page of another researcher's study is 404.
struct ResearcherRoutes: Sendable {
    let server: StudyServer

    /// Participants a dashboard page shows at most.
    static let pageParticipants = 200
    static let maximumDays = 62

    func register(on router: Router<BasicRequestContext>) {
        router.get("login") { _, _ in Self.page(loginForm(message: nil), status: .ok) }
        router.post("login") { request, _ in try await login(request) }
        router.post("logout") { request, _ in
            try await server.endResearcherSession(request)
            var response = Self.redirect("/login")
            response.setCookie(server.loginCookie(""))
            return response
        }
        router.get("studies") { request, _ in
            guard let researcher = try await server.researcher(request) else { return loginPage() }
            return try await studies(researcher)
        }
        router.get("studies/:id/dashboard") { request, context in
            guard let researcher = try await server.researcher(request) else { return loginPage() }
            return try await dashboard(request, id: context.parameters.require("id"), researcher: researcher)
        }
        router.get("studies/:id/export") { request, context in
            guard let researcher = try await server.researcher(request) else { throw ServerError.notLoggedIn }
            let study = try await server.ownedStudy(context.parameters.require("id"), by: researcher)
            return try await server.export(StudyExportRequest(query: Self.query(request)), study: study, researcher: researcher)
        }
    }

    func login(_ request: Request) async throws -> Response {
        let bytes = try await Body.collect(request, limit: 4096)
        guard let form = try? URLEncodedFormDecoder().decode(ResearcherLogin.Form.self, from: String(decoding: bytes, as: UTF8.self)) else {
            return Self.page(loginForm(message: "Give your name and password."), status: .badRequest)
        }
        guard let researcher = try await server.checkResearcher(name: form.name, password: form.password) else {
            return Self.page(loginForm(message: "That name and password do not match a researcher here."), status: .unauthorized)
        }
        var response = Self.redirect("/studies")
        response.setCookie(server.loginCookie(try await server.startResearcherSession(researcher)))
        return response
    }

    func studies(_ researcher: AuthenticatedResearcher) async throws -> Response {
        var rows = ""
        for try await (id, name, participants) in try await server.researcherClient.query("""
            SELECT s.id, s.name, (SELECT count(*) FROM participants p WHERE p.study_id = s.id)
            FROM studies s WHERE s.owner_id = \(researcher.id) ORDER BY s.created_at, s.id
            """, logger: server.logger).decode((UUID, String, Int).self) {
            let link = "/studies/\(id.uuidString.lowercased())/dashboard"
            rows += "<tr><td><a href=\"\(link)\">\(HTMLPage.escape(name))</a></td><td class=\"num\">\(participants)</td></tr>\n"
        }
        let body = "<header><h1>Your studies</h1><p>logged in as \(HTMLPage.escape(researcher.name))</p></header>\n"
            + "<section class=\"table\"><table><thead><tr><th>Study</th><th class=\"num\">Participants</th></tr></thead><tbody>\n"
            + (rows.isEmpty ? "<tr><td colspan=\"2\">none yet (amble-server admin study create)</td></tr>\n" : rows)
            + "</tbody></table></section>\n<form method=\"post\" action=\"/logout\"><button type=\"submit\">Log out</button></form>"
        return Self.page(HTMLPage.document(title: "Your studies", body: body), status: .ok)
    }

    func dashboard(_ request: Request, id: String, researcher: AuthenticatedResearcher) async throws -> Response {
        let study = try await server.ownedStudy(id, by: researcher)
        let query = Self.query(request)
        let days = Int(query["days"] ?? "7") ?? 0
        guard (1 ... Self.maximumDays).contains(days) else {
            throw ServerError.badRequest("bad_days", "days=\(printableText(query["days"] ?? "")): give 1 to \(Self.maximumDays) days.")
        }
        var to: CivilDay?
        if let text = query["to"], !text.isEmpty {
            guard let day = CivilDay(parsing: text) else { throw ServerError.badRequest("bad_day", "to=\(printableText(text)): write the day as YYYY-MM-DD.") }
            to = day
        }
        let offset = max(0, Int(query["offset"] ?? "0") ?? 0)
        let dashboard = try await server.dashboard(study: study, timeZone: query["tz"].flatMap { $0.isEmpty ? nil : $0 } ?? "UTC",
                                                   to: to, days: days, offset: offset, limit: Self.pageParticipants)
        return Self.page(DashboardPage.html(dashboard, arms: study.arms.map(\.name), researcher: researcher.name), status: .ok)
    }

    /// What a page asks for without a login: 401 with the login form (a browser shows it; a
    /// client sees the refusal).
    func loginPage() -> Response {
        Self.page(loginForm(message: "Log in to see this page."), status: .unauthorized)
    }

    func loginForm(message: String?) -> String {
        let body = "<header><h1>amble-server</h1><p>Researchers log in here.</p></header>\n"
            + (message.map { "<p role=\"alert\"><strong>\(HTMLPage.escape($0))</strong></p>\n" } ?? "")
            + "<form method=\"post\" action=\"/login\"><p><label>Name <input name=\"name\" autocomplete=\"username\" required></label></p>"
            + "<p><label>Password <input name=\"password\" type=\"password\" autocomplete=\"current-password\" required></label></p>"
            + "<p><button type=\"submit\">Log in</button></p></form>"
        return HTMLPage.document(title: "amble-server: log in", body: body)
    }

    /// The request's query as name to value (the last of a repeated name).
    static func query(_ request: Request) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { values[String(name)] = String(value) }
        return values
    }

    /// An HTML page; never cached, never framed, no script and nothing fetched (the policy says so to the browser).
    static func page(_ html: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}
