#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware
import CGPIOD

/// Where a GPIO line is: a chip (name `gpiochip0`, path `/dev/gpiochip0`, number `0` or
/// label `pinctrl-rp1`) and a line (offset or name such as `GPIO17`). Board files give both,
/// so a board whose header moved to another chip (the Raspberry Pi 5) needs no code change.
public struct GPIOLineAddress: Equatable, Sendable, CustomStringConvertible {
    public enum Line: Equatable, Sendable {
        case offset(Int)
        case name(String)
    }

    public var chip: String
    public var line: Line

    public init(chip: String, line: Line) {
        self.chip = chip
        self.line = line
    }

    public var description: String {
        switch line {
        case .offset(let n): return "\(chip) line \(n)"
        case .name(let name): return "\(chip) line \"\(name)\""
        }
    }

    var lineDescription: String {
        switch line {
        case .offset(let n): return String(n)
        case .name(let name): return name
        }
    }
}

/// One requested libgpiod line and the chip it belongs to. The line is released and the chip
/// closed when this is freed.
final class GPIOLineHandle {
    let chip: OpaquePointer
    let line: OpaquePointer
    let address: GPIOLineAddress

    /// Opens the chip and finds the line, without requesting it.
    init(address: GPIOLineAddress) throws(GPIOError) {
        self.address = address
        guard let chip = gpiod_chip_open_lookup(address.chip) else {
            let code = errno
            let kind: GPIOError.Kind = (code == EACCES || code == EPERM) ? .permissionDenied : .chipMissing
            throw GPIOError(chip: address.chip, line: address.lineDescription, kind: kind)
        }
        let found: OpaquePointer?
        switch address.line {
        case .offset(let offset):
            found = offset >= 0 && offset < Int(gpiod_chip_num_lines(chip)) ? gpiod_chip_get_line(chip, UInt32(offset)) : nil
        case .name(let name):
            found = gpiod_chip_find_line(chip, name)
        }
        guard let line = found else {
            gpiod_chip_close(chip)
            throw GPIOError(chip: address.chip, line: address.lineDescription, kind: .lineMissing)
        }
        self.chip = chip
        self.line = line
    }

    deinit {
        gpiod_line_release(line)
        gpiod_chip_close(chip)
    }

    /// Turns a failed request into the error a maker can act on.
    func requestError() -> GPIOError {
        let code = errno
        let kind: GPIOError.Kind
        switch code {
        case EBUSY:
            let consumer = gpiod_line_consumer(line).map { String(cString: $0) }
            kind = .lineBusy(consumer: consumer)
        case EACCES, EPERM:
            kind = .permissionDenied
        default:
            kind = .io(errno: code)
        }
        return GPIOError(chip: address.chip, line: address.lineDescription, kind: kind)
    }

    func ioError() -> GPIOError {
        GPIOError(chip: address.chip, line: address.lineDescription, kind: .io(errno: errno))
    }
}

/// The name a requested line shows in `gpioinfo`.
private let consumerName = "ambled"

/// A GPIO output line through libgpiod 1.6's character device.
public final class LinuxGPIOOutput: GPIOOutput {
    private let handle: GPIOLineHandle
    public var lineName: String { handle.address.description }

    public init(address: GPIOLineAddress, activeLow: Bool = false, initiallyActive: Bool = false) throws(GPIOError) {
        handle = try GPIOLineHandle(address: address)
        let flags = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        if gpiod_line_request_output_flags(handle.line, consumerName, flags, initiallyActive ? 1 : 0) < 0 {
            throw handle.requestError()
        }
    }

    public func set(active: Bool) throws(GPIOError) {
        if gpiod_line_set_value(handle.line, active ? 1 : 0) < 0 {
            throw handle.ioError()
        }
    }
}

/// A GPIO input line watched for both edges, with kernel timestamps (CLOCK_MONOTONIC).
public final class LinuxGPIOInput: GPIOInput {
    private let handle: GPIOLineHandle
    private let eventDescriptor: Int32
    public var lineName: String { handle.address.description }
    public var pollDescriptor: Int32? { eventDescriptor }

    public init(address: GPIOLineAddress, activeLow: Bool, pull: GPIOPull) throws(GPIOError) {
        handle = try GPIOLineHandle(address: address)
        var flags: Int32 = 0
        if activeLow { flags |= Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) }
        switch pull {
        case .up: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
        case .down: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        case .none: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
        }
        if gpiod_line_request_both_edges_events_flags(handle.line, consumerName, flags) < 0 {
            throw handle.requestError()
        }
        let fd = gpiod_line_event_get_fd(handle.line)
        if fd < 0 { throw handle.ioError() }
        eventDescriptor = fd
    }

    public func drainEdges() throws(GPIOError) -> [GPIOEdge] {
        var edges: [GPIOEdge] = []
        var timeout = timespec(tv_sec: 0, tv_nsec: 0)
        while true {
            let ready = gpiod_line_event_wait(handle.line, &timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw handle.ioError()
            }
            if ready == 0 { return edges }
            var event = gpiod_line_event()
            if gpiod_line_event_read(handle.line, &event) < 0 {
                if errno == EINTR { continue }
                throw handle.ioError()
            }
            let seconds = Double(event.ts.tv_sec) + Double(event.ts.tv_nsec) / 1e9
            // With both edges requested the kernel reports the logical level after the
            // edge, so active-low is already applied: RISING means "became active".
            edges.append(GPIOEdge(becameActive: event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE), timeSeconds: seconds))
        }
    }

    public func isActive() throws(GPIOError) -> Bool {
        let value = gpiod_line_get_value(handle.line)
        if value < 0 { throw handle.ioError() }
        return value == 1
    }
}
