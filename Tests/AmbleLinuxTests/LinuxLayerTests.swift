import AmbleHardware
import AmbleLinux
import AmbleLinuxHardware
import Testing

struct HostPortTests {
    @Test(arguments: [
        ("127.0.0.1:7070", HostPort(host: "127.0.0.1", port: 7070)),
        ("[::1]:80", HostPort(host: "::1", port: 80)),
        ("band.local:0", HostPort(host: "band.local", port: 0)),
    ])
    func parses(text: String, expected: HostPort) {
        #expect(HostPort(parsing: text) == expected)
        #expect(HostPort(parsing: expected.description) == expected)
    }

    @Test(arguments: ["7070", ":7070", "host:", "host:70000", "[::1]7070"])
    func refuses(text: String) {
        #expect(HostPort(parsing: text) == nil)
    }
}

struct TCPTests {
    @Test func carriesBytesBothWays() throws {
        let listener = try TCPListener(bindingTo: HostPort(host: "127.0.0.1", port: 0))
        #expect(listener.boundAddress.port != 0)
        let client = try TCPConnection.connect(to: listener.boundAddress)
        var server: TCPConnection?
        for _ in 0..<100 where server == nil {
            server = try listener.accept()
            if server == nil { _ = waitForReadable([listener.pollDescriptor], timeoutSeconds: 0.05) }
        }
        let accepted = try #require(server)
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try client.write(payload)
        var received: [UInt8] = []
        while received.count < payload.count {
            guard let bytes = try accepted.read(maxCount: 65536, timeoutSeconds: 2) else { break }
            received += bytes
        }
        #expect(received == payload)
        client.close()
        #expect(try accepted.read(maxCount: 16, timeoutSeconds: 2) == nil, "a closed peer reads as nil")
    }

    /// The host of a peer connecting from `source` to a listener on `listening`: what the band's
    /// handshake limits count a TCP peer by.
    func acceptedPeer(listening: String, from source: String) throws -> TCPConnection {
        let listener = try TCPListener(bindingTo: HostPort(host: listening, port: 0))
        let client = try TCPConnection.connect(to: listener.boundAddress, from: source)
        defer { client.close() }
        var server: TCPConnection?
        for _ in 0..<100 where server == nil {
            server = try listener.accept()
            if server == nil { _ = waitForReadable([listener.pollDescriptor], timeoutSeconds: 0.05) }
        }
        return try #require(server)
    }

    @Test func aPeersHostIsItsAddressWithoutThePort() throws {
        let peer = try acceptedPeer(listening: "127.0.0.1", from: "127.0.0.2")
        #expect(peer.peerHost == "127.0.0.2")
        #expect(peer.peerName.hasPrefix("127.0.0.2:") && peer.peerName != peer.peerHost, "the name keeps the port")
    }

    @Test(.enabled(if: (try? TCPListener(bindingTo: HostPort(host: "::1", port: 0))) != nil, "this host has no IPv6 loopback"))
    func anIPv6PeersHostIsItsWholeAddress() throws {
        #expect(try acceptedPeer(listening: "::1", from: "::1").peerHost == "0:0:0:0:0:0:0:1")
    }

    @Test func refusedConnectionSaysWhatToDo() throws {
        // Bind then close to find a port nothing listens on.
        let port = try TCPListener(bindingTo: HostPort(host: "127.0.0.1", port: 0)).boundAddress.port
        let error = #expect(throws: StreamError.self) { try TCPConnection.connect(to: HostPort(host: "127.0.0.1", port: port)) }
        #expect(error?.message.contains("ambled") == true)
    }

    @Test func portInUseIsExplained() throws {
        let first = try TCPListener(bindingTo: HostPort(host: "127.0.0.1", port: 0))
        let error = #expect(throws: StreamError.self) { try TCPListener(bindingTo: first.boundAddress) }
        #expect(error?.message.contains("in use") == true)
    }
}

struct SerialTests {
    @Test func roundTripsOverAPseudoTerminal() throws {
        let pair = try PseudoTerminalPair.open()
        let port = try LinuxSerialPort(path: pair.subordinatePath, baudRate: 115_200)
        let message = Array("AM hello over serial \u{1}\u{0}\u{FF}".utf8) + [0, 0x0A, 0x0D, 0x11, 0x13]
        try port.write(message)
        var received: [UInt8] = []
        while received.count < message.count {
            guard let bytes = try pair.controller.read(maxCount: 256, timeoutSeconds: 2), !bytes.isEmpty else { break }
            received += bytes
        }
        #expect(received == message, "raw mode: no byte is translated or swallowed")
    }

    @Test func refusesANonStandardBaudRate() {
        let error = #expect(throws: StreamError.self) { try LinuxSerialPort(path: "/dev/null", baudRate: 12345) }
        #expect(error?.message.contains("115200") == true)
    }

    @Test func missingDeviceIsExplained() {
        let error = #expect(throws: StreamError.self) { try LinuxSerialPort(path: "/dev/ttyDOESNOTEXIST") }
        #expect(error?.message.contains("plugged in") == true)
    }

    @Test func aFileThatIsNotATerminalIsRefused() {
        let error = #expect(throws: StreamError.self) { try LinuxSerialPort(path: "/dev/null") }
        #expect(error?.message.contains("not a serial line") == true)
    }
}

struct LinuxErrorTests {
    @Test func missingI2CBusSaysHowToEnableIt() {
        let error = #expect(throws: I2CError.self) { try LinuxI2CBus(number: 97) }
        #expect(error?.kind == .busMissing)
        #expect(error?.description.contains("raspi-config") == true)
    }

    @Test func missingGPIOChipIsNamed() {
        let error = #expect(throws: GPIOError.self) {
            try LinuxGPIOOutput(address: GPIOLineAddress(chip: "gpiochip97", line: .offset(3)))
        }
        #expect(error?.kind == .chipMissing)
        #expect(error?.description.contains("gpiochip97") == true)
    }

    @Test func clockIsMonotonicAndTracksWallTime() {
        // Each monotonic reading is taken between two wall-clock readings, so the comparison
        // holds however long the process is descheduled between them (a busy machine).
        let clock = SystemClock()
        let unixBefore = clock.unixSeconds, start = clock.nowSeconds, unixAfterStart = clock.unixSeconds
        sleepSeconds(0.02)
        let unixBeforeEnd = clock.unixSeconds, end = clock.nowSeconds, unixAfter = clock.unixSeconds
        let elapsed = end - start
        #expect(elapsed >= 0.02, "slept at least as long as asked")
        let slack = 0.002   // the wall clock's steps and slewing, seconds
        #expect(elapsed >= unixBeforeEnd - unixAfterStart - slack && elapsed <= unixAfter - unixBefore + slack,
                "monotonic \(elapsed) s within the wall clock's \(unixBeforeEnd - unixAfterStart) to \(unixAfter - unixBefore) s")
        #expect(unixBefore > 1_700_000_000)
    }
}
