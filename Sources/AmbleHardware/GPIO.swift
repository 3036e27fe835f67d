/// A GPIO line driven by us (the motor). `isActive` is the logical level: a line the board
/// file marks active-low is driven low when active.
public protocol GPIOOutput: AnyObject {
    var lineName: String { get }
    func set(active: Bool) throws(GPIOError)
}

/// A change of an input line's logical level, with the time the kernel saw it.
public struct GPIOEdge: Equatable, Sendable {
    /// `true` when the line became active (a button went down).
    public var becameActive: Bool
    /// Monotonic time of the edge in seconds, on the same clock as `BandClock.nowSeconds`.
    public var timeSeconds: Double

    public init(becameActive: Bool, timeSeconds: Double) {
        self.becameActive = becameActive
        self.timeSeconds = timeSeconds
    }
}

/// A GPIO input line watched for both edges (a button).
public protocol GPIOInput: AnyObject {
    var lineName: String { get }
    /// A descriptor that becomes readable when an edge is waiting, if the line has one.
    var pollDescriptor: Int32? { get }
    /// Returns the edges that happened since the last call, oldest first; never blocks.
    func drainEdges() throws(GPIOError) -> [GPIOEdge]
    /// The current logical level.
    func isActive() throws(GPIOError) -> Bool
}

/// Pull resistor of an input line.
public enum GPIOPull: String, Sendable, CaseIterable {
    case up, down, none
}

/// A GPIO operation that failed, naming the chip and line.
public struct GPIOError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Equatable, Sendable {
        case chipMissing
        case lineMissing
        case lineBusy(consumer: String?)
        case permissionDenied
        case io(errno: Int32)
    }

    public var chip: String
    public var line: String
    public var kind: Kind

    public init(chip: String, line: String, kind: Kind) {
        self.chip = chip
        self.line = line
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .chipMissing:
            return "GPIO chip \(chip) not found. `gpiodetect` lists the chips; on a Raspberry Pi 5 the header is on another chip than on older Pis, so check the board file."
        case .lineMissing:
            return "GPIO line \(line) not found on \(chip). `gpioinfo \(chip)` lists its lines; fix the line in the board file."
        case .lineBusy(let consumer):
            let who = consumer.map { " (held by \"\($0)\")" } ?? ""
            return "GPIO line \(line) on \(chip) is busy\(who). Stop the other program or free the pin from the device tree overlay that claims it."
        case .permissionDenied:
            return "GPIO chip \(chip): permission denied. Add the user to the gpio group (`sudo usermod -aG gpio $USER`) or install scripts/99-amble.rules."
        case .io(let errno):
            return "GPIO line \(line) on \(chip): I/O error (errno \(errno))."
        }
    }
}
