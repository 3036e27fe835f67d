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
