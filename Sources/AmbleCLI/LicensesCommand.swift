import AmbleCompanion
import ArgumentParser

/// `amble licenses`: what Amble is built from and under which licenses.
struct LicensesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "licenses",
        abstract: "List what Amble is built from: its packages and system libraries, with their licenses.",
        discussion: """
        The full texts: Apache-2.0 and LGPL-2.1 are in /usr/share/common-licenses on Debian; \
        each package's own LICENSE file is at its source address; a system library's \
        copyright file is in /usr/share/doc/PACKAGE/copyright.
        """
    )

    @Flag(help: "Print one JSON array: name, license (SPDX), source, license_url, used_for, debian_package.")
    var json = false

    func run() {
        print(json ? ThirdPartyComponent.json(ThirdPartyComponent.all) : ThirdPartyComponent.text(ThirdPartyComponent.all))
    }
}

/// One piece of software that Amble's programs or tests are built from.
struct ThirdPartyComponent: Equatable {
    enum Use: String { case programs, tests }

    var name: String
    /// SPDX identifier.
    var license: String
    /// Where its source is; for a Swift package, the address Package.swift names.
    var source: String
    /// Where its license text is.
    var licenseURL: String
    /// What Amble uses it for.
    var usedFor: String
    /// Whether it is in the programs or only in the tests.
    var use: Use = .programs
    /// The Debian package whose /usr/share/doc/NAME/copyright has its text (system libraries).
    var debianPackage: String?

    /// Every Swift package in Package.swift (tests check that none is missing), the packages
    /// they bring with them, the system libraries Amble links, and the Swift runtime.
    static let all: [ThirdPartyComponent] = [
        ThirdPartyComponent(
            name: "swift-argument-parser", license: "Apache-2.0", source: "https://github.com/apple/swift-argument-parser",
            licenseURL: "https://github.com/apple/swift-argument-parser/blob/main/LICENSE.txt",
            usedFor: "the command lines of amble and ambled"),
        ThirdPartyComponent(
            name: "swift-log", license: "Apache-2.0", source: "https://github.com/apple/swift-log",
            licenseURL: "https://github.com/apple/swift-log/blob/main/LICENSE.txt", usedFor: "ambled's logging"),
        ThirdPartyComponent(
            name: "swift-numerics", license: "Apache-2.0", source: "https://github.com/apple/swift-numerics",
            licenseURL: "https://github.com/apple/swift-numerics/blob/main/LICENSE.txt", usedFor: "signal processing maths"),
        ThirdPartyComponent(
            name: "swift-crypto", license: "Apache-2.0", source: "https://github.com/apple/swift-crypto",
            licenseURL: "https://github.com/apple/swift-crypto/blob/main/LICENSE.txt",
            usedFor: "the sync link's Noise handshake: X25519, ChaCha20-Poly1305, SHA-256"),
        ThirdPartyComponent(
            name: "BoringSSL (in swift-crypto)", license: "Apache-2.0 AND ISC AND OpenSSL", source: "https://boringssl.googlesource.com/boringssl",
            licenseURL: "https://boringssl.googlesource.com/boringssl/+/HEAD/LICENSE", usedFor: "swift-crypto's primitives on Linux"),
        ThirdPartyComponent(
            name: "swift-asn1 (for swift-crypto)", license: "Apache-2.0", source: "https://github.com/apple/swift-asn1",
            licenseURL: "https://github.com/apple/swift-asn1/blob/main/LICENSE.txt", usedFor: "swift-crypto's key formats"),
        ThirdPartyComponent(
            name: "swift-nio", license: "Apache-2.0", source: "https://github.com/apple/swift-nio",
            licenseURL: "https://github.com/apple/swift-nio/blob/main/LICENSE.txt", usedFor: "the study server's HTTP client (amble study join, upload)"),
        ThirdPartyComponent(
            name: "swift-nio-ssl", license: "Apache-2.0", source: "https://github.com/apple/swift-nio-ssl",
            licenseURL: "https://github.com/apple/swift-nio-ssl/blob/main/LICENSE.txt",
            usedFor: "TLS to the study server, its certificate pinned by SHA-256 (BoringSSL inside)"),
        ThirdPartyComponent(
            name: "swift-atomics (for swift-nio)", license: "Apache-2.0", source: "https://github.com/apple/swift-atomics",
            licenseURL: "https://github.com/apple/swift-atomics/blob/main/LICENSE.txt", usedFor: "swift-nio's event loops"),
        ThirdPartyComponent(
            name: "swift-collections (for swift-nio)", license: "Apache-2.0", source: "https://github.com/apple/swift-collections",
            licenseURL: "https://github.com/apple/swift-collections/blob/main/LICENSE.txt", usedFor: "swift-nio's buffers"),
        ThirdPartyComponent(
            name: "swift-system (for swift-nio)", license: "Apache-2.0", source: "https://github.com/apple/swift-system",
            licenseURL: "https://github.com/apple/swift-system/blob/main/LICENSE.txt", usedFor: "swift-nio's system calls"),
        ThirdPartyComponent(
            name: "Hummingbird", license: "Apache-2.0", source: "https://github.com/hummingbird-project/hummingbird",
            licenseURL: "https://github.com/hummingbird-project/hummingbird/blob/main/LICENSE", usedFor: "amble-server's HTTP(S) server"),
        ThirdPartyComponent(
            name: "postgres-nio", license: "MIT", source: "https://github.com/vapor/postgres-nio",
            licenseURL: "https://github.com/vapor/postgres-nio/blob/main/LICENSE", usedFor: "amble-server's PostgreSQL client"),
        ThirdPartyComponent(
            name: "swift-certificates", license: "Apache-2.0", source: "https://github.com/apple/swift-certificates",
            licenseURL: "https://github.com/apple/swift-certificates/blob/main/LICENSE.txt", usedFor: "amble-server init's self-signed certificate"),
        ThirdPartyComponent(
            name: "swift-http-types", license: "Apache-2.0", source: "https://github.com/apple/swift-http-types",
            licenseURL: "https://github.com/apple/swift-http-types/blob/main/LICENSE.txt", usedFor: "amble-server's requests and answers"),
        ThirdPartyComponent(
            name: "swift-service-lifecycle", license: "Apache-2.0", source: "https://github.com/swift-server/swift-service-lifecycle",
            licenseURL: "https://github.com/swift-server/swift-service-lifecycle/blob/main/LICENSE.txt",
            usedFor: "amble-server's background job worker beside its HTTP server"),
        ThirdPartyComponent(
            name: "hdrhistogram-swift", license: "Apache-2.0", source: "https://github.com/HdrHistogram/hdrhistogram-swift",
            licenseURL: "https://github.com/HdrHistogram/hdrhistogram-swift/blob/main/LICENSE",
            usedFor: "amble-server-load's latency histograms (a load generator, not shipped)", use: .tests),
        ThirdPartyComponent(
            name: "swift-property-based", license: "MIT", source: "https://github.com/x-sheep/swift-property-based",
            licenseURL: "https://github.com/x-sheep/swift-property-based/blob/main/LICENSE",
            usedFor: "property-based tests of the state machines", use: .tests),
        ThirdPartyComponent(
            name: "SQLite", license: "blessing", source: "https://sqlite.org",
            licenseURL: "https://sqlite.org/copyright.html", usedFor: "both stores (the system's libsqlite3, through AmbleSQLite)",
            debianPackage: "libsqlite3-0"),
        ThirdPartyComponent(
            name: "zlib", license: "Zlib", source: "https://zlib.net",
            licenseURL: "https://zlib.net/zlib_license.html", usedFor: "compressing session data on the sync link (CZlib)",
            debianPackage: "zlib1g"),
        ThirdPartyComponent(
            name: "libgpiod", license: "LGPL-2.1-or-later", source: "https://git.kernel.org/pub/scm/libs/libgpiod/libgpiod.git",
            licenseURL: "https://git.kernel.org/pub/scm/libs/libgpiod/libgpiod.git/tree/COPYING",
            usedFor: "the band's buttons and motor on Linux GPIO (CGPIOD)", debianPackage: "libgpiod2"),
        ThirdPartyComponent(
            name: "libi2c (i2c-tools)", license: "LGPL-2.1-or-later", source: "https://git.kernel.org/pub/scm/utils/i2c-tools/i2c-tools.git",
            licenseURL: "https://git.kernel.org/pub/scm/utils/i2c-tools/i2c-tools.git/tree/COPYING.LGPL",
            usedFor: "the band's sensors on /dev/i2c-N (CI2C)", debianPackage: "libi2c0"),
        ThirdPartyComponent(
            name: "Swift runtime and Foundation", license: "Apache-2.0 WITH Swift-exception", source: "https://github.com/swiftlang/swift",
            licenseURL: "https://swift.org/LICENSE.txt", usedFor: "the language's runtime and standard library"),
        ThirdPartyComponent(
            name: "ICU (in swift-foundation-icu)", license: "Unicode-3.0", source: "https://github.com/swiftlang/swift-foundation-icu",
            licenseURL: "https://github.com/unicode-org/icu/blob/main/LICENSE",
            usedFor: "Foundation's locale and calendar data, linked into the programs with the static Swift runtime"),
    ]

    static func text(_ components: [ThirdPartyComponent]) -> String {
        var lines = ["Amble is built from:", ""]
        for component in components {
            let scope = component.use == .tests ? " (tests only)" : ""
            lines.append("\(component.name)\(scope)")
            lines.append("  license   \(component.license)  \(component.licenseURL)")
            lines.append("  source    \(component.source)")
            lines.append("  used for  \(component.usedFor)")
            if let package = component.debianPackage { lines.append("  on Debian /usr/share/doc/\(package)/copyright") }
            lines.append("")
        }
        lines.append("Full texts of Apache-2.0 and LGPL-2.1 on Debian: /usr/share/common-licenses/.")
        return lines.joined(separator: "\n")
    }

    static func json(_ components: [ThirdPartyComponent]) -> String {
        let objects = components.map { c in
            "{\"name\": \(quoted(c.name)), \"license\": \(quoted(c.license)), \"source\": \(quoted(c.source)), "
                + "\"license_url\": \(quoted(c.licenseURL)), \"used_for\": \(quoted(c.usedFor)), \"use\": \(quoted(c.use.rawValue)), "
                + "\"debian_package\": \(c.debianPackage.map(quoted) ?? "null")}"
        }
        return "[\n  " + objects.joined(separator: ",\n  ") + "\n]"
    }

    private static func quoted(_ text: String) -> String { SessionJSON.string(text) }
}
