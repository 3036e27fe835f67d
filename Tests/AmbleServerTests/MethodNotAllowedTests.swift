import AmbleServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// A method a known path does not take is 405 with `Allow` (schemathesis found 404 for
/// `TRACE /v1/token` and the like); an unknown path stays 404.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct MethodNotAllowedTests {
    @Test func aKnownPathWithAnotherMethodIs405WithAllow() async throws {
        try await ServerFixture.run { server in
            let cases: [(HTTPRequest.Method, String, String?)] = [
                (.trace, "/v1/token", "POST"), (.delete, "/v1/join/ABCDE-FGHIJ", "GET"), (.get, "/v1/items/session/\(itemID())", "PUT"),
                (.put, "/login", "GET, POST"), (.get, "/logout", "POST"), (.post, "/studies/x/export", "GET"),
                (.get, "/v1/nothing", nil), (.trace, "/studies/x/y", nil),
            ]
            for (method, path, allow) in cases {
                let response = try await server.client.execute(uri: path, method: method, headers: [:])
                #expect(response.status == (allow == nil ? .notFound : .methodNotAllowed), "\(method) \(path)")
                #expect(response.headers[.allow] == allow, "\(method) \(path)")
            }
        }
    }
}
