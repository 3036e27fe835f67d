#if canImport(Glibc)
import Glibc
#endif

/// This process's environment as a dictionary (the first value of a name given twice), for
/// the parts that read it as a value: `ServiceNotifier`, `standardErrorLogStyle`.
public func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            let name = String(text[..<equals])
            if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
        }
        cursor += 1
    }
    return result
}

/// The running program's file, symbolic links resolved (`/proc/self/exe`); nil when unknown.
public func currentExecutablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return cString(Array(buffer.prefix(count)) + [0])
}

/// The current directory (`getcwd(3)`); nil when it cannot be named (removed, say).
public func currentDirectoryPath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    return cString(buffer)
}

/// Whether something is at `path`, or may be: false only when it, or a folder on the way, is
/// missing or a file where a folder must be. A folder this user may not enter hides what is
/// in it, and a file this user may not read is there: `ambled` looks for its board with this,
/// so that an installed board it may not read is reported rather than passed over for the
/// simulated one.
public func somethingMayBeAt(_ path: String) -> Bool {
    guard let problem = PathProblem.reading(path) else { return true }
    return problem.kind != .missing && problem.kind != .notAFolder
}

/// This machine's host name (`gethostname`), or nil when the system gives none.
public func hostName() -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return nil }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? nil : name
}
