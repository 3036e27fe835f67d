import AmbleHardware

/// A simulated output line (the motor) that remembers when it changed.
public final class SimulatedGPIOOutput: GPIOOutput {
    public let lineName: String
    private let clock: any BandClock
    public private(set) var isActive = false
    /// Every change: (time in seconds, level after it).
    public private(set) var history: [(timeSeconds: Double, active: Bool)] = []
    /// Fault injection: the next writes fail with EIO.
    public var failWrites = false

    public init(lineName: String, clock: any BandClock) {
        self.lineName = lineName
        self.clock = clock
    }

    public func set(active: Bool) throws(GPIOError) {
        if failWrites { throw GPIOError(chip: "sim", line: lineName, kind: .io(errno: 5)) }
        guard active != isActive else { return }
        isActive = active
        history.append((clock.nowSeconds, active))
        if history.count > 4096 { history.removeFirst(history.count - 4096) }
    }

    /// Seconds the line was active within [from, to).
    public func activeSeconds(from start: Double, to end: Double) -> Double {
        var total = 0.0
        var level = false
        var since = start
        for change in history where change.timeSeconds < end {
            if change.timeSeconds > start, level { total += change.timeSeconds - max(since, start) }
            level = change.active
            since = change.timeSeconds
        }
        if level { total += end - max(since, start) }
        return total
    }
}

/// A simulated input line (a button). Presses are scheduled ahead and show up as edges once
/// the clock reaches them, with contact bounce if asked for, like a real switch.
public final class SimulatedGPIOInput: GPIOInput {
    public let lineName: String
    private let clock: any BandClock
    private var scheduled: [GPIOEdge] = []
    private var level = false
    public var pollDescriptor: Int32? { nil }
    /// Extra edges within the first milliseconds of each change (contact bounce).
    public var bounceEdges = 0

    public init(lineName: String, clock: any BandClock) {
        self.lineName = lineName
        self.clock = clock
    }

    /// Schedules a press at `time` held for `holdSeconds`.
    public func schedulePress(atSeconds time: Double, holdSeconds: Double) {
        appendChange(active: true, at: time)
        appendChange(active: false, at: time + holdSeconds)
        scheduled.sort { $0.timeSeconds < $1.timeSeconds }
    }

    private func appendChange(active: Bool, at time: Double) {
        var t = time
        for _ in 0..<bounceEdges {
            scheduled.append(GPIOEdge(becameActive: active, timeSeconds: t))
            scheduled.append(GPIOEdge(becameActive: !active, timeSeconds: t + 0.0007))
            t += 0.0015
        }
        scheduled.append(GPIOEdge(becameActive: active, timeSeconds: t))
    }

    public func drainEdges() throws(GPIOError) -> [GPIOEdge] {
        let now = clock.nowSeconds
        let due = scheduled.prefix { $0.timeSeconds <= now }
        scheduled.removeFirst(due.count)
        if let last = due.last { level = last.becameActive }
        return Array(due)
    }

    public func isActive() throws(GPIOError) -> Bool {
        let now = clock.nowSeconds
        return scheduled.last(where: { $0.timeSeconds <= now })?.becameActive ?? level
    }
}
