import AmbleServer
import Foundation
import PostgresNIO
import Testing

@Suite(.enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct AdminTests {
    @Test func passwordsAreStoredAsSlowHashesAndChecked() async throws {
        try await ServerFixture.run { f in
            #expect(try await f.admin.checkPassword(name: "ada", password: "correct horse battery"))
            #expect(try await !f.admin.checkPassword(name: "ada", password: "correct horse batterY"))
            #expect(try await !f.admin.checkPassword(name: "bob", password: "correct horse battery"))
            await #expect(throws: StoreError.researcherExists("ada")) {
                try await f.admin.addResearcher(name: "ada", password: "another long password", rounds: 1000)
            }
            await #expect(throws: StoreError.self) { try await f.admin.addResearcher(name: "bob", password: "short", rounds: 1000) }
            for try await (kdf, rounds, salt, hash) in try await f.database.query(
                "SELECT password_kdf, password_iterations, password_salt, password_hash FROM researchers").decode((String, Int, ByteBuffer, ByteBuffer).self) {
                #expect(kdf == "pbkdf2-sha256" && rounds == 1000 && salt.readableBytes == 16 && hash.readableBytes == 32)
            }
        }
    }

    @Test func codesAreStoredOnlyAsTheirHashes() async throws {
        try await ServerFixture.run { f in
            let codes = try await f.codes(20)
            var stored: [ByteBuffer] = []
            for try await hash in try await f.database.query("SELECT code_sha256 FROM join_codes").decode(ByteBuffer.self) { stored.append(hash) }
            #expect(stored.count == 20)
            let plain = Set(codes.map { Array($0.utf8) } + codes.map { Array($0.replacingOccurrences(of: "-", with: "").utf8) })
            #expect(stored.allSatisfy { !plain.contains(Array($0.readableBytesView)) })
            await #expect(throws: StoreError.noStudy("00000000-0000-0000-0000-000000000000")) {
                try await f.admin.generateCodes(study: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!, count: 1, expiresDays: 1, now: f.clock.now)
            }
        }
    }

    @Test func aStudyIsMadeFromTheExampleStudyFileForAKnownOwner() async throws {
        let definition = try StudyDefinition.load(path: "docs/study-example.toml")
        #expect(definition.name == "Mindful walking, two weeks")
        #expect(definition.arms.map(\.name) == ["mindful", "control"])
        #expect(definition.arms[1].bandSettings["alert_style"] == "silent")
        #expect(definition.consentVersion == "2026-02-01" && definition.consentText.count > 100)
        #expect(!definition.participantFileText.contains("seed") && !definition.participantFileText.contains("control"))
        try await ServerFixture.run { f in
            await #expect(throws: StoreError.noResearcher("nobody")) { try await f.admin.createStudy(definition, owner: "nobody") }
            let id = try await f.admin.createStudy(definition, owner: "ada")
            for try await (name, file) in try await f.database.query("SELECT name, study_file FROM studies WHERE id = \(id)").decode((String, String).self) {
                #expect(name == definition.name && file == definition.fileText)
            }
        }
    }
}
