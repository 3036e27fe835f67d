import AmbleLinux
import Foundation
import Testing

/// `PathProblem` (what is wrong with a path, naming the part at fault), `readWholeFile` and
/// `writeFile`. The permission cases need a user other than root: FileAccessTests runs the
/// built programs as one.
struct PathProblemTests {
    let base = NSTemporaryDirectory() + "amble-path-\(UUID().uuidString)"

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue) & 0o7777
    }

    @Test func theFirstPartAtFaultIsNamed() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/folder", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: base + "/file", contents: Data("x".utf8)))
        let cases: [(path: String, reading: PathProblem?, writing: PathProblem?)] = [
            (base + "/file", nil, nil),
            (base + "/none", PathProblem(path: base + "/none", kind: .missing), nil),
            (base + "/none/deeper/f", PathProblem(path: base + "/none", kind: .missing), PathProblem(path: base + "/none", kind: .missing)),
            (base + "/file/f", PathProblem(path: base + "/file", kind: .notAFolder), PathProblem(path: base + "/file", kind: .notAFolder)),
            (base + "/folder", PathProblem(path: base + "/folder", kind: .isAFolder), PathProblem(path: base + "/folder", kind: .isAFolder)),
        ]
        for (path, reading, writing) in cases {
            #expect(PathProblem.reading(path) == reading, "\(path)")
            #expect(PathProblem.writing(path) == writing, "\(path)")
        }
        #expect(PathProblem.writing(base + "/none/deeper/f", makingFolders: true) == nil)
        #expect(PathProblem.reading("/dev/null") == PathProblem(path: "/dev/null", kind: .notAFile))
        #expect(PathProblem(path: base + "/none", kind: .missing).sentence(given: base + "/none/f", orElse: "give --store another")
                == "\(base)/none does not exist; check the path, or give --store another")
        #expect(PathProblem(path: "/r", kind: .cannotEnter, owner: "root", mode: 0o40700, user: "nobody").sentence()
                == "the folder /r may not be entered by nobody (permission denied: it belongs to root, mode 0700); run it as root (the owner), or ask its owner to let you in")
    }

    @Test func aWholeFileIsReadOnlyUnderItsLimit() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: base + "/small", contents: Data(repeating: 65, count: 100)))
        #expect(try readWholeFile(atPath: base + "/small", limitBytes: 100) == [UInt8](repeating: 65, count: 100))
        #expect(throws: WholeFileError.tooLarge(path: base + "/small", bytes: 100, limitBytes: 99)) { try readWholeFile(atPath: base + "/small", limitBytes: 99) }
        #expect(throws: WholeFileError.path(PathProblem(path: base, kind: .isAFolder))) { try readWholeFile(atPath: base, limitBytes: 99) }
        #expect(throws: WholeFileError.path(PathProblem(path: "/dev/zero", kind: .notAFile)), "an endless device is not read") {
            try readWholeFile(atPath: "/dev/zero", limitBytes: 99)
        }
        #expect(WholeFileError.tooLarge(path: "b.toml", bytes: 52_428_800, limitBytes: 65_536).sentence(given: "b.toml")
                == "holds 52428800 bytes (50 MiB), more than the 65536 (64 KiB) such a file may hold; nothing of it was read")
    }

    @Test func aFileIsWrittenWholePrivateAndNeverOverAnotherUnlessAsked() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/report.html"
        try writeFile(Array("one".utf8), to: path, replacing: false, sharing: .ownerOnly)
        #expect(try mode(path) == 0o600)
        #expect(throws: FileWriteError.exists(path)) { try writeFile(Array("two".utf8), to: path, replacing: false, sharing: .ownerOnly) }
        #expect(FileManager.default.contents(atPath: path) == Data("one".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try writeFile(Array("two".utf8), to: path, replacing: true, sharing: .ownerOnly)
        #expect(FileManager.default.contents(atPath: path) == Data("two".utf8))
        #expect(try mode(path) == 0o600, "a replaced file is private too")
        #expect(throws: FileWriteError.path(PathProblem(path: base + "/none", kind: .missing))) {
            try writeFile(Array("x".utf8), to: base + "/none/r.html", replacing: true, sharing: .ownerOnly)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["report.html"], "no temporary file is left")
    }
}
