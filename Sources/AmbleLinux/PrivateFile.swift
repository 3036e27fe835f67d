#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who may read the files a command writes, and enter the folders it makes for them.
public enum FileSharing: Sendable {
    /// The user alone: files 0600, folders made 0700, whatever the umask. The default for
    /// everything that holds health data (exports, reports, raw samples, answers), as for
    /// the stores themselves.
    case ownerOnly
    /// As the umask lets (`--shared`): files `0666 & ~umask` (0644 under the usual 022),
    /// folders `0777 & ~umask`.
    case umask
}

/// Why a file could not be written.
public enum FileWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file is already at the path, and it was not to be replaced.
    case exists(String)
    /// The path's problem: a folder missing or closed, a read-only disk, a full disk, ...
    case path(PathProblem)

    public var description: String {
        switch self {
        case .exists(let path): return "\(path) already exists"
        case .path(let problem): return problem.description
        }
    }
}

/// Writes `bytes` as the file at `path`, whole or not at all: into a new file beside it
/// (`.NAME.XXXXXXXX`, made with the mode `sharing` asks for, 0600 by default), flushed to
/// the disk, then moved into place. With `replacing` false an existing file stays as it
/// was and `.exists` is thrown; with `replacing` true it is replaced (and takes the new
/// mode). Every file Amble writes for a person (exports, reports, raw samples) goes through
/// here, so none is ever readable by others unless they asked.
public func writeFile(_ bytes: some Collection<UInt8>, to path: String, replacing: Bool, sharing: FileSharing) throws(FileWriteError) {
    let folderEnd = path.lastIndex(of: "/")
    let folder = folderEnd.map { String(path[...$0]) } ?? ""
    let name = folderEnd.map { String(path[path.index(after: $0)...]) } ?? path
    let mode: mode_t = sharing == .ownerOnly ? 0o600 : 0o666
    func failure(_ error: Errno) -> FileWriteError {
        .path(PathProblem.writing(path) ?? PathProblem(path: path, kind: .failed(error)))
    }

    var temporary = ""
    var fd: Int32 = -1
    while fd < 0 {
        temporary = folder + "." + name.prefix(200) + "." + String(UInt32.random(in: .min ... .max), radix: 16)
        switch Syscall.retrying({ open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }) {
        case .success(let opened): fd = opened
        case .failure(let error) where error.code == EEXIST: continue
        case .failure(let error): throw failure(error)
        }
    }
    /// Whether the temporary file was moved into place (else it is removed on the way out).
    var moved = false
    defer { if !moved { unlink(temporary) } }
    do {
        defer { closeDescriptor(fd) }
        // The umask may have taken the owner's bits too; a private file is exactly 0600.
        if sharing == .ownerOnly, case .failure(let error) = Syscall.retrying({ fchmod(fd, 0o600) }) { throw failure(error) }
        let written: Result<Void, Errno> = Array(bytes).withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                switch Syscall.retrying({ write(fd, buffer.baseAddress! + offset, buffer.count - offset) }) {
                case .success(let count): offset += count
                case .failure(let error): return .failure(error)
                }
            }
            return .success(())
        }
        if case .failure(let error) = written { throw failure(error) }
        if case .failure(let error) = Syscall.retrying({ fsync(fd) }) { throw failure(error) }
    }
    if replacing {
        if case .failure(let error) = Syscall.retrying({ rename(temporary, path) }) { throw failure(error) }
        moved = true
        return
    }
    // A second name for the new file, which fails when one is there; the temporary name goes.
    switch Syscall.retrying({ link(temporary, path) }) {
    case .success: return
    case .failure(let error) where error.code == EEXIST: throw .exists(path)
    case .failure(let error) where [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(error.code):
        // A file system without hard links (FAT): claim the name, then move over it.
        switch Syscall.retrying({ open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }) {
        case .success(let claimed): closeDescriptor(claimed)
        case .failure(let error) where error.code == EEXIST: throw .exists(path)
        case .failure(let error): throw failure(error)
        }
        if case .failure(let error) = Syscall.retrying({ rename(temporary, path) }) { throw failure(error) }
        moved = true
    case .failure(let error): throw failure(error)
    }
}
