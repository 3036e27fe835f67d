#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every libc call of the Linux layer that can fail passes through here: EINTR is retried
/// and the errno is captured at once, before anything else can overwrite it.
package enum Syscall {
    /// Runs `body` until it does not fail with EINTR; returns its result or throws its errno.
    @discardableResult
    package static func retrying<T: BinaryInteger>(_ body: () -> T) -> Result<T, Errno> {
        while true {
            let result = body()
            if result >= 0 { return .success(result) }
            let code = errno
            if code == EINTR { continue }
            return .failure(Errno(code))
        }
    }
}

/// A C errno value with its name, for messages.
public struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int32
    public init(_ code: Int32) { self.code = code }

    public var description: String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return "\(String(cString: text)) (errno \(code))"
    }

    package static var current: Errno { Errno(errno) }
}

/// Closes a descriptor, ignoring EINTR as Linux requires (the descriptor is gone either way).
package func closeDescriptor(_ fd: Int32) {
    _ = Glibc.close(fd)
}

/// Sets O_NONBLOCK on a descriptor.
package func setNonBlocking(_ fd: Int32) -> Result<Void, Errno> {
    let flags = fcntl(fd, F_GETFL)
    if flags < 0 { return .failure(.current) }
    if fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 { return .failure(.current) }
    return .success(())
}

/// The text of a NUL-terminated C character buffer.
package func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
