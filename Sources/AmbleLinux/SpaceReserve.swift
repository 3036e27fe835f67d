#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Room kept on the disk for the day it fills: a file of `bytes` allocated beside a store and
/// given up when the store finds the disk full. SQLite needs room in its write-ahead log to
/// change anything, even to delete rows, so a disk filled to its last byte would leave the
/// store unable to mark a session synced or to remove one; the room given up lets it.
public struct SpaceReserve: Sendable {
    public let path: String
    public let bytes: Int

    public init(path: String, bytes: Int) {
        self.path = path
        self.bytes = bytes
    }

    /// Whether the reserve file is there.
    public var isHeld: Bool {
        var status = stat()
        guard case .success = Syscall.retrying({ stat(path, &status) }) else { return false }
        return status.st_size >= bytes
    }

    /// Bytes free for this user on the disk that holds the reserve's folder; nil when unknown.
    public var freeBytes: Int? {
        var status = statvfs()
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        guard case .success = Syscall.retrying({ statvfs(folder.isEmpty ? "." : folder, &status) }) else { return nil }
        return Int(status.f_bavail) * Int(status.f_frsize)
    }

    /// Makes the reserve file when it is missing and the disk has at least twice its room free
    /// (a nearly full disk keeps its last bytes); its blocks are allocated, not sparse. Returns
    /// whether the reserve is held.
    @discardableResult
    public func take() -> Bool {
        if isHeld { return true }
        guard let free = freeBytes, free >= 2 * bytes else { return false }
        let fd = Syscall.retrying { open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600) }
        guard case .success(let descriptor) = fd else { return false }
        defer { closeDescriptor(descriptor) }
        guard posix_fallocate(descriptor, 0, off_t(bytes)) == 0 else {
            _ = unlink(path)
            return false
        }
        return true
    }

    /// Gives the room back to the disk. Returns whether there was a reserve to give.
    @discardableResult
    public func release() -> Bool {
        guard isHeld, case .success = Syscall.retrying({ unlink(path) }) else { return false }
        return true
    }
}
