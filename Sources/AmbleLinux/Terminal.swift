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

/// Whether standard error is a terminal (the companion's progress bars go there).
public func standardErrorIsTerminal() -> Bool { isatty(STDERR_FILENO) == 1 }

/// Whether standard input is a terminal (the companion asks questions only then).
public func standardInputIsTerminal() -> Bool { isatty(STDIN_FILENO) == 1 }

/// Writes text to standard output without ever blocking the band: when the reader is not
/// keeping up (a full pipe, a stalled journal) the text is dropped, since a status line that
/// is late is worth nothing and the loop must go on. Returns false when it was dropped.
@discardableResult
public func writeStandardOutput(_ text: String) -> Bool {
    writeWithoutBlocking(STDOUT_FILENO, text)
}

/// Writes out what `print` has buffered (every stdio stream: `fflush(NULL)`), before a prompt
/// waits for input or a long wait begins.
public func flushStandardOutput() {
    fflush(nil)
}

/// Writes text to standard error, like `writeStandardOutput`.
@discardableResult
public func writeStandardError(_ text: String) -> Bool {
    writeWithoutBlocking(STDERR_FILENO, text)
}

private func writeWithoutBlocking(_ fd: Int32, _ text: String) -> Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    guard poll(&pfd, 1, 0) > 0, pfd.revents & Int16(POLLOUT) != 0 else { return false }
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += written
        if offset < bytes.count {
            // A pipe took part of it: wait briefly for the rest rather than tearing the line.
            guard poll(&pfd, 1, 50) > 0 else { return false }
        }
    }
    return true
}

/// An exclusive lock on a directory (`flock` on `DIR/.lock`), held while this lives: two
/// programs must not record into the same store.
public final class DirectoryLock {
    private let fd: Int32
    public let path: String

    /// Returns nil when another process holds the lock; throws when the lock file cannot be made.
    public init?(directory: String) throws(Errno) {
        path = directory + "/.lock"
        let fd = Glibc.open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        if fd < 0 { throw Errno.current }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            closeDescriptor(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { closeDescriptor(fd) }
}

/// The width of the terminal on standard output, in columns; nil when it is not a terminal
/// or does not say (asked again each time, so a resized window is followed).
public func standardOutputColumns() -> Int? {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
}
