import AmbleLinux
import Foundation
import Testing

/// Files and folders as both programs use them, run as built (found by an outside trial,
/// issue 31): what a user may not enter or write is named as such, and a failed pairing leaves
/// nothing.
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
}
