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
}
