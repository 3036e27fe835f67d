import AmbleServer
import Foundation
import HummingbirdTesting
import PostgresNIO
import Testing

/// The researchers' pool apart from the participants' (docs/server-operations.md, "Connections"):
/// a backlog of uploads that holds every participant connection does not hold up a researcher.
@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct ConnectionPoolTests {
    static let participantConnections = 2

    @Test func aResearcherIsAnsweredWhileEveryParticipantConnectionIsHeld() async throws {
        try await ServerFixture.run(pools: (participants: Self.participantConnections, researchers: 1)) { fixture in
            let participant = try await fixture.joined()
            try await fixture.uploadWalk(participant, start: ServerFixture.start + 60)
            let (held, holding) = AsyncStream.makeStream(of: Int.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Every connection of the participants' pool leased and kept (as uploads queued
                // behind a backlog keep them) until the group is cancelled.
                for _ in 0 ..< Self.participantConnections {
                    group.addTask {
                        try await fixture.database.withConnection { connection in
                            holding.yield(connection.id)
                            try? await Task.sleep(for: .seconds(86_400))
                        }
                    }
                }
                var connections = Set<Int>()
                for await id in held {
                    connections.insert(id)
                    if connections.count == Self.participantConnections { break }
                }
                #expect(connections.count == Self.participantConnections, "the participants' pool is full")

                let study = "/studies/\(fixture.study.uuidString.lowercased())"
                let answers = try await Self.unlessStuck {
                    let cookie = try await fixture.loggedIn()
                    return [
                        try await fixture.page("/studies", cookie: cookie),
                        try await fixture.page("\(study)/dashboard?days=3&to=2026-02-26", cookie: cookie),
                        try await fixture.page("\(study)/export?format=csv&table=sessions", cookie: cookie),
                    ]
                }
                #expect(answers.map(\.status) == [.ok, .ok, .ok])
                #expect(fixture.text(answers[2]).split(separator: "\n").count == 2, "the header and the walk")
                group.cancelAll()
            }
        }
    }

    /// `body`'s result; fails the test rather than hang when it waits forever (a researcher's
    /// request queued behind the held connections never gets one).
    static func unlessStuck<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            defer { group.cancelAll() }
            return try #require(try await group.next() ?? nil, "no answer while the participants' pool was full")
        }
    }
}
