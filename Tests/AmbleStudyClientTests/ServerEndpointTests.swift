@testable import AmbleCLI
import Testing

/// The join link: https with a pinned certificate, plain http only on this machine.
struct ServerEndpointTests {
    static let pin = String(repeating: "ab", count: 32)

    @Test func linksThatAreTaken() throws {
        let table: [(String, String?, ServerEndpoint)] = [
            ("https://study.example.org:8443/#sha256=\(Self.pin)", nil, ServerEndpoint(secure: true, host: "study.example.org", port: 8443, fingerprint: Self.pin)),
            ("https://Study.Example.org", Self.pin.uppercased(), ServerEndpoint(secure: true, host: "study.example.org", port: 443, fingerprint: Self.pin)),
            ("https://[::1]:9000#sha256=\(Self.pin)", nil, ServerEndpoint(secure: true, host: "::1", port: 9000, fingerprint: Self.pin)),
            ("https://10.1.2.3:8443", nil, ServerEndpoint(secure: true, host: "10.1.2.3", port: 8443, fingerprint: nil)),
            ("http://127.0.0.1:8080/", nil, ServerEndpoint(secure: false, host: "127.0.0.1", port: 8080, fingerprint: nil)),
            ("http://localhost:8080", nil, ServerEndpoint(secure: false, host: "localhost", port: 8080, fingerprint: nil)),
        ]
        for (text, fingerprint, expected) in table {
            #expect(try ServerEndpoint(parsing: text, fingerprint: fingerprint) == expected, "\(text)")
        }
        #expect(try ServerEndpoint(parsing: "https://[::1]:9000").baseURL == "https://[::1]:9000")
    }

    @Test func linksThatAreRefusedSayWhy() {
        let table: [(String, String?, String)] = [
            ("http://study.example.org:8080", nil, "plain http is only for a server on this machine"),
            ("http://127.0.0.1:8080#sha256=\(Self.pin)", nil, "use https://"),
            ("https://h:8443#sha256=abc", nil, "must be 64 hex digits"),
            ("https://h:8443#sha256=\(Self.pin)", String(repeating: "cd", count: 32), "differ"),
            ("https://h:8443#key=1", nil, "sha256=HEX"),
            ("ftp://h", nil, "not a server address"),
            ("https://h:99999", nil, "not 1 to 65535"),
            ("https://h:8443/v1/join", nil, "without a path"),
            ("https://user@h", nil, "without a path, user or query"),
        ]
        for (text, fingerprint, words) in table {
            do {
                _ = try ServerEndpoint(parsing: text, fingerprint: fingerprint)
                Issue.record("\(text) was taken")
            } catch {
                #expect(error.description.contains(words), "\(text): \(error.description)")
            }
        }
    }
}
