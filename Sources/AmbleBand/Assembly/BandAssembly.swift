import AmbleBandStore
import AmbleBoard
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSignal
import AmbleSimulation
import AmbleStateMachines
import AmbleSync
import Logging

/// The composition root: builds a band from its board file. Nothing else creates hardware.
///
/// In order: the options checked against the board, the store (if it cannot open, nothing
/// else matters), the hardware from the board's builder, the signal pipeline, the practice,
/// the link, the host that runs the loop (real time, or the simulated board's pace, script and
/// keys); then the band that wires them.
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

        let recorder = try BandRecorder.open(dataDirectory: options.dataDirectory, storage: board.storage, logger: logger)
        let store = recorder.store
        let identity = try store.identity(defaultName: board.name)

        store.boardDefaults = boardDefaults(board, logger: logger)
        let values = try store.settingValues()
        let devices = try builder(for: board, clock: clock).makeDevices(for: board)
        let hardware = BandHardware(devices: devices, board: board, logger: logger)
        let heightMeters = Double(values.heightCentimeters) / 100
        // The MAX3010x reads red and infrared (two channels) at its rate over the averaging;
        // every board accelerometer is 3-axis.
        let ppgRate = board.heartRate.map { $0.rateHz / Double(max(1, $0.averaging)) } ?? HeartRateEstimator.internalRateHz
        var signals = SignalPipeline(wearer: (heightMeters, Double(values.weightKilograms)),
                                     heartRateSensor: HeartRateSensorClass(ppgChannels: 2, ppgRateHz: ppgRate, accelerometer: .threeAxis))
        signals.heartRateConsent = values.heartRateConsent
        if !values.heartRateConsent { hardware.heartRateSensor?.setEnabled(false) }

        var settings = PracticeSettings()
        settings.calibrationDistanceMeters = board.practice.calibrationDistanceMeters
        let machine = PracticeMachine(settings: settings, values: values, calibration: try store.loadCalibration(),
                                      defaultStepLengthMeters: GaitModel.defaultStepLengthMeters(heightMeters: heightMeters))
        let practice = BandPractice(machine: machine, studyReminders: recorder.studyReminders(), reminderState: recorder.reminderState(),
                                    startNotice: startNotice(store.recovery, logger: logger))

        recorder.checkStore()
        // A laptop lives in real time: the link's time limits (handshake, idle, a stalled
        // frame) run on the system's clock even when the simulated board runs faster. Tests
        // that pass a manual clock keep one clock for both.
        let linkClock: any BandClock = clock ?? SystemClock()
        let link = try makeLink(options: options, recorder: recorder, identity: identity, hasDisplay: board.display != nil, logger: logger,
                                now: linkClock.nowSeconds)
        let host = makeHost(simulation: devices.simulation, options: options, script: script, console: console, logger: logger)

        return Band(hardware: hardware, signals: signals, practice: practice, recorder: recorder, link: link, linkClock: linkClock,
                    host: host, signalWatcher: options.watchSignals ? SignalWatcher() : nil, console: console, logger: logger)
    }

    /// What runs the loop: real time on a real board; on the simulated board its host, which
    /// paces band time at `--speed`, plays the script and reads the keys (on a terminal).
    static func makeHost(simulation: SimulatedBoard?, options: BandOptions, script: ScenarioScript?, console: Console, logger: Logger) -> any BandHost {
        guard let simulation else { return RealTimeHost() }
        let keyboard = options.keyboard && console.isTerminal ? RawKeyboard() : nil
        if keyboard != nil { console.line(SimulatedBoard.keyHelp) }
        let player = ScenarioPlayer(script: script, startSeconds: simulation.clock.nowSeconds, exitAfterScript: options.exitAfterScript)
        return SimulatedHost(clock: simulation.clock, board: simulation, keyboard: keyboard, speed: options.speed, script: player,
                             console: console, logger: logger)
    }

    /// The board file's `[wearer]` and `[practice] calibration_s` stand for the wearer's
    /// height, weight and calibration length until set on the band or from a laptop. A value
    /// outside a setting's range is left out, with a warning.
    static func boardDefaults(_ board: BoardConfiguration, logger: Logger) -> [BandSetting: String] {
        let given: [(BandSetting, String, String)] = [
            (.heightCentimeters, String(Int(board.wearer.heightCentimeters.rounded())), "[wearer] height_cm"),
            (.weightKilograms, String(Int(board.wearer.weightKilograms.rounded())), "[wearer] weight_kg"),
            (.calibrationSeconds, String(board.practice.calibrationSeconds), "[practice] calibration_s"),
        ]
        var defaults: [BandSetting: String] = [:]
        for (setting, value, key) in given {
            do {
                defaults[setting] = try setting.validate(value)
            } catch {
                logger.warning("\(board.file): \(key) = \(value) is not used: the band's \(setting.rawValue) must be \(setting.allowed)")
            }
        }
        return defaults
    }

    /// What the wearer is told first after a power cut: a calibration under way was discarded,
    /// or a walk under way was closed and kept.
    static func startNotice(_ recovery: BandStore.Recovery, logger: Logger) -> (title: String, detail: String)? {
        if recovery.walksClosed > 0 { logger.notice("\(recovery.walksClosed) walk(s) interrupted by a stop or power cut were closed and stored") }
        if recovery.calibrationsDiscarded > 0 {
            logger.notice("a calibration interrupted by a stop or power cut was discarded")
            return ("Calibration discarded", "The band lost power; calibrate again")
        }
        if recovery.walksClosed > 0 { return ("Walk saved", "The band lost power; your walk was kept") }
        return nil
    }

    /// The builder for the board's kind. Simulated time is a manual clock that starts at the
    /// wall-clock time now, so sessions carry real dates; its host paces it (`SimulatedHost`).
    static func builder(for board: BoardConfiguration, clock: (any BandClock)?) throws -> any BoardBuilder {
        switch board.platform {
        case .sim:
            guard let clock else { return SimulatedBoardBuilder(clock: ManualClock(startSeconds: 0, unixOriginSeconds: SystemClock().unixSeconds)) }
            guard let manual = clock as? ManualClock else { throw BandStartError("the simulated board's time is a ManualClock, which its host advances") }
            return SimulatedBoardBuilder(clock: manual)
        case .linux:
            return LinuxBoardBuilder()
        }
    }

    /// The sync link, when `--listen` or `--serial` asks for one, with the band's key (made
    /// and kept in the store the first time).
    static func makeLink(options: BandOptions, recorder: BandRecorder, identity: BandIdentity, hasDisplay: Bool, logger: Logger,
                         now: Double) throws -> SyncService? {
        let store = recorder.store
        let listener = try options.listen.map { address in
            do { return try TCPListener(bindingTo: address) } catch { throw BandStartError("cannot listen on \(address): \(error)") }
        }
        let serial = try options.serialPath.map { path in
            do { return try LinuxSerialPort(path: path, baudRate: options.serialBaudRate) } catch { throw BandStartError("serial \(error)") }
        }
        guard listener != nil || serial != nil else { return nil }
        let keyPair: NoiseKeyPair
        do {
            keyPair = try NoiseKeyPair(privateKey: try store.staticPrivateKey { NoiseKeyPair.generate().privateKey })
        } catch {
            throw BandStartError("cannot read or make the band's key in \(options.dataDirectory)/band.sqlite: \(error)")
        }
        let link = SyncService(recorder: recorder, staticKeyPair: keyPair, hasDisplay: hasDisplay, listener: listener,
                               serialPath: options.serialPath, serialBaudRate: options.serialBaudRate, serial: serial, logger: logger, now: now)
        if let listener { logger.info("serving sessions on \(listener.boundAddress) (band \(identity.name), id \(identity.id))") }
        if let serial { logger.info("serving sessions on serial \(serial.peerName) at \(options.serialBaudRate) baud") }
        return link
    }
}
