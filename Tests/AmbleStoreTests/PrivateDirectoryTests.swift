import AmbleLinux
import Foundation
import Testing

/// `makePrivateDirectory`, where the stores' folders are made.
struct PrivateDirectoryTests {
    let base = NSTemporaryDirectory() + "amble-dir-\(UUID().uuidString)"

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue) & 0o7777
    }

    func makeFolder(_ path: String, mode: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func createsEveryMissingFolderOwnerOnly() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try makePrivateDirectory(base + "/share/amble")
        #expect(try mode(base) == 0o700)
        #expect(try mode(base + "/share") == 0o700)
        #expect(try mode(base + "/share/amble") == 0o700)
        try makePrivateDirectory(base + "/share/amble")
        #expect(try mode(base + "/share/amble") == 0o700, "done twice, the same")
    }

    /// Found by an outside trial (issue 31): `amble pair --store DIR/x.sqlite` made an existing
    /// DIR 0700, dropping its group's access and its setgid bit (the current folder, for
    /// `./x.sqlite`). Only folders Amble makes are its to tighten.
    @Test func leavesEveryFolderThatIsThereAsItIs() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try makeFolder(base, mode: 0o755)
        try makeFolder(base + "/shared", mode: 0o2775)
        #expect(FileManager.default.createFile(atPath: base + "/shared/amble.sqlite", contents: Data([1, 2, 3])))
        try makePrivateDirectory(base + "/shared")
        #expect(try mode(base + "/shared") == 0o2775, "group access and setgid stay")
        #expect(try mode(base) == 0o755)
        try makePrivateDirectory(base + "/shared/new")
        #expect(try mode(base + "/shared/new") == 0o700, "a folder it makes is private")
        #expect(try mode(base + "/shared") == 0o2775)
        #expect(FileManager.default.contents(atPath: base + "/shared/amble.sqlite") == Data([1, 2, 3]), "what it holds stays")
    }

    @Test func namesWhatIsInTheWay() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try makeFolder(base, mode: 0o700)
        #expect(FileManager.default.createFile(atPath: base + "/share", contents: Data()))
        let error = try #require(throws: PathProblem.self) { try makePrivateDirectory(base + "/share/amble") }
        #expect(error == PathProblem(path: base + "/share", kind: .notAFolder))
        #expect(error.description == "\(base)/share is a file, not a folder; check the path")
        #expect(throws: PathProblem(path: base + "/share", kind: .notAFolder)) { try makePrivateDirectory(base + "/share") }
    }
}
