/// Where `ambled` finds its board file when `--board` is not given: the installed board,
/// else the simulated board of a checkout or a release folder. Pure: the file system is
/// asked through `fileExists`, so tests need none.
public enum DefaultBoard {
    /// The board of an installed band (scripts/ambled.service installs it there).
    public static let installedPath = "/etc/amble/board.toml"
    /// The simulated board, relative to a checkout (or an unpacked release).
    public static let simulatedPath = "boards/sim.toml"
    /// How many folders above the executable's own are searched for `boards/sim.toml`: 3
    /// reaches a checkout from `.build/<triple>/debug/ambled` (what `.build/debug/ambled`
    /// resolves to) and from `.build/debug/ambled` itself.
    public static let foldersAboveExecutable = 3

    /// The places looked at, in order: the installed board; `boards/sim.toml` in the
    /// executable's folder and each of the `foldersAboveExecutable` above it; then in the
    /// current folder. A relative `executablePath` is taken from `currentDirectory`.
    /// Paths come without duplicates.
    public static func candidates(executablePath: String?, currentDirectory: String?) -> [String] {
        var paths = [installedPath]
        func add(_ path: String) { if !paths.contains(path) { paths.append(path) } }
        if let executablePath {
            var absolute = executablePath
            if !absolute.hasPrefix("/"), let currentDirectory { absolute = currentDirectory + "/" + absolute }
            if absolute.hasPrefix("/") {
                var folders = absolute.split(separator: "/").filter { $0 != "." }.map(String.init)
                folders.removeLast()  // the executable's own name
                for _ in 0...foldersAboveExecutable where !folders.isEmpty {
                    add("/" + (folders + [simulatedPath]).joined(separator: "/"))
                    folders.removeLast()
                }
            }
        }
        if let currentDirectory {
            add((currentDirectory.hasSuffix("/") ? currentDirectory : currentDirectory + "/") + simulatedPath)
        } else {
            add(simulatedPath)
        }
        return paths
    }
}

/// No board file was given and none was found where `ambled` looks for one.
public struct DefaultBoardError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Every path looked at, in order.
    public var searchedPaths: [String]

    public init(searchedPaths: [String]) { self.searchedPaths = searchedPaths }

    public var description: String {
        "no board file given and none found; looked at \(searchedPaths.joined(separator: ", ")). "
            + "Pass --board FILE (one of boards/*.toml), or install the band's board as \(DefaultBoard.installedPath)"
    }
}

/// The board file to use when `--board` is not given: the first of
/// `DefaultBoard.candidates(executablePath:currentDirectory:)` for which `fileExists` is true
/// (on the band, `somethingMayBeAt`, so that a board it may not read is reported; `currentExecutablePath()` and
/// `currentDirectoryPath()` from AmbleLinux). Throws the list of places looked at when none is.
public func defaultBoardPath(
    fileExists: (String) -> Bool, executablePath: String?, currentDirectory: String?
) throws(DefaultBoardError) -> String {
    let candidates = DefaultBoard.candidates(executablePath: executablePath, currentDirectory: currentDirectory)
    guard let found = candidates.first(where: fileExists) else { throw DefaultBoardError(searchedPaths: candidates) }
    return found
}
