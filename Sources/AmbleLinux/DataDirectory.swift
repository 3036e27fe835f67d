#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a user's programs keep their data (XDG base directories): `$XDG_DATA_HOME`, or
/// `$HOME/.local/share` when that is unset or empty (`./.local/share` without `$HOME`).
/// `ambled` keeps its store in `ambled/` there, `amble` in `amble/`.
public var userDataDirectory: String {
    if let xdg = environmentValue("XDG_DATA_HOME"), !xdg.isEmpty { return xdg }
    return (environmentValue("HOME") ?? ".") + "/.local/share"
}

private func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// Makes `path` a folder that only its owner may enter (mode 0700), creating it and any
/// missing folders above it; each folder it creates is 0700 whatever the umask. Folders that
/// already exist above it are left as they are. If the final folder exists and its group or
/// others have any access, it is tightened to 0700, but only when it belongs to the user
/// running this: a folder of someone else's (a shared mount point, say) is left as it is (the
/// stores' files are 0600 in any case). Throws `PrivateDirectoryError`, which names the
/// folder at fault and what to do.
public func makePrivateDirectory(_ path: String) throws {
    let isAbsolute = path.hasPrefix("/")
    var folder = ""
    let names = path.split(separator: "/")
    for (index, name) in names.enumerated() {
        folder += (folder.isEmpty && !isAbsolute ? "" : "/") + name
        let isFinal = index == names.count - 1
        var status = stat()
        switch Syscall.retrying({ stat(folder, &status) }) {
        case .success:
            guard status.st_mode & S_IFMT == S_IFDIR else { throw PrivateDirectoryError(path: folder, problem: .notAFolder) }
            if isFinal, status.st_mode & 0o077 != 0, status.st_uid == geteuid() {
                try makeOwnerOnly(folder, problem: PrivateDirectoryError.Problem.cannotTighten)
            }
        case .failure(let error) where error.code == ENOENT:
            switch Syscall.retrying({ mkdir(folder, 0o700) }) {
            case .success:
                // The umask may have taken bits from 0700; a folder of ours is exactly 0700.
                try makeOwnerOnly(folder, problem: PrivateDirectoryError.Problem.cannotCreate)
            case .failure(let error) where error.code == EEXIST:
                // Made by someone else meanwhile: it must be a folder all the same.
                guard Syscall.retrying({ stat(folder, &status) }).isSuccess, status.st_mode & S_IFMT == S_IFDIR else {
                    throw PrivateDirectoryError(path: folder, problem: .notAFolder)
                }
            case .failure(let error):
                throw PrivateDirectoryError(path: folder, problem: .cannotCreate(error))
            }
        case .failure(let error):
            throw PrivateDirectoryError(path: folder, problem: .cannotInspect(error))
        }
    }
}

private func makeOwnerOnly(_ folder: String, problem: (Errno) -> PrivateDirectoryError.Problem) throws {
    if case .failure(let error) = Syscall.retrying({ chmod(folder, 0o700) }) {
        throw PrivateDirectoryError(path: folder, problem: problem(error))
    }
}

private extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

/// Why `makePrivateDirectory` could not make a private folder: the folder at fault and what
/// went wrong, with what to do in the message.
public struct PrivateDirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        /// `mkdir` (or the `chmod 700` after it) failed.
        case cannotCreate(Errno)
        /// Something that is not a folder is in the way.
        case notAFolder
        /// `stat` failed for a reason other than the folder missing.
        case cannotInspect(Errno)
        /// The folder is open to group or others and `chmod 700` failed.
        case cannotTighten(Errno)
    }

    /// The folder at fault (the final one or one above it).
    public var path: String
    public var problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .cannotCreate(let error):
            return "cannot create the folder \(path): \(error); check that the folder above it is yours and writable, or choose another place"
        case .notAFolder:
            return "\(path) is in the way: it exists but is not a folder; move it away, or choose another place"
        case .cannotInspect(let error):
            return "cannot look at \(path): \(error); check the permissions of the folders above it, or choose another place"
        case .cannotTighten(let error):
            return "\(path) is open to other users and could not be made private: \(error); run chmod 700 \(path)"
        }
    }
}
