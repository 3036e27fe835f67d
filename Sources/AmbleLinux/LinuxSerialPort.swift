#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware

/// A serial line through termios: raw, 8 data bits, no parity, one stop bit, no flow control.
public final class LinuxSerialPort: FileDescriptorStream {
    /// The standard rates termios knows, in bits per second.
    public static let standardBaudRates: [Int: speed_t] = [
        1200: speed_t(B1200), 2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600),
        19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115200: speed_t(B115200), 230400: speed_t(B230400), 460800: speed_t(B460800),
        500000: speed_t(B500000), 576000: speed_t(B576000), 921600: speed_t(B921600),
        1000000: speed_t(B1000000), 1152000: speed_t(B1152000), 1500000: speed_t(B1500000),
        2000000: speed_t(B2000000), 2500000: speed_t(B2500000), 3000000: speed_t(B3000000),
        3500000: speed_t(B3500000), 4000000: speed_t(B4000000),
    ]

    /// Opens `path` at `baudRate` bits per second.
    public init(path: String, baudRate: Int = 115_200) throws(StreamError) {
        guard let speed = Self.standardBaudRates[baudRate] else {
            let known = Self.standardBaudRates.keys.sorted().map(String.init).joined(separator: ", ")
            throw StreamError(peer: path, message: "\(baudRate) is not a standard baud rate; use one of \(known)")
        }
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            let message: String
            switch code {
            case ENOENT: message = "no such serial device; is the adapter plugged in? (`ls /dev/tty*`)"
            case EACCES: message = "permission denied; add the user to the dialout group (`sudo usermod -aG dialout $USER`)"
            case EBUSY: message = "the device is busy; another program has it open"
            default: message = "cannot open"
            }
            throw StreamError(peer: path, message: message, errno: code)
        }
        var options = termios()
        if tcgetattr(fd, &options) < 0 {
            let code = errno
            closeDescriptor(fd)
            throw StreamError(peer: path, message: "not a serial line (tcgetattr failed)", errno: code)
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        options.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(PARENB) | tcflag_t(CRTSCTS))
        options.c_iflag &= ~(tcflag_t(IXON) | tcflag_t(IXOFF) | tcflag_t(IXANY))
        // VMIN = 1 on a descriptor opened O_NONBLOCK: an idle read gives EAGAIN and a
        // hang-up reads 0, as on a socket.
        withUnsafeMutableBytes(of: &options.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        cfsetispeed(&options, speed)
        cfsetospeed(&options, speed)
        if tcsetattr(fd, TCSANOW, &options) < 0 {
            let code = errno
            closeDescriptor(fd)
            throw StreamError(peer: path, message: "cannot configure the line (tcsetattr failed)", errno: code)
        }
        tcflush(fd, TCIOFLUSH)
        super.init(descriptor: fd, peerName: path)
    }
}

/// A pseudo-terminal pair: a real serial line between two descriptors, for tests and for
/// the simulated board's serial link.
public struct PseudoTerminalPair {
    /// The path of the subordinate side (`/dev/pts/N`), which a program opens like a tty.
    public var subordinatePath: String
    /// The controlling side, already open and raw.
    public var controller: FileDescriptorStream

    public static func open() throws(StreamError) -> PseudoTerminalPair {
        var controllerFD: Int32 = -1, subordinateFD: Int32 = -1
        var raw = termios()
        cfmakeraw(&raw)
        var name = [CChar](repeating: 0, count: 128)
        if openpty(&controllerFD, &subordinateFD, &name, &raw, nil) < 0 {
            throw StreamError(peer: "pty", message: "openpty failed", errno: errno)
        }
        // Keep the subordinate open so the controller does not see a hang-up before a peer opens it.
        _ = setNonBlocking(controllerFD)
        let path = cString(name)
        let stream = PseudoTerminalController(descriptor: controllerFD, peerName: path, keepOpen: subordinateFD)
        return PseudoTerminalPair(subordinatePath: path, controller: stream)
    }
}

final class PseudoTerminalController: FileDescriptorStream {
    private let keepOpen: Int32
    init(descriptor: Int32, peerName: String, keepOpen: Int32) {
        self.keepOpen = keepOpen
        super.init(descriptor: descriptor, peerName: peerName)
    }
    deinit { closeDescriptor(keepOpen) }
}

/// A serial line between two programs that each open a device: two pseudo-terminal pairs
/// whose controlling sides are joined, passing at most `bytesPerSecond` each way when given
/// (a line at B baud, 8N1, passes B / 10). The band opens one subordinate path, the laptop the
/// other (`scripts/bench-sync`, the interrupted-sync tests).
public final class SerialLineRelay {
    /// The two ends' device paths.
    public let paths: (String, String)
    private let ends: [FileDescriptorStream]
    private let bytesPerSecond: Double?

    public init(bytesPerSecond: Double? = nil) throws(StreamError) {
        let a = try PseudoTerminalPair.open(), b = try PseudoTerminalPair.open()
        paths = (a.subordinatePath, b.subordinatePath)
        ends = [a.controller, b.controller]
        self.bytesPerSecond = bytesPerSecond
    }

    /// Passes bytes both ways until `stop` says so (asked about every millisecond).
    public func run(until stop: () -> Bool = { false }) {
        let clock = SystemClock()
        var credit = [0.0, 0.0]
        var last = clock.nowSeconds
        var pending: [[UInt8]] = [[], []]
        while !stop() {
            let now = clock.nowSeconds
            if let rate = bytesPerSecond {
                for i in 0 ..< 2 { credit[i] = min(credit[i] + (now - last) * rate, rate * 0.01 + 64) }
            }
            last = now
            for i in 0 ..< 2 {
                if pending[i].count < 4096, let bytes = try? ends[i].read(maxCount: 4096, timeoutSeconds: 0), !bytes.isEmpty {
                    pending[i] += bytes
                }
                let allowed = bytesPerSecond == nil ? pending[i].count : min(pending[i].count, Int(credit[i]))
                if allowed > 0, let written = try? ends[1 - i].writeAvailable(pending[i][..<allowed]), written > 0 {
                    pending[i].removeFirst(written)
                    credit[i] -= Double(written)
                }
            }
            _ = waitForReadable(ends.map(\.pollDescriptor), timeoutSeconds: 0.001)
        }
    }
}
