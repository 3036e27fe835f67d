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

/// Whether `path` is a regular file (symbolic links followed) this process can read.
public func isReadableFile(atPath path: String) -> Bool {
    var status = stat()
    if case .failure = Syscall.retrying({ stat(path, &status) }) { return false }
    guard status.st_mode & S_IFMT == S_IFREG else { return false }
    return access(path, R_OK) == 0
}
