#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal in raw, non-echoing mode for single-key input (the simulated
/// board's buttons). The previous mode comes back on `restore()` or when this is freed.
public final class RawKeyboard {
    private var saved = termios()
    private var active = false
    public let pollDescriptor: Int32 = STDIN_FILENO

    /// Returns nil when standard input is not a terminal.
    public init?() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        active = true
    }

    deinit { restore() }

    public func restore() {
        guard active else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        active = false
    }

    /// Keys typed since the last call.
    public func readKeys() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let got = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, 64) }
        return got > 0 ? Array(buffer.prefix(got)) : []
    }
}

/// Whether standard output is a terminal (status lines are redrawn in place only then).
public func standardOutputIsTerminal() -> Bool { isatty(STDOUT_FILENO) == 1 }

/// Writes text to standard output at once (no buffering), all of it.
public func writeStandardOutput(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
}
