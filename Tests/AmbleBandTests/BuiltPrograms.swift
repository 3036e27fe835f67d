#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// How `runBuilt` runs a program: as this process does, or as a user without root's power over
/// files (permission bits do not stop root, and CI runs as root).
enum RunAs {
    case this
    /// As `nobody` (uid 65534) through `setpriv` when this runs as root; else as this user,
    /// whose own permission bits then stop it as well.
    case unprivileged
}

/// Whether `runBuilt(_:_:as: .unprivileged)` can run the built `amble`: not root, or root with
/// `setpriv` and a build folder that `nobody` may enter.
let unprivilegedRunIsPossible: Bool = {
    guard geteuid() == 0 else { return true }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), builtExecutable("amble") != nil else { return false }
    return (try? runBuilt("amble", ["--version"], as: .unprivileged).status) == 0
}()

/// The user `.unprivileged` runs as.
var unprivilegedUserName: String { geteuid() == 0 ? "nobody" : ProcessInfo.processInfo.userName }

/// Runs a built program (`amble`, `ambled`) with `arguments` and `input` on standard input, in
/// `directory` (default: this process's), under `umask` (through /bin/sh) when given; its
/// standard output, standard error and exit status.
func runBuilt(_ program: String, _ arguments: [String], input: String? = nil, as user: RunAs = .this,
              umask: Int? = nil, directory: String? = nil) throws -> (out: String, err: String, status: Int32) {
    var command = [try #require(builtExecutable(program))] + arguments
    if let umask { command = ["/bin/sh", "-c", "umask \(String(umask, radix: 8)) && exec \"$0\" \"$@\""] + command }
    if user == .unprivileged && geteuid() == 0 {
        command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe(), err = Pipe(), stdin = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self), process.terminationStatus)
}
