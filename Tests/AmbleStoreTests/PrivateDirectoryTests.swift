import AmbleLinux
import Foundation
import Testing

/// `makePrivateDirectory`, where the stores' folders are made.
struct PrivateDirectoryTests {
    let base = NSTemporaryDirectory() + "amble-dir-\(UUID().uuidString)"

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
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
        #expect(try mode(base + "/share/amble") == 0o700, "done twice, same")
    }

    @Test func tightensTheFinalFolderOnly() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try makeFolder(base, mode: 0o755)
        try makeFolder(base + "/amble", mode: 0o775)
        #expect(FileManager.default.createFile(atPath: base + "/amble/amble.sqlite", contents: Data([1, 2, 3])))
        try makePrivateDirectory(base + "/amble")
        #expect(try mode(base + "/amble") == 0o700)
        #expect(try mode(base) == 0o755, "a folder above is not ours to change")
        #expect(FileManager.default.contents(atPath: base + "/amble/amble.sqlite") == Data([1, 2, 3]), "what it holds stays")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.userName == "root", "giving a folder away needs root"))
    func leavesSomeoneElsesFolderAsItIs() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try makeFolder(base, mode: 0o755)
        try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: base)
        try makePrivateDirectory(base)
        #expect(try mode(base) == 0o755)
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
