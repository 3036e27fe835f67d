import AmbleBoard
import AmbleDrivers
import AmbleHardware
import AmbleLinux
import AmbleLinuxHardware

/// Real hardware (`platform = "linux"`): chips on /dev/i2c-N, the motor and buttons on GPIO
/// character devices, the system clock.
struct LinuxBoardBuilder: BoardBuilder {
    func makeDevices(for board: BoardConfiguration) throws -> BoardDevices {
        // Buses open lazily inside the drivers' set-up, so a missing bus is a sensor fault the
        // band survives (and keeps retrying), with the message that says how to enable I2C.
        let buses = I2CBusCache { LazyLinuxI2CBus(path: $0) }
        let accelerometer = try accelerometerDriver(board: board, bus: buses[board.accelerometer.bus], pause: sleepSeconds)
        let heartRate = try board.heartRate.map { try heartRateDriver(board: board, spec: $0, bus: buses[$0.bus]) }
        let display = board.display.map { SSD1306(bus: buses[$0.bus], address: $0.address) }
        let motor: any GPIOOutput
        do {
            motor = try LinuxGPIOOutput(address: lineAddress(board.motor), activeLow: board.motor.activeLow)
        } catch {
            throw BandStartError("\(board.file): motor: \(error)")
        }
        var buttons: [(spec: BoardConfiguration.ButtonSpec, line: any GPIOInput)] = []
        for spec in board.buttons {
            do {
                buttons.append((spec, try LinuxGPIOInput(address: lineAddress(spec.line), activeLow: spec.line.activeLow, pull: GPIOPull(spec.pull))))
            } catch {
                throw BandStartError("\(board.file): button \"\(spec.role.rawValue)\": \(error)")
            }
        }
        return BoardDevices(clock: SystemClock(), accelerometer: accelerometer, heartRate: heartRate, display: display,
                            motor: motor, buttons: buttons, simulation: nil)
    }

    private func lineAddress(_ spec: BoardConfiguration.LineSpec) -> GPIOLineAddress {
        switch spec.line {
        case .offset(let n): return GPIOLineAddress(chip: spec.chip, line: .offset(n))
        case .name(let name): return GPIOLineAddress(chip: spec.chip, line: .name(name))
        }
    }
}

extension GPIOPull {
    /// The pull a board file's `pull` names.
    init(_ pull: BoardConfiguration.Pull) {
        switch pull {
        case .up: self = .up
        case .down: self = .down
        case .none: self = .none
        }
    }
}
