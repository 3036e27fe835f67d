#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a file could not be read whole: its path (missing, a folder, closed to this user, ...)
/// or more bytes than the reader takes.
public enum WholeFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case path(PathProblem)
    /// The file holds `bytes` bytes, over `limitBytes`; nothing of it was read.
    case tooLarge(path: String, bytes: Int64, limitBytes: Int)

    /// The problem without the file's own path (a message that names the file already).
    public func sentence(given: String) -> String {
        switch self {
        case .path(let problem): return problem.sentence(given: given)
        case .tooLarge(_, let bytes, let limit):
            return "holds \(bytes) bytes (\(byteCount(bytes))), more than the \(limit) (\(byteCount(Int64(limit)))) such a file may hold; nothing of it was read"
        }
    }

    /// `sentence(given:)` with what the reader of such a file should know: where such files
    /// are, for a path problem ("boards/ holds one file per board"), or how large one usually
    /// is, for a file over the limit ("a board file is 1-2 kB").
    public func sentence(given: String, whereTheyAre: String, usualSize: String) -> String {
        switch self {
        case .path: return sentence(given: given) + " (\(whereTheyAre))"
        case .tooLarge: return sentence(given: given) + "; \(usualSize)"
        }
    }

    public var description: String {
        switch self {
        case .path(let problem): return problem.description
        case .tooLarge(let path, _, _): return "\(path) " + sentence(given: path)
        }
    }
}

/// The bytes of the file at `path`, read whole, when it is a plain file of at most
/// `limitBytes` bytes. The size is checked before anything is read (and again while reading,
/// should the file grow), so a huge or endless file costs nothing; a pipe or device is refused
/// without waiting on it. Throws `WholeFileError`, whose path problems say which folder or
/// file is at fault and why.
public func readWholeFile(atPath path: String, limitBytes: Int) throws(WholeFileError) -> [UInt8] {
    let fd: Int32
    switch Syscall.retrying({ open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }) {
    case .success(let opened): fd = opened
    case .failure(let error): throw .path(PathProblem.reading(path) ?? PathProblem(path: path, kind: .failed(error)))
    }
    defer { closeDescriptor(fd) }
    var status = stat()
    if case .failure(let error) = Syscall.retrying({ fstat(fd, &status) }) { throw .path(PathProblem(path: path, kind: .failed(error))) }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw .path(PathProblem(path: path, kind: .isAFolder))
    default: throw .path(PathProblem(path: path, kind: .notAFile))
    }
    guard status.st_size <= Int64(limitBytes) else { throw .tooLarge(path: path, bytes: Int64(status.st_size), limitBytes: limitBytes) }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
    var count = 0
    while true {
        if count == bytes.count {
            guard count <= limitBytes else { throw .tooLarge(path: path, bytes: Int64(count), limitBytes: limitBytes) }
            bytes.append(contentsOf: repeatElement(0, count: min(limitBytes + 1 - count, max(4096, count))))
        }
        let result = bytes.withUnsafeMutableBytes { buffer in
            Syscall.retrying { read(fd, buffer.baseAddress! + count, buffer.count - count) }
        }
        switch result {
        case .success(0): return Array(bytes.prefix(count))
        case .success(let read): count += read
        case .failure(let error): throw .path(PathProblem(path: path, kind: .failed(error)))
        }
    }
}

/// A byte count for people: "812 bytes", "64 KiB", "1.5 MiB".
func byteCount(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) bytes" }
    if bytes < 1024 * 1024 { return "\((bytes + 512) / 1024) KiB" }
    let tenths = (bytes * 10 + 512 * 1024) / (1024 * 1024)
    return tenths % 10 == 0 ? "\(tenths / 10) MiB" : "\(tenths / 10).\(tenths % 10) MiB"
}
