#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware
import AmbleLinux

/// Serial lines (a pseudo-terminal pair), TCP over loopback, signals and the clock: the rest
/// of the Linux layer, run on the same kernel.
func runStreamChecks(_ run: HILRun) {
    run.check("serial: LinuxSerialPort at 115200 on a pty round-trips bytes both ways") {
        let pair = try PseudoTerminalPair.open()
        let port = try LinuxSerialPort(path: pair.subordinatePath, baudRate: 115_200)
        let outbound: [UInt8] = Array(0...255)  // raw: no byte is special
        try port.write(outbound)
        try expectEqual(try readExactly(outbound.count, from: pair.controller), outbound, "bytes at the controller")
        let inbound: [UInt8] = [0x7E, 0x00, 0x0D, 0x0A, 0x03, 0x11, 0x13, 0xFF]
        try pair.controller.write(inbound)
        try expectEqual(try readExactly(inbound.count, from: port), inbound, "bytes at the port")
        try expectEqual(try port.read(maxCount: 16, timeoutSeconds: 0.05), [], "read with nothing waiting")
    }
    run.check("serial: missing device, a non-tty and a non-standard rate are refused with reasons") {
        let missing = try expectThrows(StreamError.self, "open /dev/ttyUSB9") { _ = try LinuxSerialPort(path: "/dev/ttyUSB9") }
        try expectEqual(missing.errno, ENOENT, "errno for a missing device")
        let notATTY = try expectThrows(StreamError.self, "open /dev/null") { _ = try LinuxSerialPort(path: "/dev/null") }
        try expectEqual(notATTY.errno, ENOTTY, "errno for /dev/null")
        let pair = try PseudoTerminalPair.open()
        let rate = try expectThrows(StreamError.self, "open at 12345 baud") { _ = try LinuxSerialPort(path: pair.subordinatePath, baudRate: 12_345) }
        try expect(rate.message.contains("not a standard baud rate"), "message: \(rate.message)")
    }
    run.check("tcp: listener on 127.0.0.1, connect, accept, round trip, peer close") {
        let listener = try TCPListener(bindingTo: HostPort(host: "127.0.0.1", port: 0))
        try expect(listener.boundAddress.port != 0, "no port bound")
        let client = try TCPConnection.connect(to: listener.boundAddress, timeoutSeconds: 2)
        var server: TCPConnection?
        let deadline = monotonicSeconds() + 2
        while server == nil && monotonicSeconds() < deadline {
            _ = waitForReadable([listener.pollDescriptor], timeoutSeconds: 0.1)
            server = try listener.accept()
        }
        guard let server else { throw CheckFailure("no connection accepted within 2 s") }
        try client.write(Array("hello band".utf8))
        try expectEqual(try readExactly(10, from: server), Array("hello band".utf8), "bytes at the server")
        try server.write([1, 2, 3])
        try expectEqual(try readExactly(3, from: client), [1, 2, 3], "bytes at the client")
        client.close()
        try expectEqual(try server.read(maxCount: 8, timeoutSeconds: 1), nil, "read after the peer closed")
    }
    run.check("tcp: connecting to a port nobody listens on is refused") {
        let listener = try TCPListener(bindingTo: HostPort(host: "127.0.0.1", port: 0))
        let port = listener.boundAddress.port
        _ = consume listener
        let error = try expectThrows(StreamError.self, "connect to a closed port") {
            _ = try TCPConnection.connect(to: HostPort(host: "127.0.0.1", port: port), timeoutSeconds: 2)
        }
        try expectEqual(error.errno, ECONNREFUSED, "errno")
    }
    runSystemChecks(run)
}

/// Signals, the clock and the terminal.
func runSystemChecks(_ run: HILRun) {
    run.check("signals: SIGTERM and SIGINT right after set-up become readable on the watcher") {
        let watcher = SignalWatcher(signals: [SIGTERM, SIGINT])
        raise(SIGTERM)               // to this thread, at once
        kill(getpid(), SIGINT)       // to the process, as systemd or a shell sends it
        let ready = waitForReadable([watcher.pollDescriptor], timeoutSeconds: 2)
        try expect(ready.contains(watcher.pollDescriptor), "watcher not readable within 2 s")
        var taken: [Int32] = []
        let deadline = monotonicSeconds() + 2
        while taken.count < 2 && monotonicSeconds() < deadline {
            if let signal = watcher.takeSignal() { taken.append(signal) } else { sleepSeconds(0.01) }
        }
        try expectEqual(taken, [SIGTERM, SIGINT], "signals taken")
        try expectEqual(watcher.takeSignal(), nil, "a third take")
    }
    run.check("clock: SystemClock follows CLOCK_MONOTONIC; sleepSeconds sleeps") {
        let clock = SystemClock()
        let before = clock.nowSeconds
        try expect(abs(before - monotonicSeconds()) < 0.01, "nowSeconds \(before) is not CLOCK_MONOTONIC \(monotonicSeconds())")
        sleepSeconds(0.05)
        let slept = clock.nowSeconds - before
        try expect(slept >= 0.05 && slept < 0.5, "sleepSeconds(0.05) took \(slept) s")
        var realtime = timespec()
        clock_gettime(CLOCK_REALTIME, &realtime)
        try expect(abs(clock.unixSeconds - Double(realtime.tv_sec)) < 2, "unixSeconds \(clock.unixSeconds) far from CLOCK_REALTIME \(realtime.tv_sec)")
    }
    run.check("terminal: RawKeyboard makes the console raw and restores it") {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CheckFailure("standard input is not a terminal (inside the VM it is the serial console)")
        }
        var before = termios()
        tcgetattr(STDIN_FILENO, &before)
        guard let keyboard = RawKeyboard() else { throw CheckFailure("RawKeyboard() gave nil on a terminal") }
        var raw = termios()
        tcgetattr(STDIN_FILENO, &raw)
        try expectEqual(raw.c_lflag & tcflag_t(ICANON | ECHO), 0, "ICANON and ECHO while raw")
        try expectEqual(keyboard.readKeys(), [], "keys with none typed")
        keyboard.restore()
        var after = termios()
        tcgetattr(STDIN_FILENO, &after)
        try expectEqual(after.c_lflag, before.c_lflag, "c_lflag after restore()")
        try expect(standardOutputIsTerminal(), "standardOutputIsTerminal() is false on the console")
    }
}

/// Reads until `count` bytes came or 2 s passed.
func readExactly(_ count: Int, from stream: ByteStream) throws -> [UInt8] {
    var bytes: [UInt8] = []
    let deadline = monotonicSeconds() + 2
    while bytes.count < count && monotonicSeconds() < deadline {
        guard let got = try stream.read(maxCount: count - bytes.count, timeoutSeconds: 0.1) else {
            throw CheckFailure("stream closed after \(bytes.count) of \(count) bytes")
        }
        bytes += got
    }
    return bytes
}
