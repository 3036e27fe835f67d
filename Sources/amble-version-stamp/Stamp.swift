// amble-version-stamp VERSION_FILE PACKAGE_DIRECTORY OUTPUT
//
// Run by the AmbleVersion build plugin, not by hand. Writes a Swift file declaring
// `AmbleVersion.string`: the first line of VERSION_FILE, plus ` (git DESCRIBE)` when
// PACKAGE_DIRECTORY is a git checkout and git is installed. A tarball without .git gets the
// VERSION alone.
import Foundation

/// A type with `main` rather than top-level code, so that the tool builds however the package
/// is built (scripts/fuzz passes -parse-as-library to every target, this one included).
@main
enum Stamp {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 4 else {
            FileHandle.standardError.write(Data("usage: amble-version-stamp VERSION_FILE PACKAGE_DIRECTORY OUTPUT\n".utf8))
            exit(2)
        }
        let versionFile = arguments[1], packageDirectory = arguments[2], output = arguments[3]

        guard let text = try? String(contentsOfFile: versionFile, encoding: .utf8),
              let version = text.split(whereSeparator: \.isNewline).first.map({ $0.trimmingCharacters(in: .whitespaces) }),
              !version.isEmpty else {
            FileHandle.standardError.write(Data("\(versionFile): error: needs the version on its first line, e.g. 0.1.0\n".utf8))
            exit(1)
        }

        let full = gitDescription(packageDirectory).map { "\(version) (git \($0))" } ?? version
        let escaped = full.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let source = """
        // Generated at build time by amble-version-stamp from VERSION and git; do not edit.

        /// Amble's version, as both programs print it with `--version`.
        public enum AmbleVersion {
            /// The VERSION file's version, then the git commit it was built from when built from a
            /// checkout: `0.1.0 (git 075e6e9abc)`, `0.1.0 (git 075e6e9abc-dirty)`, or `0.1.0` alone.
            public static let string = "\(escaped)"
        }

        """
        // Rewrite only on change, so an unchanged version does not recompile its dependents.
        if (try? String(contentsOfFile: output, encoding: .utf8)) != source {
            do {
                try source.write(toFile: output, atomically: true, encoding: .utf8)
            } catch {
                FileHandle.standardError.write(Data("amble-version-stamp: cannot write \(output): \(error)\n".utf8))
                exit(1)
            }
        }
    }

    /// `git describe --always --dirty` in the package, or nil outside a checkout or without git.
    static func gitDescription(_ packageDirectory: String) -> String? {
        guard FileManager.default.fileExists(atPath: packageDirectory + "/.git") else { return nil }
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", packageDirectory, "describe", "--always", "--dirty", "--abbrev=10"]
        let pipe = Pipe()
        git.standardOutput = pipe
        git.standardError = FileHandle.nullDevice
        do { try git.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        git.waitUntilExit()
        guard git.terminationStatus == 0 else { return nil }
        let description = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return description.isEmpty ? nil : description
    }
}
