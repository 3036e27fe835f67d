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

/// Makes `path` a folder, creating it and any missing folders above it. With `.ownerOnly`
/// each folder it creates is 0700 (only its owner may enter it) whatever the umask; with
/// `.umask` it is as the umask lets (`mkdir 0777`). Folders that already exist, the final one
/// included, are left exactly as they are: a shared or setgid folder a person made keeps its
/// group and bits (the files Amble writes in it are 0600 in any case), and only folders this
/// creates are ever tightened. Throws a `PathProblem` naming the folder at
/// fault (one in the way that is a file, one this user may not enter or write in).
public func makeFolders(_ path: String, sharing: FileSharing = .ownerOnly) throws(PathProblem) {
    let isAbsolute = path.hasPrefix("/")
    var folder = ""
    for name in path.split(separator: "/") {
        folder += (folder.isEmpty && !isAbsolute ? "" : "/") + name
        var status = stat()
        switch Syscall.retrying({ stat(folder, &status) }) {
        case .success:
            guard status.st_mode & S_IFMT == S_IFDIR else { throw PathProblem(path: folder, kind: .notAFolder) }
        case .failure(let error) where error.code == ENOENT:
            switch Syscall.retrying({ mkdir(folder, sharing == .ownerOnly ? 0o700 : 0o777) }) {
            case .success:
                // The umask may have taken bits from 0700; a private folder of ours is exactly 0700.
                if sharing == .ownerOnly, case .failure(let error) = Syscall.retrying({ chmod(folder, 0o700) }) {
                    throw PathProblem(path: folder, kind: .failed(error))
                }
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
