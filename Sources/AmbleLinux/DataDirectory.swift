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
/// stores' files are 0600 in any case). Throws a `PathProblem` naming the folder at fault (one
/// in the way that is a file, one this user may not enter or write in).
public func makePrivateDirectory(_ path: String) throws(PathProblem) {
    let isAbsolute = path.hasPrefix("/")
    var folder = ""
    let names = path.split(separator: "/")
    for (index, name) in names.enumerated() {
        folder += (folder.isEmpty && !isAbsolute ? "" : "/") + name
        let isFinal = index == names.count - 1
        var status = stat()
        switch Syscall.retrying({ stat(folder, &status) }) {
        case .success:
            guard status.st_mode & S_IFMT == S_IFDIR else { throw PathProblem(path: folder, kind: .notAFolder) }
            if isFinal, status.st_mode & 0o077 != 0, status.st_uid == geteuid() {
                try makeOwnerOnly(folder)
            }
        case .failure(let error) where error.code == ENOENT:
            switch Syscall.retrying({ mkdir(folder, 0o700) }) {
            case .success:
                // The umask may have taken bits from 0700; a folder of ours is exactly 0700.
                try makeOwnerOnly(folder)
            case .failure(let error) where error.code == EEXIST:
                // Made by someone else meanwhile: it must be a folder all the same.
                guard case .success = Syscall.retrying({ stat(folder, &status) }), status.st_mode & S_IFMT == S_IFDIR else {
                    throw PathProblem(path: folder, kind: .notAFolder)
                }
            case .failure(let error):
                throw PathProblem.writing(folder, makingFolders: true) ?? PathProblem(path: folder, kind: .failed(error))
            }
        case .failure(let error):
            throw PathProblem.onTheWay(to: folder) ?? PathProblem(path: folder, kind: .failed(error))
        }
    }
}

private func makeOwnerOnly(_ folder: String) throws(PathProblem) {
    if case .failure(let error) = Syscall.retrying({ chmod(folder, 0o700) }) { throw PathProblem(path: folder, kind: .failed(error)) }
}
