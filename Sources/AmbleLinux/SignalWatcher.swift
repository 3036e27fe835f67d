#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGTERM and SIGINT into a readable descriptor the band's loop polls, so shutdown
/// happens between two ticks with the session closed and stored.
///
/// A signal handler installed with `sigaction` writes the signal's number into a pipe (the
/// self-pipe pattern). The handler is in place when `init` returns, so no signal that comes
/// after that is lost. A signal handler cannot carry context, so the pipe is process-wide:
/// one watcher at a time (the band has one); a new watcher takes over from an older one.
public final class SignalWatcher {
    private let readEnd: Int32
    private let writeEnd: Int32
    private var previousActions: [(signal: Int32, action: sigaction)] = []

    public var pollDescriptor: Int32 { readEnd }

    /// SIGINT (Ctrl-C) and SIGTERM by their numbers, for code above the Linux layer.
    public static let interrupt = SIGINT
    public static let terminate = SIGTERM

    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed: \(Errno.current)")
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = setNonBlocking(end)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        signalPipeWriteEnd = writeEnd
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Async-signal-safe: one write(2), with the interrupted code's errno kept.
                let savedErrno = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = Glibc.write(signalPipeWriteEnd, &byte, 1)
                errno = savedErrno
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var previous = sigaction()
            precondition(sigaction(number, &action, &previous) == 0, "sigaction(\(number)) failed: \(Errno.current)")
            previousActions.append((number, previous))
        }
        // A parent may have started us with these signals blocked (the mask is inherited
        // across exec): unblock them, or SIGTERM would wait forever.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in signals { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    deinit {
        for (number, previous) in previousActions {
            var action = previous
            sigaction(number, &action, nil)
        }
        if signalPipeWriteEnd == writeEnd { signalPipeWriteEnd = -1 }
        closeDescriptor(readEnd)
        closeDescriptor(writeEnd)
    }

    /// The default action back for the watched signals while the watcher lives on: the next
    /// one ends the process (the actions from before the watcher come back when it is freed).
    public func restoreDefaultActions() {
        for (number, _) in previousActions { _ = Glibc.signal(number, SIG_DFL) }
    }

    /// The signal received since the last call, if any.
    public func takeSignal() -> Int32? {
        var byte: UInt8 = 0
        return Glibc.read(readEnd, &byte, 1) == 1 ? Int32(byte) : nil
    }
}

/// Where the signal handler writes: the newest watcher's pipe, -1 when there is none.
/// Constant-initialized, so the handler reads it without any lazy initialization.
private nonisolated(unsafe) var signalPipeWriteEnd: Int32 = -1
