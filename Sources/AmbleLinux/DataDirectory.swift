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

/// Creates `path` and missing parents, each new folder 0700 (a store's sessions and keys are
/// the wearer's alone). An existing folder is left as it is.
public func makePrivateDirectory(_ path: String) throws {
    var built = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        built += "/" + part
        if mkdir(built, 0o700) != 0 && errno != EEXIST {
            throw FileError(path: built, message: "cannot create the folder; check its parent's permissions or pass another path", errno: errno)
        }
    }
}

/// A file or folder that could not be made or used, with what to do.
public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var errno: Int32?

    public var description: String {
        "\(path): \(message)" + (errno.map { " (\(Errno($0)))" } ?? "")
    }
}
