import AmbleBoard
import AmbleDrivers
import AmbleHardware
import AmbleStateMachines
import Logging

/// Builds the devices of one kind of board from its board file: the simulated board
/// (`SimulatedBoardBuilder`: emulated chips and simulated lines) or real hardware
/// (`LinuxBoardBuilder`: /dev/i2c-N and GPIO character devices). The same drivers run on
/// both; only the buses, lines and clock differ.
protocol BoardBuilder {
    /// The clock, drivers and lines `board` describes. Throws `BandStartError` or `BoardError`
    /// naming the board file and key at fault.
    func makeDevices(for board: BoardConfiguration) throws -> BoardDevices
}

/// A board's devices as its builder made them: drivers and lines, before the band wraps them
/// for its loop (`BandHardware.init(devices:board:logger:)`).
struct BoardDevices {
    var clock: any BandClock
    var accelerometer: any Accelerometer
    /// Nil when the board file has no `[heart_rate]`.
    var heartRate: MAX30102?
    /// Nil when the board file has no `[display]`.
    var display: SSD1306?
    var motor: any GPIOOutput
    /// Every `[[button]]` of the board file, in its order, with its line.
    var buttons: [(spec: BoardConfiguration.ButtonSpec, line: any GPIOInput)]
    /// The simulated board's handle; nil on real hardware.
    var simulation: SimulatedBoard?
}

/// One bus per device path in the board file, made on first mention: chips that share a bus
/// in the file share it in the band.
final class I2CBusCache<Bus: I2CBus> {
    private var buses: [String: Bus] = [:]
    private let make: (_ devicePath: String) -> Bus

    init(make: @escaping (_ devicePath: String) -> Bus) { self.make = make }

    subscript(spec: BoardConfiguration.I2CBusSpec) -> Bus {
        if let existing = buses[spec.devicePath] { return existing }
        let made = make(spec.devicePath)
        buses[spec.devicePath] = made
        return made
    }
}

extension BoardBuilder {
    /// The accelerometer driver the board file names, on `bus`. A rate the chip cannot do is
    /// refused with the rates it can.
    func accelerometerDriver(board: BoardConfiguration, bus: any I2CBus, pause: @escaping (_ seconds: Double) -> Void = { _ in }) throws -> any Accelerometer {
        let spec = board.accelerometer
        if let chip = AccelerometerChip(boardName: spec.chip), !chip.supportedRatesHz.contains(spec.rateHz) {
            let rates = chip.supportedRatesHz.filter { $0 >= 10 && $0 <= 400 }.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }
            throw board.error(key: "accelerometer.rate_hz", "the \(spec.chip) cannot run at \(spec.rateHz) Hz; use one of \(rates.joined(separator: ", ")) (25-100 Hz suit step counting)")
        }
        do {
            return try makeAccelerometer(chip: spec.chip, bus: bus, address: spec.address, rangeG: spec.rangeG, sampleRateHz: spec.rateHz, pause: pause)
        } catch {
            throw BandStartError("\(board.file): accelerometer: \(error)")
        }
    }

    /// The heart-rate sensor's driver on `bus`, with the file's rate, averaging and LED current.
    func heartRateDriver(board: BoardConfiguration, spec: BoardConfiguration.HeartRateSpec, bus: any I2CBus) throws -> MAX30102 {
        do {
            return try MAX30102(bus: bus, address: spec.address, sampleRateHz: spec.rateHz, averaging: spec.averaging, ledCurrentMilliAmps: spec.ledCurrentMilliAmps)
        } catch {
            throw BandStartError("\(board.file): heart_rate: \(error)")
        }
    }
}

extension BandHardware {
    /// Wraps a board's devices for the loop: sensor channels named after their chip and place,
    /// the motor, debounced buttons, the display.
    init(devices: BoardDevices, board: BoardConfiguration, logger: Logger) {
        let accelerometerSpec = board.accelerometer
        let accelerometer = SensorChannel<AccelerometerBatch>(
            name: "accelerometer (\(accelerometerSpec.chip) on \(accelerometerSpec.bus) at \(hex(accelerometerSpec.address)))",
            expectedRateHz: accelerometerSpec.rateHz, logger: logger,
            configure: devices.accelerometer.configure, read: devices.accelerometer.readSamples,
            sampleCount: { $0.samples.count }, lostData: { $0.overrunDetected })
        var heartRate: SensorChannel<OpticalBatch>?
        if let sensor = devices.heartRate, let spec = board.heartRate {
            heartRate = SensorChannel<OpticalBatch>(
                name: "heart-rate sensor (\(spec.chip) on \(spec.bus) at \(hex(spec.address)))",
                expectedRateHz: sensor.sampleRateHz, logger: logger,
                configure: sensor.configure, read: sensor.readSamples, shutDown: sensor.shutDown,
                sampleCount: { $0.samples.count }, lostData: { $0.samplesLost > 0 })
        }
        let buttons = devices.buttons.map { spec, line in
            let role = ButtonRole(spec.role)
            return ButtonInput(role: role, line: line,
                               debouncer: ButtonDebouncer(role: role, debounceSeconds: Double(spec.debounceMilliseconds) / 1000,
                                                          longPressSeconds: Double(spec.longPressMilliseconds) / 1000))
        }
        self.init(clock: devices.clock, accelerometer: accelerometer, heartRateSensor: heartRate,
                  motor: VibrationMotor(line: devices.motor), motorStrength: board.motorStrength, buttons: buttons,
                  display: devices.display.map { DisplayOutput(driver: $0, logger: logger) }, logger: logger)
    }
}

extension ButtonRole {
    /// The practice's role for a board file's button role (the one place they are mapped).
    init(_ role: BoardConfiguration.ButtonRole) {
        switch role {
        case .next: self = .next
        case .select: self = .select
        case .back: self = .back
        }
    }
}
