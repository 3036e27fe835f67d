import AmbleBoard
import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import AmbleSimulation
import AmbleStateMachines

/// The simulated board (`platform = "sim"`): register-level emulations of the chips on
/// emulated I2C buses where the board file puts them, fed by a synthetic wearer or a
/// recording; simulated motor and button lines. The drivers are the real ones.
struct SimulatedBoardBuilder: BoardBuilder {
    /// Band time: a `ManualClock` that the simulated board's host paces (or a test advances).
    let clock: ManualClock

    func makeDevices(for board: BoardConfiguration) throws -> BoardDevices {
        guard let simulation = board.simulation else { throw BandStartError("\(board.file): the simulated board needs a [simulation] table") }
        let (accelerationSource, ppgSource, synthetic) = try wearer(simulation, board: board)
        let buses = I2CBusCache { EmulatedI2CBus(busName: "emulated \($0)") }

        let spec = board.accelerometer
        let accelerometerBus = buses[spec.bus]
        let emulator: any StallableEmulator
        switch AccelerometerChip(boardName: spec.chip) {
        case .lis3dh, .lis2dh12: emulator = LIS3DHEmulator(clock: clock, source: accelerationSource)
        case .adxl345: emulator = ADXL345Emulator(clock: clock, source: accelerationSource)
        case .mpu6050: emulator = MPU6050Emulator(clock: clock, source: accelerationSource)
        case nil: throw BandStartError("\(board.file): accelerometer.chip: \(spec.chip) is not emulated")
        }
        accelerometerBus.attach(emulator, at: spec.address)
        let accelerometer = try accelerometerDriver(board: board, bus: accelerometerBus)

        var heartRate: MAX30102?
        var heartRatePlace: SimulatedBoard.SensorPlace?
        if let hr = board.heartRate {
            let bus = buses[hr.bus]
            let chip = MAX30102Emulator(clock: clock, source: ppgSource)
            bus.attach(chip, at: hr.address)
            heartRatePlace = SimulatedBoard.SensorPlace(bus: bus, address: hr.address, chip: chip)
            heartRate = try heartRateDriver(board: board, spec: hr, bus: bus)
        }

        var display: SSD1306?
        var panel: SSD1306Emulator?
        if let spec = board.display {
            let bus = buses[spec.bus]
            let emulated = SSD1306Emulator()
            bus.attach(emulated, at: spec.address)
            panel = emulated
            display = SSD1306(bus: bus, address: spec.address)
        }

        let motor = SimulatedGPIOOutput(lineName: "MOTOR", clock: clock)
        let buttons = board.buttons.map { spec in
            let line = SimulatedGPIOInput(lineName: "BUTTON_\(spec.role.rawValue.uppercased())", clock: clock)
            line.bounceEdges = 2  // real switches bounce; the debouncer must cope
            return (spec: spec, line: line)
        }
        let handle = SimulatedBoard(clock: clock, synthetic: synthetic, motorLine: motor, displayPanel: panel,
                                    buttonLines: Dictionary(uniqueKeysWithValues: buttons.map { (ButtonRole($0.spec.role), $0.line) }),
                                    debounceSeconds: Double(board.buttons.map(\.debounceMilliseconds).max() ?? 0) / 1000,
                                    accelerometer: SimulatedBoard.SensorPlace(bus: accelerometerBus, address: spec.address, chip: emulator),
                                    heartRate: heartRatePlace)
        return BoardDevices(clock: clock, accelerometer: accelerometer, heartRate: heartRate, display: display, motor: motor,
                            buttons: buttons.map { ($0.spec, $0.line) }, simulation: handle)
    }

    /// What feeds the emulated chips: the synthetic wearer, or a recording (a path relative to
    /// the board file's folder, or absolute).
    private func wearer(_ simulation: BoardConfiguration.SimulationSpec, board: BoardConfiguration) throws
        -> (any AccelerationSource, any PPGSource, SyntheticWearer?) {
        if simulation.signal == "synthetic" {
            let wearer = SyntheticWearer(seed: simulation.seed, restingHeartRateBPM: simulation.restingHeartRateBPM)
            return (wearer, wearer, wearer)
        }
        let path = simulation.signal.hasPrefix("/") ? simulation.signal : Self.directory(of: board.file) + "/" + simulation.signal
        do {
            let recording = try RecordedWearer(path: path)
            return (recording, recording, nil)
        } catch {
            throw BandStartError("\(board.file): simulation.signal: \(error)")
        }
    }

    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return String(file[..<slash])
    }
}
