import AmbleLinux
import Foundation
import Testing

/// `makeFolders`, where the stores' and the exports' folders are made.
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
        try makeFolders(base + "/share/amble")
        #expect(try mode(base) == 0o700)
        #expect(try mode(base + "/share") == 0o700)
        #expect(try mode(base + "/share/amble") == 0o700)
        try makeFolders(base + "/share/amble")
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
        try makeFolders(base + "/shared")
        #expect(try mode(base + "/shared") == 0o2775, "group access and setgid stay")
        #expect(try mode(base) == 0o755)
        try makeFolders(base + "/shared/new")
        #expect(try mode(base + "/shared/new") == 0o700, "a folder it makes is private")
        #expect(try mode(base + "/shared") == 0o2775)
        #expect(FileManager.default.contents(atPath: base + "/shared/amble.sqlite") == Data([1, 2, 3]), "what it holds stays")
    }

    @Test func sharedFoldersFollowTheUmask() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let umask = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) })
        try makeFolders(base + "/out", sharing: .umask)
        #expect(try mode(base + "/out") == 0o777 & ~umask)
    }

    @Test func namesWhatIsInTheWay() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try makeFolder(base, mode: 0o700)
        #expect(FileManager.default.createFile(atPath: base + "/share", contents: Data()))
        let error = try #require(throws: PathProblem.self) { try makeFolders(base + "/share/amble") }
        #expect(error == PathProblem(path: base + "/share", kind: .notAFolder))
        #expect(error.description == "\(base)/share is a file, not a folder; check the path")
        #expect(throws: PathProblem(path: base + "/share", kind: .notAFolder)) { try makeFolders(base + "/share") }
    }
}
