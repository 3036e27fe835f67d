@testable import AmbleCLI
@testable import AmbleCompanion
@testable import AmbleCompanionStore
import AmbleLinux
import AmbleModel
import Foundation
import Testing

/// Files and folders as both programs use them, run as built (found by an outside trial,
/// issue 31): what a user may not enter or write is named as such, a store the user may only
/// read can be reviewed, a failed pairing leaves nothing, and health data is written private.
struct FileAccessTests {
    let base = NSTemporaryDirectory() + "amble-access-\(UUID().uuidString)"

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue) & 0o7777
    }

    /// Makes a folder with `mode` (its parent must be there: a folder made on the way would
    /// take the umask, which a store being opened elsewhere in this process may have changed).
    func makeFolder(_ path: String, mode: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// Removes `base`, opening what a test closed (a user other than root must, to remove it).
    func cleanUp() {
        for folder in (try? FileManager.default.subpathsOfDirectory(atPath: base)) ?? [] {
            try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: base + "/" + folder)
        }
        try? FileManager.default.removeItem(atPath: base)
    }

    /// A store with a mindful walk (with raw samples) in March 2026, a challenge over that
    /// week, and the example study joined.
    func healthStore(_ path: String) throws {
        let store = try CompanionStore(path: path)
        let start = GoalsTests.utc(2026, 3, 3, 8)
        _ = try StartChallengeCommand.start(store: store, weeks: 1, walksPerWeek: 1, nowUnixSeconds: start - 86_400, time: .utc)
        let seconds = (0 ..< 60).map { SessionSecond(offsetSeconds: $0, steps: 2, cadenceStepsPerMinute: 100, heartRateBPM: 80, heartRateConfidence: 0.9) }
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        let raw = [RawBlock(sensor: .accelerometer, startMilliseconds: 0, rateMillihertz: 50_000, channels: 3, values: [0, 0, 1000, 10, -20, 990])]
        let summary = SessionTally(seconds).summary(kind: .mindfulWalk, startUnixSeconds: start, endUnixSeconds: start + 60, parameters: parameters)
        _ = try store.insert(bandID: GoalsTests.band.id, bandName: GoalsTests.band.name, bandSessionID: 1,
                             record: SessionRecord(summary: summary, seconds: seconds, raw: raw), syncedAtUnixSeconds: start + 3600)
        let text = try String(contentsOfFile: repositoryPath("docs/study-example.toml"), encoding: .utf8)
        try store.joinStudy(participantID: "P01", studyName: try StudyFile.parse(text: text, file: "s.toml").name,
                            fileName: "study-example.toml", fileText: text, nowUnixSeconds: start)
    }

    /// Every file each writer makes under umask 000 is 0600 in folders it made 0700; with
    /// `--shared`, they follow the umask. Before, they were 0666 (0644 under umask 022).
    @Test(.enabled(if: builtExecutable("amble") != nil, "amble is not built; run `swift build` first"))
    func healthDataIsWrittenPrivateWhateverTheUmask() throws {
        defer { cleanUp() }
        try makeFolder(base, mode: 0o755)
        let store = base + "/amble.sqlite"
        try healthStore(store)
        let out = base + "/out"
        var commands = ExportFormat.available.map { ["export", "--format", $0.rawValue, "--out", out + "/export/" + $0.rawValue] }
        commands += [["report", "latest", "--html", out + "/report.html"], ["challenge", "report", "latest", "--html", out + "/challenge.html"],
                     ["study", "export", "--out", out + "/study"], ["sessions", "export", "latest", "--raw", "steps", "--output", out + "/raw.csv"]]
        for command in commands {
            let run = try runBuilt("amble", ["--store", store] + command, umask: 0)
            #expect(run.status == 0, "\(command): \(run.err)")
        }
        let written = try FileManager.default.subpathsOfDirectory(atPath: out).map { out + "/" + $0 } + [out]
        #expect(written.count >= commands.count + 8, "\(written)")
        for path in written {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            #expect(try mode(path) == (isFolder.boolValue ? 0o700 : 0o600), "\(path)")
        }
        let shared = try runBuilt("amble", ["--store", store, "export", "--format", "csv", "--out", base + "/shared/csv", "--shared"], umask: 0o022)
        #expect(shared.status == 0, "\(shared.err)")
        #expect(try mode(base + "/shared") == 0o755)
        #expect(try mode(base + "/shared/csv/amble-sessions.csv") == 0o644)
    }

    /// `amble pair --store DIR/x.sqlite` made an existing DIR 0700 (dropping its group and
    /// setgid bits), even when pairing failed, and left a new store. Now a failed pairing
    /// leaves every folder as it was and makes nothing.
    @Test(.enabled(if: builtExecutable("amble") != nil, "amble is not built; run `swift build` first"))
    func aFailedPairingLeavesNoStoreAndEveryFolderAsItWas() throws {
        defer { cleanUp() }
        try makeFolder(base, mode: 0o2775)
        for store in ["x.sqlite", "./x.sqlite", base + "/x.sqlite", base + "/new/deeper/x.sqlite"] {
            let run = try runBuilt("amble", ["--store", store, "pair", "--tcp", "127.0.0.1:9", "--timeout", "2"], directory: base)
            #expect(run.status != 0 && run.err.contains("cannot reach the band"), "\(store): \(run.err)")
            #expect(try mode(base) == 0o2775, "\(store)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: base).isEmpty, "\(store)")
        }
    }

    /// A folder the user may not enter was reported as missing ("no store at", "cannot read
    /// the board file; check the path"), and ambled on a data folder it may not write said
    /// "Permission denied (errno 13)". Now the folder at fault is named, with why and what to do.
    @Test(.enabled(if: unprivilegedRunIsPossible && builtExecutable("ambled") != nil, "cannot run the built programs as a user other than root"))
    func whatTheUserMayNotEnterOrWriteIsNamedWithWhatToDo() throws {
        defer { cleanUp() }
        let closed = base + "/closed", readOnly = base + "/read-only", sim = repositoryPath("boards/sim.toml")
        try makeFolder(base, mode: 0o755)
        try makeFolder(closed, mode: 0o000)
        try makeFolder(readOnly, mode: 0o555)
        let me = userName(geteuid()), user = unprivilegedUserName
        let enter = "the folder \(closed) may not be entered by \(user) (permission denied: it belongs to \(me), mode 0000); run it as \(me) (the owner), or ask its owner to let you in"
        let write = "\(readOnly) may not be written by \(user) (permission denied: it belongs to \(me), mode 0555); run it as \(me) (the owner), or give --data-dir a folder you can write"
        let cases: [(program: String, arguments: [String], error: String)] = [
            ("amble", ["--store", closed + "/amble.sqlite", "sessions", "list"], "cannot open the store \(closed)/amble.sqlite: " + enter + ", or give --store another store"),
            ("amble", ["--store", base + "/s.sqlite", "study", "join", closed + "/study.toml"], "\(closed)/study.toml: " + enter),
            ("amble", ["analyze", "steps", closed + "/walk.csv"], enter),
            ("ambled", ["--board", closed + "/board.toml"], "\(closed)/board.toml: " + enter),
            ("ambled", ["--board", sim, "--data-dir", readOnly, "--no-keyboard"], "ambled cannot write its data folder: " + write),
            ("ambled", ["--board", sim, "--data-dir", readOnly + "/new", "--no-keyboard"], "ambled cannot make its data folder: " + write),
        ]
        for (program, arguments, error) in cases {
            let run = try runBuilt(program, arguments, as: .unprivileged)
            #expect(run.status != 0 && run.err.contains(error), "\(program) \(arguments): \(run.err)")
        }
    }

    /// A store the user may read but not write could not be reviewed ("read-only here …
    /// nothing could be written": SQLite could not make its WAL index beside it), and reading
    /// commands left -wal and -shm files beside a store. Now it is read as it is, writing nothing.
    @Test(.enabled(if: unprivilegedRunIsPossible, "cannot run the built programs as a user other than root"))
    func aStoreTheUserMayOnlyReadIsReviewedWritingNothingBesideIt() throws {
        defer { cleanUp() }
        let theirs = base + "/theirs", mine = base + "/mine"
        try makeFolder(base, mode: 0o755)
        try makeFolder(theirs, mode: 0o755)
        try makeFolder(mine, mode: 0o777)
        try healthStore(theirs + "/amble.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: theirs + "/amble.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: theirs)
        for command in [["sessions", "list"], ["sessions", "show", "latest"], ["goals"], ["report", "latest", "--html", mine + "/walk.html"],
                        ["export", "--format", "csv", "--out", mine + "/csv"]] {
            let run = try runBuilt("amble", ["--store", theirs + "/amble.sqlite"] + command, as: .unprivileged)
            #expect(run.status == 0, "\(command): \(run.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: theirs) == ["amble.sqlite"], "\(command)")
        }
        #expect(FileManager.default.fileExists(atPath: mine + "/csv/amble-seconds.csv"))
    }
}
