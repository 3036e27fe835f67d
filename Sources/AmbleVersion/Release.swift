// `AmbleVersion` itself is generated at build time by Plugins/AmbleVersionPlugin (from the
// VERSION file and git); this file only adds to it.

extension AmbleVersion {
    /// The release alone, without the git commit: `0.1.0`.
    public static var release: String {
        string.split(separator: " ", maxSplits: 1).first.map(String.init) ?? string
    }
}
