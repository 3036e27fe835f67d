import AmbleServer
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

/// The researcher's web login against the real server and database: the password checked
/// against the stored PBKDF2 hash, the cookie's attributes, the token stored only hashed and
/// with an expiry, logout, and another researcher's study refused as if it did not exist.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct ResearcherLoginTests {
    @Test func aLoginSetsAStrictHttpOnlySecureCookieStoredHashed() async throws {
        try await ServerFixture.run { server in
            #expect(try await server.login(password: "wrong horse battery").status == .unauthorized)
            #expect(try await server.login(name: "nobody").status == .unauthorized)
            // Names no researcher can have (PostgreSQL refuses NUL in text) are refused alike, not a server error.
            for name in ["ada\u{0}", String(repeating: "a", count: 81), "\u{7}"] {
                #expect(try await server.login(name: name).status == .unauthorized, "\(name.debugDescription)")
            }
            let response = try await server.login()
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/studies")
            let setCookie = try #require(response.headers[.setCookie])
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/", "Max-Age=28800"] {
                #expect(setCookie.contains(attribute), "\(setCookie)")
            }
            let token = try #require(ServerFixture.cookie(response)?.split(separator: "=", maxSplits: 1).last.map(String.init))
            var stored: [(ByteBuffer, Date)] = []
            for try await row in try await server.database.query("SELECT token_sha256, expires_at FROM researcher_sessions", logger: TestDatabase.logger)
                .decode((ByteBuffer, Date).self) { stored.append(row) }
            #expect(stored.count == 1)
            #expect(Array(stored[0].0.readableBytesView) == Array(SHA256.hash(data: Array(token.utf8))))
            #expect(stored[0].1.timeIntervalSince1970 == server.clock.now + 8 * 3600)
        }
    }

    @Test func pagesNeedALoginThatHasNotExpiredOrEnded() async throws {
        try await ServerFixture.run { server in
            let dashboard = "/studies/\(server.study.uuidString.lowercased())/dashboard"
            #expect(try await server.page(dashboard, cookie: nil).status == .unauthorized)
            #expect(try await server.page(dashboard, cookie: "amble_researcher=forged").status == .unauthorized)
            let cookie = try await server.loggedIn()
            #expect(try await server.page(dashboard, cookie: cookie).status == .ok)
            #expect(try await server.page("/studies", cookie: cookie).status == .ok)
            server.clock.advance(8 * 3600)
            let expired = try await server.page(dashboard, cookie: cookie)
            #expect(expired.status == .unauthorized && server.text(expired).contains("<form method=\"post\" action=\"/login\">"))
            let again = try await server.loggedIn()
            let logout = try await server.client.execute(uri: "/logout", method: .post, headers: [.cookie: again])
            #expect(logout.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await server.page(dashboard, cookie: again).status == .unauthorized)
            let export = try await server.page("/studies/\(server.study.uuidString.lowercased())/export?format=csv", cookie: again)
            #expect(export.status == .unauthorized)
        }
    }

    @Test func aResearcherSeesOnlyTheirOwnStudies() async throws {
        try await ServerFixture.run { server in
            try await server.admin.addResearcher(name: "bob", password: "another long password", rounds: 1000)
            let bobs = try await server.admin.createStudy(ServerFixture.studyDefinition(), owner: "bob")
            let cookie = try await server.loggedIn()
            for path in ["dashboard", "export?format=csv", "export?format=openmhealth"] {
                let response = try await server.page("/studies/\(bobs.uuidString.lowercased())/\(path)", cookie: cookie)
                #expect(response.status == .notFound, "\(path)")
                #expect(server.errorCode(response) == "unknown_study")
            }
            #expect(try await server.page("/studies/\(UUID().uuidString)/dashboard", cookie: cookie).status == .notFound)
            #expect(try await server.page("/studies/not-a-uuid/dashboard", cookie: cookie).status == .notFound)
            let list = server.text(try await server.page("/studies", cookie: cookie))
            #expect(list.contains(server.study.uuidString.lowercased()))
            #expect(!list.contains(bobs.uuidString.lowercased()))
            let bobsCookie = try await server.loggedIn(name: "bob", password: "another long password")
            #expect(try await server.page("/studies/\(bobs.uuidString.lowercased())/dashboard", cookie: bobsCookie).status == .ok)
        }
    }
}
