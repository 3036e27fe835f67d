import AmbleHardware

/// The vibration motor on a GPIO line (through a transistor). The haptics state machine
/// decides when it runs; this only switches it and remembers the level to avoid needless writes.
public final class VibrationMotor {
    public let line: any GPIOOutput
    public private(set) var isRunning = false

    public init(line: any GPIOOutput) {
        self.line = line
    }

    public func set(running: Bool) throws(GPIOError) {
        guard running != isRunning else { return }
        try line.set(active: running)
        isRunning = running
    }
}
