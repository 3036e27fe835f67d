#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a path a person gave cannot be used, found by looking at each folder on the way, so
/// that the message names the folder or file at fault, says why in the system's terms
/// (missing, a file where a folder must be, permission denied, a read-only disk) and what to
/// do. Both programs turn every failure to open, read, make or write a path they were given
/// into one of these: "no such file" is said only of what is missing, never of a folder the
/// user may not enter.
public struct PathProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// Nothing is there.
        case missing
        /// A file (or device) where a folder must be.
        case notAFolder
        /// A folder this user may not enter (no search permission): nothing under it can be seen.
        case cannotEnter
        /// A file this user may not read.
        case cannotRead
        /// A folder this user may not make files in, or a file this user may not write.
        case cannotWrite
        /// On a file system mounted read-only.
        case readOnlyDisk
        /// A folder where a file must be.
        case isAFolder
        /// A device, pipe or socket where a plain file must be.
        case notAFile
        /// Something else: the system's error.
        case failed(Errno)
    }

    /// The file or folder at fault (the path given, or a folder on the way to it).
    public var path: String
    public var kind: Kind
    /// Who owns `path` and its mode, for the permission problems ("root", 0o755).
    public var owner: String?
    public var mode: UInt32?
    /// Who this runs as ("nobody"), for the permission problems.
    public var user: String?

    public init(path: String, kind: Kind, owner: String? = nil, mode: UInt32? = nil, user: String? = nil) {
        self.path = path
        self.kind = kind
        self.owner = owner
        self.mode = mode
        self.user = user
    }

    /// What is wrong, naming the path: "the folder /root may not be entered by nobody
    /// (permission denied: it belongs to root, mode 0700)". When the problem is with `given`
    /// itself (a message that already names it), the path is left out: "does not exist".
    public func fact(given: String? = nil) -> String {
        let who = user.map { " by \($0)" } ?? ""
        let whose = owner.map { ": it belongs to \($0)" + (mode.map { ", mode " + octal($0 & 0o7777) } ?? "") } ?? ""
        let subject = path == given ? "" : path + " "
        switch kind {
        case .missing: return subject + "does not exist"
        case .notAFolder: return subject + "is a file, not a folder"
        case .cannotEnter: return "the folder \(path) may not be entered\(who) (permission denied\(whose))"
        case .cannotRead: return subject + "may not be read\(who) (permission denied\(whose))"
        case .cannotWrite: return subject + "may not be written\(who) (permission denied\(whose))"
        case .readOnlyDisk: return subject + "is on a disk mounted read-only"
        case .isAFolder: return subject + "is a folder, not a file"
        case .notAFile: return subject + "is not a plain file (a device, pipe or socket)"
        case .failed(let error): return (path == given ? "" : path + ": ") + systemReasonText(error.code)
        }
    }

    /// What to do about it, as the start of a sentence a caller may go on with ", or give
    /// --store another path".
    public var remedy: String {
        let asOwner = owner.map { "run it as \($0) (the owner)" } ?? "run it as the owner"
        switch kind {
        case .missing, .notAFolder, .notAFile: return "check the path"
        case .failed(let error):
            switch error.code {
            case ENOSPC, EDQUOT: return "free some space and try again"
            case EIO: return "the disk may be failing; try another"
            case ENAMETOOLONG: return "choose a shorter name"
            default: return "check the path"
            }
        case .isAFolder: return "give the path of a file in it"
        case .cannotEnter, .cannotRead: return asOwner + ", or ask its owner to let you " + (kind == .cannotEnter ? "in" : "read it")
        case .cannotWrite: return asOwner
        case .readOnlyDisk: return "use a folder on another disk"
        }
    }

    /// The fact and the remedy, and `alternative` after ", or " when given; `given` as for
    /// `fact(given:)`.
    public func sentence(given: String? = nil, orElse alternative: String? = nil) -> String {
        fact(given: given) + "; " + remedy + (alternative.map { ", or " + $0 } ?? "")
    }

    public var description: String { sentence() }
}

extension PathProblem {
    /// Why the file at `path` cannot be read: a folder on the way missing, a file, or closed to
    /// this user; the file missing, a folder, not a plain file, or closed to this user. Nil
    /// when nothing is found wrong (the caller's own error then stands).
    public static func reading(_ path: String) -> PathProblem? {
        if let problem = onTheWay(to: path) { return problem }
        var status = stat()
        if case .failure(let error) = Syscall.retrying({ stat(path, &status) }) {
            return PathProblem(path: path, kind: error.code == ENOENT ? .missing : .failed(error))
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return PathProblem(path: path, kind: .isAFolder)
        case S_IFREG: break
        default: return PathProblem(path: path, kind: .notAFile)
        }
        if case .failure(let error) = accessible(path, R_OK) {
            return permissionProblem(path, error, kind: .cannotRead, status: status)
        }
        return nil
    }

    /// Why a file cannot be made (or replaced) at `path`: a folder on the way missing, a file
    /// or closed; the folder it goes in closed to writing or on a read-only disk; a folder in
    /// the way. With `makingFolders`, missing folders are not a problem, but the last folder
    /// that is there must let this user make one in it. Nil when nothing is found wrong.
    public static func writing(_ path: String, makingFolders: Bool = false) -> PathProblem? {
        let parts = pathParts(path)
        var folder = parts.start
        for (index, name) in parts.names.enumerated() {
            let next = join(folder, name)
            let isLast = index == parts.names.count - 1
            var status = stat()
            switch Syscall.retrying({ stat(next, &status) }) {
            case .failure(let error) where error.code == ENOENT:
                guard makingFolders || isLast else { return PathProblem(path: next, kind: .missing) }
                return writable(folder.isEmpty ? "." : folder)
            case .failure(let error):
                return PathProblem(path: next, kind: .failed(error))
            case .success:
                if isLast {
                    if status.st_mode & S_IFMT == S_IFDIR { return PathProblem(path: next, kind: .isAFolder) }
                    return writable(folder.isEmpty ? "." : folder)
                }
                if let problem = enterable(next, status) { return problem }
            }
            folder = next
        }
        return nil
    }

    /// Why a file cannot be opened to be read and written in place, as SQLite opens a store
    /// (which also makes its `-wal` and `-shm` files beside it): `reading(_:)`, then the file
    /// and its folder must be writable. Nil when nothing is found wrong.
    public static func updating(_ path: String) -> PathProblem? {
        if let problem = reading(path) { return problem.kind == .missing && problem.path == path ? writing(path) : problem }
        if case .failure(let error) = accessible(path, W_OK) {
            var status = stat()
            _ = Syscall.retrying({ stat(path, &status) })
            return permissionProblem(path, error, kind: .cannotWrite, status: status)
        }
        return writing(path)
    }

    /// Why files cannot be made in the folder `path`: `writing(_:makingFolders:)` for a file
    /// in it, and the folder itself, when it is there, must be a folder this user may write.
    public static func writingIn(folder path: String) -> PathProblem? {
        var status = stat()
        guard case .success = Syscall.retrying({ stat(path, &status) }) else {
            return writing(path, makingFolders: true)
        }
        if status.st_mode & S_IFMT != S_IFDIR { return onTheWay(to: path) ?? PathProblem(path: path, kind: .notAFolder) }
        return onTheWay(to: path) ?? enterable(path, status) ?? writable(path)
    }

    /// The first folder on the way to `path` (every part but the last) that is missing, is a
    /// file, or may not be entered.
    static func onTheWay(to path: String) -> PathProblem? {
        let parts = pathParts(path)
        var folder = parts.start
        for name in parts.names.dropLast() {
            folder = join(folder, name)
            var status = stat()
            switch Syscall.retrying({ stat(folder, &status) }) {
            case .failure(let error) where error.code == ENOENT: return PathProblem(path: folder, kind: .missing)
            case .failure(let error): return PathProblem(path: folder, kind: .failed(error))
            case .success: if let problem = enterable(folder, status) { return problem }
            }
        }
        return nil
    }

    private static func enterable(_ folder: String, _ status: stat) -> PathProblem? {
        guard status.st_mode & S_IFMT == S_IFDIR else { return PathProblem(path: folder, kind: .notAFolder) }
        if case .failure(let error) = accessible(folder, X_OK) {
            return permissionProblem(folder, error, kind: .cannotEnter, status: status)
        }
        return nil
    }

    /// Whether this user may make files in `folder` (an existing folder).
    private static func writable(_ folder: String) -> PathProblem? {
        guard case .failure(let error) = accessible(folder, W_OK | X_OK) else { return nil }
        var status = stat()
        _ = Syscall.retrying({ stat(folder, &status) })
        return permissionProblem(folder, error, kind: .cannotWrite, status: status)
    }

    private static func permissionProblem(_ path: String, _ error: Errno, kind: Kind, status: stat) -> PathProblem {
        switch error.code {
        case EROFS: return PathProblem(path: path, kind: .readOnlyDisk)
        case EACCES, EPERM:
            return PathProblem(path: path, kind: kind, owner: userName(status.st_uid), mode: status.st_mode, user: userName(geteuid()))
        default: return PathProblem(path: path, kind: .failed(error))
        }
    }

    /// `faccessat` with this process's effective ids (what `open` checks).
    private static func accessible(_ path: String, _ mode: Int32) -> Result<Int32, Errno> {
        Syscall.retrying { faccessat(AT_FDCWD, path, mode, AT_EACCESS) }
    }

    /// Where a path starts ("/", or "" for the current folder) and its names.
    private static func pathParts(_ path: String) -> (start: String, names: [String]) {
        (path.hasPrefix("/") ? "/" : "", path.split(separator: "/").map(String.init))
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
    }
}

/// A mode as `chmod` takes it: four octal digits ("0755", "2775").
private func octal(_ mode: UInt32) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// A user's name from the password database, or "uid N".
public func userName(_ uid: uid_t) -> String {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(uid, &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.pw_name else { return "uid \(uid)" }
    return String(cString: name)
}

/// The system's reason for an error number, in lower case ("no such file or directory").
public func systemReasonText(_ number: Int32) -> String {
    guard let text = strerror(number) else { return "system error \(number)" }
    let reason = String(cString: text)
    return reason.prefix(1).lowercased() + reason.dropFirst()
}
