/// A board file, checked: which chips sit on which bus and address, which GPIO lines drive the
/// motor and read the buttons, and (for the simulated board) what feeds the emulated chips.
public struct BoardConfiguration: Equatable, Sendable {
    public enum Platform: String, Equatable, Sendable, CaseIterable {
        /// Real hardware through /dev/i2c-N and /dev/gpiochipN.
        case linux
        /// Emulated chips and simulated lines in this process.
        case sim
    }

    /// An I2C bus: a number (`/dev/i2c-N`) or a device path.
    public enum I2CBusSpec: Equatable, Sendable, CustomStringConvertible {
        case number(Int)
        case path(String)

        public var devicePath: String {
            switch self {
            case .number(let n): return "/dev/i2c-\(n)"
            case .path(let p): return p
            }
        }

        public var description: String { devicePath }
    }

    /// A GPIO line: on chip `chip` (name, path, number or label), by offset or line name.
    public struct LineSpec: Equatable, Sendable {
        public enum Line: Equatable, Sendable {
            case offset(Int)
            case name(String)
        }

        public var chip: String
        public var line: Line
        public var activeLow: Bool
    }

    public struct AccelerometerSpec: Equatable, Sendable {
        /// Driver name: lis3dh, lis2dh12, adxl345, mpu6050.
        public var chip: String
        public var bus: I2CBusSpec
        public var address: UInt8
        /// Full scale, ±g.
        public var rangeG: Int
        /// Output data rate, Hz.
        public var rateHz: Double
    }

    public struct HeartRateSpec: Equatable, Sendable {
        /// Driver name: max30102, max30101, max30105.
        public var chip: String
        public var bus: I2CBusSpec
        public var address: UInt8
        /// ADC sample rate, Hz.
        public var rateHz: Double
        /// Samples averaged per FIFO entry.
        public var averaging: Int
        /// LED drive current, mA.
        public var ledCurrentMilliAmps: Double
    }

    /// What a button is for (`role`): each role at most once; next and select are required.
    public enum ButtonRole: String, Equatable, Sendable, CaseIterable {
        case next, select, back
    }

    /// The pull resistor of an input line (`pull`).
    public enum Pull: String, Equatable, Sendable, CaseIterable {
        case up, down, none
    }

    public struct ButtonSpec: Equatable, Sendable {
        public var role: ButtonRole
        public var line: LineSpec
        public var pull: Pull
        public var debounceMilliseconds: Int
        public var longPressMilliseconds: Int
    }

    public struct DisplaySpec: Equatable, Sendable {
        public var chip: String
        public var bus: I2CBusSpec
        public var address: UInt8
    }

    public struct WearerSpec: Equatable, Sendable {
        public var heightCentimeters: Double
        public var weightKilograms: Double
    }

    public struct SimulationSpec: Equatable, Sendable {
        /// "synthetic", or the path of a recording (steps or heart-rate CSV) to play back.
        public var signal: String
        public var seed: UInt64
        public var restingHeartRateBPM: Double
    }

    public struct PracticeSpec: Equatable, Sendable {
        public var calibrationSeconds: Int
        public var calibrationDistanceMeters: Double?
    }

    /// How much the band keeps (`[storage]`).
    public struct StorageSpec: Equatable, Sendable {
        /// Synced sessions are removed, oldest first, while the seconds stored exceed this many
        /// hours (sessions not synced are never removed). The age limit is the wearer's
        /// `retention_days` setting.
        public var maximumSessionHours: Int = 500
        /// The band's store never grows past this many MiB (nil: as far as its card allows); at
        /// it, it is full as on a full card.
        public var maximumStoreMegabytes: Int?
        /// MiB the band keeps allocated on its card (`space.reserve` beside the store) and
        /// gives up when the card fills, so that the store can still mark sessions synced and
        /// remove them: 8 on real hardware, none on the simulated board unless set.
        public var reserveMegabytes: Int = 0
    }

    /// Where the file came from (for messages).
    public var file: String
    /// Lines of the keys as written (`accelerometer.rate_hz` -> 12), for errors found later.
    var keyLines: [String: Int] = [:]
    public var name: String
    public var platform: Platform
    public var accelerometer: AccelerometerSpec
    public var heartRate: HeartRateSpec?
    public var motor: LineSpec
    /// Motor strength as a PWM duty cycle, 0...1.
    public var motorStrength: Double
    public var buttons: [ButtonSpec]
    public var display: DisplaySpec?
    public var wearer: WearerSpec
    public var simulation: SimulationSpec?
    public var practice: PracticeSpec
    public var storage = StorageSpec()

    /// An error about `key` (`accelerometer.rate_hz`), pointing at its line in the file.
    public func error(key: String, _ message: String) -> BoardError {
        BoardError(file: file, line: keyLines[key] ?? keyLines[String(key.prefix { $0 != "." })] ?? 1, key: key, message: message)
    }
}
