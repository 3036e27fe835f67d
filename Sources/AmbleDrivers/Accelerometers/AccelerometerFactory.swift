import AmbleHardware

/// The accelerometer chips a board file can name, with the driver and default address of each.
public enum AccelerometerChip: String, CaseIterable, Sendable {
    case lis3dh
    case lis2dh12
    case adxl345
    case mpu6050

    /// The chip a board file's name means: case and dashes do not matter ("MPU-6050").
    public init?(boardName: String) {
        self.init(rawValue: boardName.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " })
    }

    /// Output data rates the driver can set, Hz.
    public var supportedRatesHz: [Double] {
        switch self {
        case .lis3dh, .lis2dh12: return LIS3DH.rateCodes.map(\.hz)
        case .adxl345: return ADXL345.rateCodes.map(\.hz)
        case .mpu6050: return MPU6050.rateSettings.map(\.hz)
        }
    }

    /// Address of the common breakouts: LIS3DH/LIS2DH12 0x18 (SA0 low; Adafruit's LIS3DH
    /// pulls it high: 0x19), ADXL345 0x53, MPU-6050 0x68.
    public var defaultAddress: I2CAddress {
        switch self {
        case .lis3dh, .lis2dh12: return 0x18
        case .adxl345: return 0x53
        case .mpu6050: return 0x68
        }
    }
}

/// Builds the driver for the accelerometer a board file names ("lis3dh", "lis2dh12",
/// "adxl345", "mpu6050"; case and dashes do not matter), not yet configured: call
/// `configure()` next.
///
/// - Parameters:
///   - address: nil for the chip's usual address (`AccelerometerChip.defaultAddress`).
///   - rangeG: full scale, ±2, 4, 8 or 16 g (all four chips have these).
///   - sampleRateHz: a rate the chip has; 25, 50, 100 and 200 Hz work on all four.
///   - pause: waits the given seconds, for chips that need time after a reset (MPU-6050:
///     100 ms). The band passes a real sleep; the default returns at once (emulated chips).
/// - Throws: `SensorError` `.unknownChip` listing the supported names, or
///   `.unsupportedSetting` when the chip cannot do the range or rate.
public func makeAccelerometer(chip: String, bus: any I2CBus, address: I2CAddress? = nil, rangeG: Int, sampleRateHz: Double, pause: @escaping (_ seconds: Double) -> Void = { _ in }) throws(SensorError) -> any Accelerometer {
    guard let model = AccelerometerChip(boardName: chip) else {
        throw SensorError(chip: chip, bus: bus.busName, address: address ?? 0, kind: .unknownChip(supported: AccelerometerChip.allCases.map(\.rawValue)))
    }
    let address = address ?? model.defaultAddress
    switch model {
    case .lis3dh, .lis2dh12:
        return try LIS3DH(bus: bus, address: address, rangeG: rangeG, sampleRateHz: sampleRateHz)
    case .adxl345:
        return try ADXL345(bus: bus, address: address, rangeG: rangeG, sampleRateHz: sampleRateHz)
    case .mpu6050:
        return try MPU6050(bus: bus, address: address, rangeG: rangeG, sampleRateHz: sampleRateHz, pause: pause)
    }
}
