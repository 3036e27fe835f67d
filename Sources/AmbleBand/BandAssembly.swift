import AmbleBandStore
import AmbleBoard
import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import AmbleLinux
import AmbleSignal
import AmbleSimulation
import AmbleStateMachines
import AmbleSync
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `ambled` was asked to run.
public struct BandOptions: Sendable {
    /// Where the band keeps its store (`band.sqlite`).
    public var dataDirectory: String
    /// Serve sessions over TCP here.
    public var listen: HostPort?
    /// Serve sessions over this serial device.
    public var serialPath: String?
    public var serialBaudRate = 115_200
    /// Time speed-up of the simulated board (1 = real time).
    public var speed: Double = 1
    /// A scenario script for the simulated board.
    public var scriptPath: String?
    /// Stop when the script reaches `end`.
    public var exitAfterScript = false
    /// Read buttons from the keyboard (simulated board on a terminal).
    public var keyboard = true
    /// Stop cleanly on SIGTERM and SIGINT (off in tests that build several bands).
    public var watchSignals = true

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    /// `$XDG_DATA_HOME/ambled`, or `~/.local/share/ambled`.
    public static var defaultDataDirectory: String { userDataDirectory + "/ambled" }
}

/// A problem that stops the band from starting, said so that the reader knows what to do.
public struct BandStartError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The composition root: builds a band from its board file. Nothing else creates hardware.
public enum BandAssembly {
    /// Builds the band `board` describes. `clock` replaces the system clock on the simulated
    /// board (a `ManualClock` for tests).
    public static func build(board: BoardConfiguration, options: BandOptions, console: Console, logger: Logger, clock: (any BandClock)? = nil) throws -> Band {
        if board.platform == .linux && options.speed != 1 {
            throw BandStartError("--speed is for the simulated board only; \(board.file) is real hardware")
        }
        let script = try options.scriptPath.map { path in
            guard board.platform == .sim else { throw BandStartError("--script is for the simulated board only") }
            return try ScenarioScript.load(path: path)
        }

        // Store first: if it cannot open, nothing else matters.
        do {
            try makePrivateDirectory(options.dataDirectory)
        } catch {
            throw BandStartError("cannot create the data directory \(options.dataDirectory): \(error)")
        }
        let lock: DirectoryLock
        do {
            guard let held = try DirectoryLock(directory: options.dataDirectory) else {
                throw BandStartError("another ambled is using \(options.dataDirectory); stop it first or give another --data-dir")
            }
            lock = held
        } catch let error as Errno {
            throw BandStartError("cannot lock \(options.dataDirectory): \(error)")
        }
        let storePath = options.dataDirectory + "/band.sqlite"
        let store: BandStore
        do {
            store = try BandStore(path: storePath)
        } catch {
            throw BandStartError("cannot open the band's store \(storePath): \(error)")
        }
        let identity = try store.identity(defaultName: board.name)

        let hardware: Hardware
        switch board.platform {
        case .sim:
            // Simulated time is paced by the band's loop (see Band.runPaced), starting at the
            // wall-clock time now so sessions carry real dates.
            hardware = try simulatedHardware(board: board, clock: clock ?? ManualClock(startSeconds: 0, unixOriginSeconds: SystemClock().unixSeconds))
        case .linux: hardware = try linuxHardware(board: board)
        }

        let accelerometerSpec = board.accelerometer
        let accelerometerChannel = SensorChannel<AccelerometerBatch>(
            name: "accelerometer (\(accelerometerSpec.chip) on \(accelerometerSpec.bus) at \(hex(accelerometerSpec.address)))",
            expectedRateHz: accelerometerSpec.rateHz, logger: logger,
            configure: hardware.accelerometer.configure, read: hardware.accelerometer.readSamples,
            sampleCount: { $0.samples.count }, lostData: { $0.overrunDetected })
        let heartRateChannel = hardware.heartRate.map { sensor in
            SensorChannel<OpticalBatch>(
                name: "heart-rate sensor (\(board.heartRate!.chip) on \(board.heartRate!.bus) at \(hex(board.heartRate!.address)))",
                expectedRateHz: sensor.sampleRateHz, logger: logger,
                configure: sensor.configure, read: sensor.readSamples,
                sampleCount: { $0.samples.count }, lostData: { $0.samplesLost > 0 })
        }

        var settings = PracticeSettings()
        settings.calibrationSeconds = board.practice.calibrationSeconds
        settings.calibrationDistanceMeters = board.practice.calibrationDistanceMeters
        let heightMeters = board.wearer.heightCentimeters / 100
        settings.defaultStepLengthMeters = GaitModel.defaultStepLengthMeters(heightMeters: heightMeters)
        let practice = PracticeMachine(settings: settings, calibration: try store.loadCalibration(), reductionPercent: try store.loadReductionPercent() ?? 20)

        let buttons = zip(board.buttons, hardware.buttons).map { spec, line in
            ButtonInput(role: ButtonRole(rawValue: spec.role)!, line: line,
                        debouncer: ButtonDebouncer(role: ButtonRole(rawValue: spec.role)!, debounceSeconds: Double(spec.debounceMilliseconds) / 1000, longPressSeconds: Double(spec.longPressMilliseconds) / 1000))
        }

        let listener = try options.listen.map { address in
            do { return try TCPListener(bindingTo: address) } catch { throw BandStartError("cannot listen on \(address): \(error)") }
        }
        let serial = try options.serialPath.map { path in
            do { return try LinuxSerialPort(path: path, baudRate: options.serialBaudRate) } catch { throw BandStartError("serial \(error)") }
        }
        // Sessions made by an older build, or closed by crash recovery, get their sync data now,
        // before the loop starts, so the link never spends the loop's time encoding them.
        do {
            for id in try store.sessionsWithoutData() { try SessionDataEncoding.encode(sessionID: id, in: store) }
        } catch {
            logger.error("cannot prepare stored sessions for sync: \(error); they are offered when listed")
        }
        var sync: SyncService?
        if listener != nil || serial != nil {
            let keyPair: NoiseKeyPair
            do {
                keyPair = try NoiseKeyPair(privateKey: try store.staticPrivateKey { NoiseKeyPair.generate().privateKey })
            } catch {
                throw BandStartError("cannot read or make the band's key in \(storePath): \(error)")
            }
            sync = SyncService(store: store, staticKeyPair: keyPair, hasDisplay: board.display != nil, listener: listener,
                               serialPath: options.serialPath, serialBaudRate: options.serialBaudRate, serial: serial, logger: logger,
                               now: hardware.clock.nowSeconds)
        }
        if let listener { logger.info("serving sessions on \(listener.boundAddress) (band \(identity.name), id \(identity.id))") }
        if let serial { logger.info("serving sessions on serial \(serial.peerName) at \(options.serialBaudRate) baud") }

        let keyboard = board.platform == .sim && options.keyboard && console.isTerminal ? RawKeyboard() : nil
        if keyboard != nil { console.line(SimulatedBoard.keyHelp) }

        let band = Band(clock: hardware.clock, console: console, logger: logger, store: store,
                    accelerometer: accelerometerChannel, heartRateSensor: heartRateChannel, display: hardware.display,
                    motor: VibrationMotor(line: hardware.motor), motorStrength: board.motorStrength, buttons: buttons, practice: practice,
                    simulation: hardware.simulation, sync: sync, signals: options.watchSignals ? SignalWatcher() : nil, keyboard: keyboard,
                    script: script, exitAfterScript: options.exitAfterScript)
        band.speed = options.speed
        band.dataDirectoryLock = lock
        band.wearer = (heightMeters, board.wearer.weightKilograms)
        band.maximumSessionHours = board.storage.maximumSessionHours
        band.unixOffsetSeconds = (try? store.clockOffsetSeconds()) ?? 0
        if let sync {
            sync.delegate = band
            sync.wallClock = { [unowned band] in band.unixSeconds }
        }
        return band
    }

    struct Hardware {
        var clock: any BandClock
        var accelerometer: any Accelerometer
        var heartRate: MAX30102?
        var display: SSD1306?
        var motor: any GPIOOutput
        var buttons: [any GPIOInput]
        var simulation: SimulatedBoard?
    }

    // MARK: The simulated board

    static func simulatedHardware(board: BoardConfiguration, clock: any BandClock) throws -> Hardware {
        guard let simulation = board.simulation else { throw BandStartError("\(board.file): the simulated board needs a [simulation] table") }
        let accelerationSource: any AccelerationSource
        let ppgSource: any PPGSource
        var synthetic: SyntheticWearer?
        if simulation.signal == "synthetic" {
            let wearer = SyntheticWearer(seed: simulation.seed, restingHeartRateBPM: simulation.restingHeartRateBPM)
            synthetic = wearer
            accelerationSource = wearer
            ppgSource = wearer
        } else {
            let path = simulation.signal.hasPrefix("/") ? simulation.signal : directory(of: board.file) + "/" + simulation.signal
            let recording: RecordedWearer
            do { recording = try RecordedWearer(path: path) } catch {
                throw BandStartError("\(board.file): simulation.signal: \(error)")
            }
            accelerationSource = recording
            ppgSource = recording
        }

        // One emulated bus per bus number in the board file, chips where the file puts them.
        var buses: [String: EmulatedI2CBus] = [:]
        func bus(_ spec: BoardConfiguration.I2CBusSpec) -> EmulatedI2CBus {
            if let existing = buses[spec.devicePath] { return existing }
            let made = EmulatedI2CBus(busName: "emulated \(spec.devicePath)")
            buses[spec.devicePath] = made
            return made
        }
        let spec = board.accelerometer
        let accelerometerBus = bus(spec.bus)
        let emulator: any I2CDeviceEmulator
        switch AccelerometerChip(boardName: spec.chip) {
        case .lis3dh, .lis2dh12: emulator = LIS3DHEmulator(clock: clock, source: accelerationSource)
        case .adxl345: emulator = ADXL345Emulator(clock: clock, source: accelerationSource)
        case .mpu6050: emulator = MPU6050Emulator(clock: clock, source: accelerationSource)
        case nil: throw BandStartError("\(board.file): accelerometer.chip: \(spec.chip) is not emulated")
        }
        accelerometerBus.attach(emulator, at: spec.address)
        let accelerometer = try accelerometerDriver(board: board, bus: accelerometerBus)

        var display: SSD1306?
        var panel: SSD1306Emulator?
        if let spec = board.display {
            let displayBus = bus(spec.bus)
            let emulated = SSD1306Emulator()
            displayBus.attach(emulated, at: spec.address)
            panel = emulated
            display = SSD1306(bus: displayBus, address: spec.address)
        }

        var heartRate: MAX30102?
        var heartRatePlace: (bus: EmulatedI2CBus, address: I2CAddress)?
        if let hr = board.heartRate {
            let hrBus = bus(hr.bus)
            heartRatePlace = (hrBus, hr.address)
            hrBus.attach(MAX30102Emulator(clock: clock, source: ppgSource), at: hr.address)
            heartRate = try MAX30102(bus: hrBus, address: hr.address, sampleRateHz: hr.rateHz, averaging: hr.averaging, ledCurrentMilliAmps: hr.ledCurrentMilliAmps)
        }

        let motor = SimulatedGPIOOutput(lineName: "MOTOR", clock: clock)
        let board_ = SimulatedBoard(clock: clock, synthetic: synthetic, motorLine: motor, displayPanel: panel, buttonRoles: board.buttons.map(\.role),
                                    accelerometer: (accelerometerBus, spec.address), heartRate: heartRatePlace)
        let buttons: [any GPIOInput] = board.buttons.map { board_.buttonLines[$0.role]! }
        return Hardware(clock: clock, accelerometer: accelerometer, heartRate: heartRate, display: display, motor: motor, buttons: buttons, simulation: board_)
    }

    // MARK: Real hardware

    static func linuxHardware(board: BoardConfiguration) throws -> Hardware {
        let clock = SystemClock()
        // Buses open lazily inside the drivers' set-up, so a missing bus is a sensor fault the
        // band survives (and keeps retrying), with the message that says how to enable I2C.
        var buses: [String: LazyLinuxI2CBus] = [:]
        func bus(_ spec: BoardConfiguration.I2CBusSpec) -> LazyLinuxI2CBus {
            if let existing = buses[spec.devicePath] { return existing }
            let made = LazyLinuxI2CBus(path: spec.devicePath)
            buses[spec.devicePath] = made
            return made
        }
        let accelerometer = try accelerometerDriver(board: board, bus: bus(board.accelerometer.bus), pause: sleepSeconds)
        let heartRate = try board.heartRate.map { hr in
            try MAX30102(bus: bus(hr.bus), address: hr.address, sampleRateHz: hr.rateHz, averaging: hr.averaging, ledCurrentMilliAmps: hr.ledCurrentMilliAmps)
        }
        let display = board.display.map { SSD1306(bus: bus($0.bus), address: $0.address) }
        let motor: any GPIOOutput
        do {
            motor = try LinuxGPIOOutput(address: lineAddress(board.motor), activeLow: board.motor.activeLow)
        } catch {
            throw BandStartError("\(board.file): motor: \(error)")
        }
        var buttons: [any GPIOInput] = []
        for spec in board.buttons {
            do {
                buttons.append(try LinuxGPIOInput(address: lineAddress(spec.line), activeLow: spec.line.activeLow, pull: GPIOPull(rawValue: spec.pull) ?? .up))
            } catch {
                throw BandStartError("\(board.file): button \"\(spec.role)\": \(error)")
            }
        }
        return Hardware(clock: clock, accelerometer: accelerometer, heartRate: heartRate, display: display, motor: motor, buttons: buttons, simulation: nil)
    }

    /// The accelerometer driver the board file names.
    static func accelerometerDriver(board: BoardConfiguration, bus: any I2CBus, pause: @escaping (Double) -> Void = { _ in }) throws -> any Accelerometer {
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

    static func lineAddress(_ spec: BoardConfiguration.LineSpec) -> GPIOLineAddress {
        switch spec.line {
        case .offset(let n): return GPIOLineAddress(chip: spec.chip, line: .offset(n))
        case .name(let name): return GPIOLineAddress(chip: spec.chip, line: .name(name))
        }
    }

    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return String(file[..<slash])
    }
}

/// `/dev/i2c-N`, opened on first use and reopened after failures, so that a bus that is
/// missing at start (I2C not enabled yet) or whose adapter went away (a USB I2C adapter
/// unplugged) is an error the band survives.
final class LazyLinuxI2CBus: I2CBus {
    let busName: String
    private var bus: LinuxI2CBus?
    private var failuresInARow = 0
    /// After this many failed transfers in a row the device is closed and opened again.
    let reopenAfterFailures = 5

    init(path: String) { busName = path }

    private func open() throws(I2CError) -> LinuxI2CBus {
        if let bus { return bus }
        let opened = try LinuxI2CBus(path: busName)
        bus = opened
        return opened
    }

    func write(address: I2CAddress, bytes: [UInt8]) throws(I2CError) {
        do {
            try open().write(address: address, bytes: bytes)
            failuresInARow = 0
        } catch { reset(on: error); throw error }
    }

    func writeThenRead(address: I2CAddress, bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8] {
        do {
            let read = try open().writeThenRead(address: address, bytes: bytes, readCount: readCount)
            failuresInARow = 0
            return read
        } catch { reset(on: error); throw error }
    }

    private func reset(on error: I2CError) {
        failuresInARow += 1
        if error.kind == .busMissing || error.kind == .permissionDenied || failuresInARow >= reopenAfterFailures {
            bus = nil
            failuresInARow = 0
        }
    }
}
