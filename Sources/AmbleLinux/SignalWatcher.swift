#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Turns SIGTERM and SIGINT into a readable descriptor the band's loop polls, so shutdown
/// happens between two ticks with the session closed and stored.
public final class SignalWatcher {
    private let sources: [DispatchSourceSignal]
    private let readEnd: Int32
    private let writeEnd: Int32

    public var pollDescriptor: Int32 { readEnd }

    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed: \(Errno.current)")
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = setNonBlocking(end)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        let target = writeEnd
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte = UInt8(truncatingIfNeeded: number)
                _ = Glibc.write(target, &byte, 1)
            }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
        closeDescriptor(readEnd)
        closeDescriptor(writeEnd)
    }

    /// The signal received since the last call, if any.
    public func takeSignal() -> Int32? {
        var byte: UInt8 = 0
        return Glibc.read(readEnd, &byte, 1) == 1 ? Int32(byte) : nil
    }
}
