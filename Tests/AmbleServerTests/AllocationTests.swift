import AmbleServer
import AmbleStudyAPI
import PostgresNIO
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct AllocationTests {
    /// Twelve joins into two arms with blocks of four: six each, every block balanced, each
    /// recorded with its index and time; the participant learns only the arm's settings.
    @Test func joinsAreAllocatedInBalancedBlocks() async throws {
        try await ServerFixture.run { f in
            var settingsSeen: [String: Int] = [:]
            for code in try await f.codes(12) {
                f.clock.advance(1)
                let joined = try f.decode(JoinResponse.self, try await f.join(code))
                settingsSeen[joined.bandSettings["alert_style"] ?? "?", default: 0] += 1
            }
            var arms: [String] = []
            for try await (arm, index) in try await f.database.query(
                "SELECT arm_name, allocation_index FROM participants ORDER BY allocation_index").decode((String, Int).self) {
                #expect(index == arms.count)
                arms.append(arm)
            }
            #expect(arms.count == 12)
            for block in stride(from: 0, to: 12, by: 4) {
                let slice = arms[block ..< block + 4]
                #expect(slice.filter { $0 == "walk" }.count == 2, "block at \(block): \(slice)")
            }
            #expect(settingsSeen == ["firm": 6, "silent": 6])
        }
    }

    /// With strata, each stratum has its own sequence of blocks: four women and four men joining
    /// interleaved are each two to two, and each row records its stratum.
    @Test func eachStratumIsBalancedOnItsOwn() async throws {
        try await ServerFixture.run(ServerFixture.studyDefinition(strata: "[\"sex\"]")) { f in
            for (i, code) in try await f.codes(8).enumerated() {
                let request = JoinRequest(code: code, consentVersion: f.consent.version, consentSHA256: f.consent.sha256,
                                          acceptedAt: f.clock.now, strata: ["sex": i % 2 == 0 ? "f" : "m"])
                #expect(try await f.post("/v1/join", request).status == .created)
            }
            var arms: [String: [String]] = [:]
            for try await (stratum, arm) in try await f.database.query(
                "SELECT stratum, arm_name FROM participants ORDER BY stratum, allocation_index").decode((String, String).self) {
                arms[stratum, default: []].append(arm)
            }
            #expect(Set(arms.keys) == ["sex=f", "sex=m"])
            for (stratum, list) in arms { #expect(list.count == 4 && list.filter { $0 == "walk" }.count == 2, "\(stratum): \(list)") }
        }
    }
}
