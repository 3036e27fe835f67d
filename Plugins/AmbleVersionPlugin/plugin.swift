import Foundation
import PackagePlugin

/// Writes `AmbleVersion.swift` for the `AmbleVersion` target at build time: the version in the
/// package's `VERSION` file and, in a git checkout, the commit (`git describe`). The build
/// reruns it when `VERSION` changes or when git's HEAD moves (a commit, checkout or reset).
@main
struct AmbleVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let packageDirectory = context.package.directoryURL
        let versionFile = packageDirectory.appending(path: "VERSION")
        let output = context.pluginWorkDirectoryURL.appending(path: "AmbleVersion.swift")
        var inputs = [versionFile]
        if let gitDirectory = Self.gitDirectory(of: packageDirectory) {
            // HEAD names the branch; logs/HEAD changes with every commit, checkout and reset.
            for file in ["HEAD", "logs/HEAD"] {
                let url = gitDirectory.appending(path: file)
                if FileManager.default.fileExists(atPath: url.path) { inputs.append(url) }
            }
        }
        return [.buildCommand(
            displayName: "Stamping Amble's version",
            executable: try context.tool(named: "amble-version-stamp").url,
            arguments: [versionFile.path, packageDirectory.path, output.path],
            inputFiles: inputs,
            outputFiles: [output]
        )]
    }

    /// The git directory of a checkout: `.git` itself, or where a worktree's `.git` file points.
    /// Nil in a tarball.
    static func gitDirectory(of package: URL) -> URL? {
        let dotGit = package.appending(path: ".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return dotGit }
        guard let text = try? String(contentsOf: dotGit, encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("gitdir: ") else { return nil }
        let path = String(line.dropFirst("gitdir: ".count))
        return path.hasPrefix("/") ? URL(fileURLWithPath: path) : package.appending(path: path)
    }
}
