/// What a board file may say, its defaults and limits.
enum BoardSchema {
    static let accelerometerChips = ["lis3dh", "lis2dh12", "adxl345", "mpu6050"]
    static let heartRateChips = ["max30102", "max30101", "max30105"]
    static let displayChips = ["ssd1306"]

    static func read(_ top: TableReader) throws(BoardError) -> BoardConfiguration {
        try top.rejectUnknownKeys(known: ["name", "platform", "accelerometer", "heart_rate", "motor", "button", "display", "wearer", "simulation", "practice", "storage"])
        let name = try top.string("name")
        let platform: BoardConfiguration.Platform = try top.choice("platform")

        guard let accelerometerTable = try top.subtable("accelerometer") else {
            throw top.error("accelerometer", "missing; every band needs an [accelerometer] table (chip, bus, address)")
        }
        let accelerometer = try readAccelerometer(accelerometerTable)
        let heartRate = try top.subtable("heart_rate").map { (t) throws(BoardError) in try readHeartRate(t) }

        guard let motorTable = try top.subtable("motor") else {
            throw top.error("motor", "missing; add a [motor] table with the GPIO chip and line of the vibration motor")
        }
        try motorTable.rejectUnknownKeys(known: ["chip", "line", "active_low", "strength"])
        let motor = try readLine(motorTable)
        let strength = try motorTable.double("strength", default: 1, range: 0.1...1)

        let buttons = try readButtons(top)

        var display: BoardConfiguration.DisplaySpec?
        if let table = try top.subtable("display") {
            try table.rejectUnknownKeys(known: ["chip", "bus", "address"])
            display = BoardConfiguration.DisplaySpec(chip: try table.string("chip", allowed: displayChips), bus: try readBus(table), address: try readAddress(table, default: 0x3C))
        }

        var wearer = BoardConfiguration.WearerSpec(heightCentimeters: 170, weightKilograms: 70)
        if let table = try top.subtable("wearer") {
            try table.rejectUnknownKeys(known: ["height_cm", "weight_kg"])
            wearer = .init(heightCentimeters: try table.double("height_cm", default: 170, range: 100...230),
                           weightKilograms: try table.double("weight_kg", default: 70, range: 25...250))
        }

        var simulation: BoardConfiguration.SimulationSpec?
        if let table = try top.subtable("simulation") {
            guard platform == .sim else { throw table.error(nil, "only a board with platform = \"sim\" can have a [simulation] table") }
            try table.rejectUnknownKeys(known: ["signal", "seed", "resting_hr_bpm"])
            simulation = .init(signal: try table.string("signal", default: "synthetic"),
                               seed: UInt64(try table.int("seed", default: 1, range: 0...Int.max)),
                               restingHeartRateBPM: try table.double("resting_hr_bpm", default: 68, range: 35...120))
        } else if platform == .sim {
            simulation = .init(signal: "synthetic", seed: 1, restingHeartRateBPM: 68)
        }

        var practice = BoardConfiguration.PracticeSpec(calibrationSeconds: 60, calibrationDistanceMeters: nil)
        if let table = try top.subtable("practice") {
            try table.rejectUnknownKeys(known: ["calibration_s", "calibration_distance_m"])
            practice.calibrationSeconds = try table.int("calibration_s", default: 60, range: 20...600)
            if table.has("calibration_distance_m") {
                practice.calibrationDistanceMeters = try table.double("calibration_distance_m", range: 10...5000)
            }
        }

        let storage = try readStorage(top, platform: platform)

        var board = BoardConfiguration(file: top.file, name: name, platform: platform, accelerometer: accelerometer, heartRate: heartRate,
                                       motor: motor, motorStrength: strength, buttons: buttons, display: display, wearer: wearer,
                                       simulation: simulation, practice: practice)
        board.storage = storage
        return board
    }

    /// The `[[button]]`s: each role once, next and select required.
    static func readButtons(_ top: TableReader) throws(BoardError) -> [BoardConfiguration.ButtonSpec] {
        var buttons: [BoardConfiguration.ButtonSpec] = []
        for table in try top.arrayOfTables("button") {
            try table.rejectUnknownKeys(known: ["role", "chip", "line", "active_low", "pull", "debounce_ms", "long_press_ms"])
            let role: BoardConfiguration.ButtonRole = try table.choice("role")
            if buttons.contains(where: { $0.role == role }) {
                throw table.error("role", "a second \"\(role.rawValue)\" button; each role once")
            }
            buttons.append(BoardConfiguration.ButtonSpec(
                role: role, line: try readLine(table, activeLowDefault: true),
                pull: try table.choice("pull", default: .up),
                debounceMilliseconds: try table.int("debounce_ms", default: 20, range: 1...200),
                longPressMilliseconds: try table.int("long_press_ms", default: 800, range: 300...5000)))
        }
        for required in [BoardConfiguration.ButtonRole.next, .select] where !buttons.contains(where: { $0.role == required }) {
            throw top.error("button", "no \"\(required.rawValue)\" button; add a [[button]] with role = \"\(required.rawValue)\" (a band needs next and select; back is optional)")
        }
        return buttons
    }

    /// `[storage]`: a session's longest, the store's largest, the room kept free (8 MB by
    /// default on Linux, none on the simulated board).
    static func readStorage(_ top: TableReader, platform: BoardConfiguration.Platform) throws(BoardError) -> BoardConfiguration.StorageSpec {
        var storage = BoardConfiguration.StorageSpec()
        storage.reserveMegabytes = platform == .linux ? 8 : 0
        if let table = try top.subtable("storage") {
            try table.rejectUnknownKeys(known: ["max_session_hours", "max_store_mb", "reserve_mb"])
            storage.maximumSessionHours = try table.int("max_session_hours", default: 500, range: 1...100_000)
            if table.has("max_store_mb") { storage.maximumStoreMegabytes = try table.int("max_store_mb", default: 0, range: 1...1_000_000) }
            storage.reserveMegabytes = try table.int("reserve_mb", default: storage.reserveMegabytes, range: 0...1024)
        }
        return storage
    }

    static func readAccelerometer(_ table: TableReader) throws(BoardError) -> BoardConfiguration.AccelerometerSpec {
        try table.rejectUnknownKeys(known: ["chip", "bus", "address", "range_g", "rate_hz"])
        let chip = try table.string("chip", allowed: accelerometerChips)
        let defaultAddress: UInt8 = switch chip {
        case "adxl345": 0x53
        case "mpu6050": 0x68
        default: 0x18
        }
        let range = try table.int("range_g", default: 4, range: 2...16)
        guard [2, 4, 8, 16].contains(range) else { throw table.error("range_g", "\(range) is not one of 2, 4, 8, 16") }
        return .init(chip: chip, bus: try readBus(table), address: try readAddress(table, default: defaultAddress),
                     rangeG: range, rateHz: try table.double("rate_hz", default: 50, range: 12.5...400))
    }

    static func readHeartRate(_ table: TableReader) throws(BoardError) -> BoardConfiguration.HeartRateSpec {
        try table.rejectUnknownKeys(known: ["chip", "bus", "address", "rate_hz", "averaging", "led_current_ma"])
        let rate = try table.double("rate_hz", default: 100, range: 50...400)
        guard [50, 100, 200, 400].contains(rate) else { throw table.error("rate_hz", "\(rate) is not one of 50, 100, 200, 400") }
        let averaging = try table.int("averaging", default: 1, range: 1...32)
        guard [1, 2, 4, 8, 16, 32].contains(averaging) else { throw table.error("averaging", "\(averaging) is not one of 1, 2, 4, 8, 16, 32") }
        // The heart-rate estimator wants 25-125 samples per second out of the FIFO.
        let effective = rate / Double(averaging)
        guard (25...125).contains(effective) else {
            throw table.error("averaging", "rate_hz \(Int(rate)) / averaging \(averaging) gives \(effective) samples per second; choose them so that it is 25...125 (e.g. rate_hz = 100, averaging = 1)")
        }
        return .init(chip: try table.string("chip", allowed: heartRateChips), bus: try readBus(table), address: try readAddress(table, default: 0x57),
                     rateHz: rate, averaging: averaging, ledCurrentMilliAmps: try table.double("led_current_ma", default: 7.2, range: 0...51))
    }

    static func readBus(_ table: TableReader) throws(BoardError) -> BoardConfiguration.I2CBusSpec {
        guard let raw = table.table["bus"] else {
            throw table.error("bus", "missing; add bus = 1 (for /dev/i2c-1) or bus = \"/dev/i2c-1\"")
        }
        if let number = raw.int {
            guard (0...255).contains(number) else { throw table.error("bus", "\(number) is outside 0...255") }
            return .number(number)
        }
        if let path = raw.string, path.hasPrefix("/") { return .path(path) }
        throw table.error("bus", "must be a bus number (1) or a device path (\"/dev/i2c-1\")")
    }

    static func readAddress(_ table: TableReader, default value: UInt8) throws(BoardError) -> UInt8 {
        guard let raw = table.table["address"] else { return value }
        guard let number = raw.int else { throw table.error("address", "must be a number such as 0x18") }
        guard (0x03...0x77).contains(number) else {
            let written = number < 0 || number > 0xFFFF ? String(number) : "0x" + String(number, radix: 16)
            throw table.error("address", "\(written) is not a 7-bit I2C address (0x03...0x77)")
        }
        return UInt8(number)
    }

    static func readLine(_ table: TableReader, activeLowDefault: Bool = false) throws(BoardError) -> BoardConfiguration.LineSpec {
        let chip = try table.string("chip")
        guard let raw = table.table["line"] else {
            throw table.error("line", "missing; add line = 17 (offset on the chip) or line = \"GPIO17\" (line name)")
        }
        let line: BoardConfiguration.LineSpec.Line
        if let offset = raw.int {
            guard (0...1023).contains(offset) else { throw table.error("line", "\(offset) is outside 0...1023") }
            line = .offset(offset)
        } else if let name = raw.string, !name.isEmpty {
            line = .name(name)
        } else {
            throw table.error("line", "must be a line offset (17) or a line name (\"GPIO17\")")
        }
        return .init(chip: chip, line: line, activeLow: try table.bool("active_low", default: activeLowDefault))
    }
}
