import AmbleServer
import AmbleStudyAPI
import Foundation
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct JoinCodeTests {
    @Test func aCodeIsUsedOnceAndThenUnknown() async throws {
        try await ServerFixture.run { f in
            let codes = try await f.codes(2)
            #expect(Set(codes).count == 2)
            #expect(codes.allSatisfy { $0.count == 11 && $0.split(separator: "-").map(\.count) == [5, 5] })
            #expect(try await f.join(codes[0]).status == .created)
            let again = try await f.join(codes[0])
            #expect(again.status == .notFound)
            #expect(f.errorCode(again) == "unknown_code")
            #expect(try await f.get("/v1/join/\(codes[0])").status == .notFound)
            #expect(try await f.join(codes[1]).status == .created)
        }
    }

    @Test func anExpiredUnknownOrMalformedCodeIsRefusedAlike() async throws {
        try await ServerFixture.run { f in
            let code = try await f.codes(1, expiresDays: 2)[0]
            f.clock.advance(2 * 86_400 - 1)
            #expect(try await f.get("/v1/join/\(code)").status == .ok)
            f.clock.advance(1)
            for typed in [code, "AAAAA-AAAAA", "not a code", String(repeating: "A", count: 5000)] {
                #expect(try await f.get("/v1/join/\(typed.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)").status == .notFound)
                let response = try await f.join(typed)
                #expect(response.status == .notFound, "\(typed.prefix(20))")
                #expect(f.errorCode(response) == "unknown_code")
            }
        }
    }
}
