@testable import AmbleBandStore
@testable import AmbleCompanionStore
import AmbleModel
import AmbleSQLite
import Testing

/// Where a database at an earlier schema version comes from.
enum EarlierDatabase: String, CaseIterable, Sendable {
    /// The fixture as it is: tables and rows made by the build that shipped the version.
    case shippedBuild
    /// Today's frozen migrations up to the version, then that build's rows inserted as SQL.
    case frozenMigrations
}

/// Databases made at every earlier schema version open with today's code with nothing lost;
/// the frozen SQL of each shipped migration makes the schema the shipped build made.
struct StoreUpgradeTests {
    /// The versions builds have shipped, by store (the fixtures in Fixtures/).
    static let shippedVersions = ["v1", "v2-energy"]

    // MARK: Frozen migrations against the shipped builds

    @Test(arguments: shippedVersions)
    func companionFrozenSQLMakesTheShippedSchema(version: String) throws {
        try expectSameSchema(fixture: "companion-" + version) { path in _ = try CompanionStore(path: path, upTo: version) }
    }

    @Test(arguments: shippedVersions)
    func bandFrozenSQLMakesTheShippedSchema(version: String) throws {
        try expectSameSchema(fixture: "band-" + version) { path in _ = try BandStore(path: path, upTo: version) }
    }

    private func expectSameSchema(fixture: String, frozen: (String) throws -> Void) throws {
        let shipped = TemporaryDatabase()
        try loadFixture(fixture, into: shipped.path)
        let made = TemporaryDatabase()
        try frozen(made.path)
        let expected = try shipped.read(schema)
        #expect(expected.count >= 6, "the fixture has tables and their indexes")
        #expect(try made.read(schema) == expected)
        #expect(try made.read(recordedMigrations) == shipped.read(recordedMigrations))
    }

    // MARK: Upgrades

    @Test(arguments: shippedVersions, EarlierDatabase.allCases)
    func companionUpgradesWithNothingLost(version: String, source: EarlierDatabase) throws {
        let file = TemporaryDatabase()
        try makeEarlier(file, fixture: "companion-" + version, source: source) { path in
            _ = try CompanionStore(path: path, upTo: version)
        }
        try expectNothingLostOnUpgrade(file, versions: CompanionStore.versions) { path in _ = try CompanionStore(path: path) }

        let store = try CompanionStore(path: file.path)
        let left = "0b6c8a52-5d0e-4a3c-9f1e-2f4a8d7c6e10", spare = "7d41e0c3-9a2b-4f65-8c17-5e3b9a0d2f84"
        let expected = FixtureSessions(withEnergy: version != "v1")
        let sessions = try store.sessions()
        #expect(sessions.map(\.bandID) == [left, left, spare])
        #expect(sessions.map(\.bandName) == ["Left wrist", "Left wrist", "Spare"])
        #expect(sessions.map(\.bandSessionID) == [1, 2, 5])
        #expect(sessions.map(\.summary) == [expected.calibration.summary, expected.walk.summary, expected.walk.summary])
        #expect(try store.session(id: sessions[0].id)?.1 == expected.calibration.seconds)
        #expect(try store.session(id: sessions[2].id)?.1 == Array(expected.walk.seconds.prefix(4)))
        #expect(try store.storedBandSessionIDs(bandID: left) == [1, 2])
        #expect(try store.pairedBands().isEmpty, "no band was paired before v3-pairing")
        #expect(try store.syncCursor(bandID: left) == 0)
        // The upgraded store takes what the new version brings.
        try store.pairBand(id: spare, name: "Spare", publicKey: Array(repeating: 7, count: 32), address: "/dev/ttyUSB0", nowUnixSeconds: 9)
        #expect(try store.pairedBands().map(\.sessionCount) == [1])
    }

    @Test(arguments: shippedVersions, EarlierDatabase.allCases)
    func bandUpgradesWithNothingLost(version: String, source: EarlierDatabase) throws {
        let file = TemporaryDatabase()
        try makeEarlier(file, fixture: "band-" + version, source: source) { path in _ = try BandStore(path: path, upTo: version) }
        let bandID = try #require(try file.read { db in
            try String.fetchOne(db, sql: #"SELECT "value" FROM "setting" WHERE "key" = 'band_id'"#)
        })
        // Migrations only: opening with `BandStore(path:)` also closes the session left open.
        try expectNothingLostOnUpgrade(file, versions: BandStore.versions) { path in
            _ = try BandStore(path: path, upTo: BandStore.versions.last!)
        }

        let store = try BandStore(path: file.path)
        let expected = FixtureSessions(withEnergy: version != "v1")
        let sessions = try store.finishedSessions()
        try #require(sessions.map(\.id) == [1, 2, 3])
        #expect(sessions[0].summary == expected.calibration.summary)
        #expect(sessions[1].summary == expected.walk.summary)
        let cutShort = fixtureSeconds(3, cadence: 95)
        #expect(sessions[2].summary == SessionTally(cutShort).summary(
            kind: .mindfulWalk, startUnixSeconds: FixtureSessions.start + 7200, endUnixSeconds: FixtureSessions.start + 7203,
            parameters: FixtureSessions.walkParameters), "the session the band lost power in is closed from its seconds")
        #expect(sessions.allSatisfy { $0.syncedUnixSeconds == nil })
        #expect(try store.session(id: 2)?.seconds == expected.walk.seconds)
        #expect(try store.session(id: 3)?.seconds == cutShort)
        #expect(try store.sessionsWithoutData() == [1, 2, 3], "earlier builds kept no encoded session data")
        #expect(try store.identity(defaultName: "Amble band") == BandIdentity(id: bandID, name: "Left wrist"))
        #expect(try store.loadCalibration() == Calibration(cadenceStepsPerMinute: 112.5, stepLengthMeters: 0.72,
                                                           unixSeconds: FixtureSessions.start + 6))
        #expect(try store.calibrations().count == 1, "the calibration kept as a setting became the first of the history")
        #expect(try store.setting(.reductionPercent) == "25")
        #expect(try store.setting(.bandName) == "Left wrist")
    }

    /// Makes `file` a database at an earlier version, from the shipped build's fixture or from
    /// today's frozen migrations (`frozen`) filled with that build's rows.
    private func makeEarlier(_ file: TemporaryDatabase, fixture: String, source: EarlierDatabase,
                             frozen: (String) throws -> Void) throws {
        switch source {
        case .shippedBuild:
            try loadFixture(fixture, into: file.path)
        case .frozenMigrations:
            try frozen(file.path)
            let rows = try fixtureRowsSQL(fixture)
            try file.write { db in try db.execute(sql: rows) }
        }
    }

    /// Upgrades `file` with `open` and checks that every row keeps every value it had, that
    /// every migration is recorded, and that the schema is the one a new store gets.
    private func expectNothingLostOnUpgrade(_ file: TemporaryDatabase, versions: [String], open: (String) throws -> Void) throws {
        let earlierColumns = try file.read(columnsByTable)
        let before = try file.read { db in try contents(db, tables: earlierColumns) }
        #expect(before.values.map(\.count).reduce(0, +) >= 20, "the earlier database has rows to lose")
        try open(file.path)
        let after = try file.read { db in try contents(db, tables: earlierColumns) }
        #expect(after == before)
        #expect(try file.read(recordedMigrations) == versions)
        let fresh = TemporaryDatabase()
        try open(fresh.path)
        #expect(try file.read(schema) == fresh.read(schema))
    }
}
