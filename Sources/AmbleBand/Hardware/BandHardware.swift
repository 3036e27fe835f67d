import AmbleDrivers
import AmbleHardware
import AmbleStateMachines
import Logging

/// The band's hardware as its loop sees it, the same on every board: the clock, the two
/// sensors behind channels that survive faults, the motor, the buttons with their debouncers,
/// the display. (On the simulated board, what a script or the keyboard acts through is its host's: `SimulatedHost`.)
///
/// Built by `BandHardware.init(devices:board:logger:)` from what a `BoardBuilder` made.
/// Failures of the motor, a button or the display are logged once and never stop the band.
struct BandHardware {
    /// Band time (`nowSeconds`, monotonic) and the date (`unixSeconds`).
    let clock: any BandClock
    let accelerometer: SensorChannel<AccelerometerBatch>
    /// Nil when the board has no heart-rate sensor.
    let heartRateSensor: SensorChannel<OpticalBatch>?
    let motor: VibrationMotor
    /// The motor's PWM duty cycle for a pattern at full strength, 0.1...1 (board `motor.strength`).
    let motorStrength: Double
    var buttons: [ButtonInput]
    /// Nil when the board has no display.
    var display: DisplayOutput?
    /// How often the FIFOs are read, seconds: at most 0.1 s, and at most half the time the
    /// fastest FIFO takes to fill (32 entries), so no sample is lost between reads.
    let sensorPeriodSeconds: Double
    private let logger: Logger
    private var motorFailed = false

    init(clock: any BandClock, accelerometer: SensorChannel<AccelerometerBatch>, heartRateSensor: SensorChannel<OpticalBatch>?,
         motor: VibrationMotor, motorStrength: Double, buttons: [ButtonInput], display: DisplayOutput?, logger: Logger) {
        self.clock = clock
        self.accelerometer = accelerometer
        self.heartRateSensor = heartRateSensor
        self.motor = motor
        self.motorStrength = motorStrength
        self.buttons = buttons
        self.display = display
        self.logger = logger
        let fastestRateHz = max(accelerometer.expectedRateHz, heartRateSensor?.expectedRateHz ?? 0)
        sensorPeriodSeconds = min(0.1, 0.5 * 32 / fastestRateHz)
    }

    // MARK: Buttons

    /// The presses completed since the last call, in button order. A line that fails is
    /// logged and read again next time.
    mutating func readButtons(now: Double) -> [ButtonEvent] {
        var events: [ButtonEvent] = []
        for index in buttons.indices {
            do {
                for edge in try buttons[index].line.drainEdges() {
                    events += buttons[index].debouncer.edge(becameActive: edge.becameActive, atSeconds: edge.timeSeconds)
                }
            } catch {
                logger.warning("button \(buttons[index].role.rawValue): \(error)")
            }
            events += buttons[index].debouncer.update(now: now)
        }
        return events
    }

    /// Whether a button is held down now (the loop then looks again soon, for a long press).
    var isAnyButtonHeld: Bool {
        buttons.contains { (try? $0.line.isActive()) == true }
    }

    /// Descriptors that become readable on a button edge.
    var pollDescriptors: [Int32] { buttons.compactMap { $0.line.pollDescriptor } }

    // MARK: Motor

    /// Switches the motor; a failure is logged once until it works again.
    mutating func setMotor(running: Bool) {
        do {
            try motor.set(running: running)
            motorFailed = false
        } catch {
            if !motorFailed { logger.error("motor: \(error)") }
            motorFailed = true
        }
    }

    /// A pattern at the board's motor strength (a PWM duty cycle below 1 scales every segment).
    func scaled(_ pattern: HapticPattern) -> HapticPattern {
        guard motorStrength < 1 else { return pattern }
        var copy = pattern
        copy.segments = pattern.segments.map { .init(durationSeconds: $0.durationSeconds, strength: $0.strength * motorStrength) }
        return copy
    }
}

/// A button as the loop sees it: its role, its line and its debouncer.
struct ButtonInput {
    let role: ButtonRole
    let line: any GPIOInput
    var debouncer: ButtonDebouncer
}

/// The OLED and what it shows. Redraws when the screen changed; a display that fails is set
/// up again every `retrySeconds` (after a power glitch it needs its init sequence: `flush()`
/// sends it first and after any failed send); it never stops the band.
struct DisplayOutput {
    let driver: SSD1306
    private var drawnScreen: Screen?
    private var retryAtSeconds = -Double.infinity
    private var failed = false
    private let logger: Logger
    /// Seconds between attempts to set a failed display up again.
    let retrySeconds = 5.0

    init(driver: SSD1306, logger: Logger) {
        self.driver = driver
        self.logger = logger
    }

    mutating func show(_ screen: Screen, now: Double) {
        guard screen != drawnScreen || failed, now >= retryAtSeconds else { return }
        ScreenRenderer.draw(screen, into: &driver.framebuffer)
        do {
            _ = try driver.flush()
            if failed { logger.notice("display works again") }
            failed = false
            drawnScreen = screen
        } catch {
            if !failed { logger.error("display: \(error); retrying every \(Int(retrySeconds)) s") }
            failed = true
            retryAtSeconds = now + retrySeconds
        }
    }
}
