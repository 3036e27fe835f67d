// swift-tools-version: 6.1
//
// Amble: open smart-band software. The target graph is the architecture; see
// README.md ("Code map") for what may import what.

import PackageDescription

let package = Package(
    name: "Amble",
    products: [
        .executable(name: "ambled", targets: ["ambled"]),
        .executable(name: "amble", targets: ["amble"]),
        .executable(name: "amble-server", targets: ["amble-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // The laptop's client of the study server (AmbleCLI's StudyServer/): NIO, NIOHTTP1, NIOSSL.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The study server (amble-server) only; the band and the laptop link none of these.
        // Hummingbird without its default traits: no swift-configuration, no full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Already Hummingbird's: named for the server's background job worker (a Service).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // The load generator (amble-server-load) only: latencies in an HDR histogram.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // MARK: System libraries (Debian 12: libgpiod-dev 1.6, libi2c-dev)
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        .systemLibrary(
            name: "CI2C",
            providers: [.apt(["libi2c-dev"])]
        ),
        /// zlib, for the sync link's session data (Debian 12: zlib1g-dev).
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        /// SQLite 3, for both stores (Debian 12: libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // MARK: Hardware, at the edge
        /// Protocols only: I2C bus, GPIO lines, byte streams (serial, TCP), clocks, errors.
        .target(name: "AmbleHardware"),
        /// Glibc for both programs: termios, sockets, signals, clock, data directory, sd_notify.
        .target(name: "AmbleLinux", dependencies: ["AmbleHardware"]),
        /// The band's buses and lines: /dev/i2c-N (libi2c) and GPIO chips (libgpiod 1.6). Apart
        /// from AmbleLinux so that the companion `amble` links neither library.
        .target(name: "AmbleLinuxHardware", dependencies: ["AmbleHardware", "AmbleLinux", "CGPIOD", "CI2C"]),
        /// Chip drivers that speak registers through `I2CBus`, plus motor and buttons over GPIO.
        .target(name: "AmbleDrivers", dependencies: ["AmbleHardware"]),
        /// Register-level emulators of the chips, an emulated I2C bus and simulated GPIO lines.
        .target(name: "AmbleEmulators", dependencies: ["AmbleHardware"]),

        // MARK: Pure logic
        /// Recording formats (CSV) read as streams, with line-numbered errors.
        .target(name: "AmbleRecordings", dependencies: ["AmbleModel", "AmbleLinux"]),
        /// Streaming signal processing: steps, cadence, heart rate. No I/O, no clock reads.
        .target(name: "AmbleSignal", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        /// Menu, calibration, mindful walk, haptics, debouncing: events and time in, actions out.
        .target(name: "AmbleStateMachines", dependencies: ["AmbleModel", "AmbleSignal"]),
        /// Synthetic wearer (walking acceleration, pulse wave), recorded playback, scenario scripts.
        .target(name: "AmbleSimulation", dependencies: [
            "AmbleEmulators", "AmbleRecordings", "AmbleLinux", "AmbleModel", .product(name: "RealModule", package: "swift-numerics"),
        ]),
        /// Session values shared by both stores and the sync protocol.
        .target(name: "AmbleModel"),
        /// A TOML 1.0 reader (and writer) of its own, for board and study files: errors with line
        /// and column instead of traps, bounded depth and size; no Foundation, no dependency.
        .target(name: "AmbleTOML"),

        // MARK: Storage and sync
        /// A thin layer over the system SQLite: a connection behind a lock, transactions,
        /// statements with typed columns, errors with SQLite's code, a migrator that continues
        /// GRDB's `grdb_migrations`. FoundationEssentials at most.
        .target(name: "AmbleSQLite", dependencies: ["CSQLite"]),
        /// The session tables both stores share, and their row mapping (AmbleSQLite).
        .target(name: "AmbleStoreSupport", dependencies: ["AmbleModel", "AmbleLinux", "AmbleSQLite"]),
        /// The band's own store: sessions as they are recorded, calibration, settings.
        .target(name: "AmbleBandStore", dependencies: ["AmbleModel", "AmbleStoreSupport", "AmbleSQLite"]),
        /// The laptop's store: sessions pulled from any number of bands.
        .target(name: "AmbleCompanionStore", dependencies: ["AmbleModel", "AmbleStoreSupport", "AmbleSQLite"]),
        /// Framing and messages of the band <-> companion link, over any `ByteStream`; the Noise
        /// handshake and secure channel (X25519, ChaCha20-Poly1305, SHA-256 from swift-crypto);
        /// session blobs compressed with the system zlib.
        .target(name: "AmbleSync", dependencies: [
            "AmbleModel", "AmbleHardware", "CZlib", .product(name: "Crypto", package: "swift-crypto"),
        ]),

        // MARK: Version
        /// `AmbleVersion.string`, generated at build time from VERSION and git by the plugin below.
        /// scripts/fuzz builds every target, build tools included, with -sanitize=fuzzer, which
        /// no tool can be linked with: there (AMBLE_FUZZ set) the version is a fixed string.
        .target(name: "AmbleVersion", plugins: Context.environment["AMBLE_FUZZ"] == nil ? ["AmbleVersionPlugin"] : []),
        .plugin(name: "AmbleVersionPlugin", capability: .buildTool(), dependencies: ["amble-version-stamp"]),
        /// Writes the version source for the plugin; not installed.
        .executableTarget(name: "amble-version-stamp"),

        // MARK: Composition
        /// Board files (`boards/*.toml`) parsed into a checked `BoardConfiguration`.
        .target(name: "AmbleBoard", dependencies: ["AmbleModel", "AmbleLinux", "AmbleTOML"]),
        /// The band: builds itself from a board file and runs the sampling loop.
        .target(name: "AmbleBand", dependencies: [
            "AmbleHardware", "AmbleLinux", "AmbleLinuxHardware", "AmbleDrivers", "AmbleEmulators", "AmbleSimulation",
            "AmbleSignal", "AmbleStateMachines", "AmbleModel", "AmbleBandStore", "AmbleStoreSupport", "AmbleSync",
            "AmbleBoard", .product(name: "Logging", package: "swift-log"),
        ]),
        /// The laptop's domain rules, one implementation for `amble` and the study server: study
        /// files (AmbleTOML) and their due rules, the survey as a state machine, goals and
        /// challenges, exports (CSV, Open mHealth, TCX, FIT) and reports (HTML, SVG), as pure
        /// functions of sessions, answers, now and the time zone.
        .target(name: "AmbleCompanion", dependencies: [
            "AmbleModel", "AmbleCompanionStore", "AmbleLinux", "AmbleVersion", "AmbleTOML",
        ]),
        /// The companion's commands (`amble ...`).
        .target(name: "AmbleCLI", dependencies: [
            "AmbleCompanion", "AmbleHardware", "AmbleLinux", "AmbleSync", "AmbleModel", "AmbleCompanionStore", "AmbleStoreSupport",
            "AmbleSQLite", "AmbleSignal", "AmbleRecordings", "AmbleVersion",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            // The study server's client (StudyServer/): HTTP/1.1 over TLS with a pinned certificate.
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            "AmbleStudyAPI",
        ]),
        .executableTarget(name: "ambled", dependencies: [
            "AmbleBand", "AmbleBoard", "AmbleLinux", "AmbleVersion",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "amble", dependencies: ["AmbleCLI"]),

        // MARK: The study server (issue 33; docs/server.md)
        /// The study server's wire types (Codable), item kinds, digests and limits, shared by the
        /// server and the laptop's client: FoundationEssentials and swift-crypto only, no NIO.
        .target(name: "AmbleStudyAPI", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        /// The study server: Hummingbird 2 app, PostgreSQL repositories and frozen migrations,
        /// access tokens (EdDSA), allocation, admin operations. All state lives in PostgreSQL.
        .target(name: "AmbleServer", dependencies: [
            "AmbleStudyAPI", "AmbleCompanion", "AmbleCompanionStore", "AmbleSync", "AmbleModel", "AmbleLinux",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Logging", package: "swift-log"),
            "AmbleTOML",   // the study file as participants get it
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        /// The study server's upload latency on loopback (scripts/bench-server); not shipped.
        .executableTarget(name: "bench-server", dependencies: [
            "AmbleServer", "AmbleStudyAPI", "AmbleSync", "AmbleModel",
            .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Crypto", package: "swift-crypto"),
        ]),
        /// The study server under load (scripts/load-server): simulated participants with real tokens
        /// and sessions, open-loop arrivals, HDR latencies, crash trials; a measurement, not a test.
        .executableTarget(name: "amble-server-load", dependencies: [
            "AmbleStudyAPI", "AmbleSync", "AmbleModel", "AmbleSimulation", "AmbleSignal",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        /// `amble-server`: argument parsing over AmbleServer.
        .executableTarget(name: "amble-server", dependencies: [
            "AmbleServer", "AmbleVersion", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
        ]),
        /// Hardware-in-the-loop checks of the Linux layer, run by scripts/hil inside a VM
        /// against the kernel's i2c-stub and gpio-sim (see docs/hil.md).
        .executableTarget(name: "amble-hil", dependencies: [
            "AmbleLinux", "AmbleLinuxHardware", "AmbleHardware", "AmbleDrivers", "AmbleStateMachines",
        ]),
        /// The step counter's cost on synthetic recordings (scripts/bench-steps); not a test.
        .executableTarget(name: "bench-steps", dependencies: ["AmbleSignal", "AmbleSimulation", "AmbleRecordings"]),
        /// The step counter's figures per device on labelled recordings, leave-one-device-out
        /// and with its parameters moved (scripts/score-steps); a developer's measurement, not a test.
        .executableTarget(name: "score-steps", dependencies: [
            "AmbleSignal", "AmbleRecordings", "AmbleSimulation",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        /// Synthetic days of short walking bouts cut from labelled recordings (scripts/make-day);
        /// a developer's tool, its days written outside the repository.
        .executableTarget(name: "make-day", dependencies: [
            "AmbleSimulation", "AmbleRecordings",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        /// The sync link's costs (scripts/bench-sync): session data size, a throttled serial line,
        /// a flood of hostile peers; not a test.
        .executableTarget(name: "bench-sync", dependencies: [
            "AmbleBandStore", "AmbleCompanionStore", "AmbleSync", "AmbleLinux", "AmbleHardware", "AmbleModel",
        ]),
        /// The heart-rate estimator's figures per device and sensor variant on the development
        /// recordings, leave-one-device-out and confidence against error (scripts/score-hr);
        /// a developer's measurement, not a test.
        .executableTarget(name: "score-hr", dependencies: [
            "AmbleSignal", "AmbleRecordings", "AmbleSimulation",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        /// The study server's client against a running amble-server (scripts/bench-study-upload):
        /// one session's upload latency, a month offline caught up; not a test.
        .executableTarget(name: "bench-study-upload", dependencies: [
            "AmbleCLI", "AmbleCompanionStore", "AmbleStudyAPI", "AmbleSync", "AmbleModel", "AmbleLinux",
        ]),
        /// The cost of reading board and study files (scripts/bench-toml); not a test.
        .executableTarget(name: "bench-toml", dependencies: ["AmbleBoard", "AmbleLinux", "AmbleTOML"]),
        /// The heart-rate estimator's cost on synthetic PPG (scripts/bench-hr); not a test.
        .executableTarget(name: "bench-hr", dependencies: ["AmbleSignal", "AmbleSimulation", "AmbleRecordings"]),
        /// Every parser of outside input as a function of bytes (frames, messages, the band's
        /// connection, session data and the store's import, board files and TOML, recordings), for
        /// libFuzzer (scripts/fuzz) and for the tests that replay the kept corpus and crashes.
        .target(name: "AmbleFuzzTargets", dependencies: [
            "AmbleSync", "AmbleBoard", "AmbleRecordings", "AmbleCompanionStore", "AmbleModel", "AmbleCLI", "AmbleCompanion", "AmbleServer",
            "AmbleTOML",
        ]),
        /// libFuzzer's entry when built by scripts/fuzz (-sanitize=fuzzer -DAMBLE_FUZZ), else
        /// `amble-fuzz TARGET FILE...` replays inputs.
        .executableTarget(name: "amble-fuzz", dependencies: ["AmbleFuzzTargets", "CLibFuzzer"]),
        /// libFuzzer's driver, declared for amble-fuzz.
        .target(name: "CLibFuzzer"),

        // MARK: Tests
        /// What several test targets share (a study file run by a server, headless Chromium, a
        /// program run to its end); a regular target that only test targets depend on.
        .target(name: "AmbleTestSupport", path: "Tests/AmbleTestSupport"),
        .testTarget(name: "AmbleStateMachinesTests", dependencies: [
            "AmbleStateMachines", "AmbleModel", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "AmbleSignalTests", dependencies: [
            "AmbleSignal", "AmbleSimulation", "AmbleRecordings",
        ]),
        .testTarget(name: "AmbleDriversTests", dependencies: [
            "AmbleDrivers", "AmbleEmulators", "AmbleHardware", "AmbleSimulation",
        ]),
        .testTarget(name: "AmbleStoreTests", dependencies: [
            "AmbleBandStore", "AmbleCompanionStore", "AmbleStoreSupport", "AmbleModel", "AmbleLinux", "AmbleSQLite", "CSQLite",
        ], exclude: ["Fixtures"]),
        .testTarget(name: "AmbleSyncTests", dependencies: ["AmbleSync", "AmbleHardware", "AmbleModel"]),
        .testTarget(name: "AmbleBoardTests", dependencies: ["AmbleBoard", "AmbleModel", "AmbleTOML"]),
        /// The TOML reader against its own fixtures and, where ../shared is beside the checkout,
        /// the TOML project's conformance suite (toml-test).
        .testTarget(name: "AmbleTOMLTests", dependencies: ["AmbleTOML"], exclude: ["Fixtures"]),
        .testTarget(name: "AmbleFuzzTests", dependencies: ["AmbleFuzzTargets"]),
        /// The laptop's domain rules alone (AmbleCompanion): the study file's server keys, allocation.
        .testTarget(name: "AmbleCompanionTests", dependencies: [
            "AmbleCompanion", "AmbleModel", "AmbleTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "AmbleBandTests", dependencies: [
            "AmbleBand", "AmbleCLI", "AmbleTestSupport", "AmbleCompanion", "AmbleBoard", "AmbleBandStore", "AmbleCompanionStore", "AmbleModel",
            "AmbleHardware", "AmbleLinux", "AmbleSync", "AmbleSimulation",
            .product(name: "Logging", package: "swift-log"), "AmbleSQLite",
        ]),
        /// The laptop's side of the study server: the outbox's policy and uploads, the join link,
        /// the commands.
        /// the commands; and against the real amble-server and PostgreSQL (skipped, and said so,
        /// where AMBLE_TEST_DATABASE_URL is unset).
        .testTarget(name: "AmbleStudyClientTests", dependencies: [
            "AmbleCLI", "AmbleCompanion", "AmbleCompanionStore", "AmbleStudyAPI", "AmbleModel", "AmbleSync", "AmbleServer", "AmbleTestSupport",
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "AmbleLinuxTests", dependencies: ["AmbleLinux", "AmbleLinuxHardware", "AmbleHardware"]),
        /// The study server against a real PostgreSQL 15 (AMBLE_TEST_DATABASE_URL, set by
        /// scripts/test from scripts/pg-scratch); skipped, and said so, where it is unset.
        .testTarget(name: "AmbleServerTests", dependencies: [
            "AmbleServer", "AmbleStudyAPI", "AmbleSync", "AmbleModel", "AmbleCompanion", "AmbleCompanionStore", "AmbleTestSupport",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
    ]
)
