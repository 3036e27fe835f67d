import AmbleHardware

/// ST LIS3DH / LIS2DH12 three-axis accelerometer over I2C (address 0x18, or 0x19 with SA0 high).
///
/// Set-up: WHO_AM_I check, high-resolution (12-bit) mode, block data update, the range and
/// output data rate asked for, FIFO in stream mode. Reads: FIFO_SRC gives the level, then one
/// burst from OUT_X_L with the auto-increment bit; with the FIFO on, the chip rolls the address
/// back from OUT_Z_H to OUT_X_L and pops a sample on each pass.
public final class LIS3DH: Accelerometer {
    public enum Register {
        static let whoAmI: UInt8 = 0x0F
        static let ctrl1: UInt8 = 0x20        // ODR[7:4] LPen[3] Zen Yen Xen
        static let ctrl4: UInt8 = 0x23        // BDU[7] BLE[6] FS[5:4] HR[3]
        static let ctrl5: UInt8 = 0x24        // BOOT[7] FIFO_EN[6]
        static let outXL: UInt8 = 0x28
        static let fifoCtrl: UInt8 = 0x2E     // FM[7:6] TR[5] FTH[4:0]
        static let fifoSrc: UInt8 = 0x2F      // WTM[7] OVRN[6] EMPTY[5] FSS[4:0]
        /// Sub-address bit asking the chip to auto-increment the register pointer.
        static let autoIncrement: UInt8 = 0x80
    }

    enum Bits {
        static let ctrl1AxesEnabled: UInt8 = 0x07
        static let ctrl1LowPowerShift: UInt8 = 3
        static let ctrl4BlockDataUpdate: UInt8 = 0x80
        static let ctrl4FullScaleShift: UInt8 = 4
        static let ctrl4HighResolution: UInt8 = 0x08
        static let ctrl5FIFOEnable: UInt8 = 0x40
        static let fifoModeBypass: UInt8 = 0x00
        static let fifoModeStream: UInt8 = 0x80
        static let fifoSrcOverrun: UInt8 = 0x40
        static let fifoSrcLevelMask: UInt8 = 0x1F
    }

    public static let chipIDValue: UInt8 = 0x33
    static let fifoDepth = 32

    /// Output data rates (Hz) and their ODR codes in CTRL_REG1[7:4].
    static let rateCodes: [(hz: Double, code: UInt8)] = [(1, 1), (10, 2), (25, 3), (50, 4), (100, 5), (200, 6), (400, 7)]

    /// Sensitivity in high-resolution mode, mg per digit of the 12-bit value, by full scale.
    /// ±2 g spread over 12 bits is 4000 mg / 4096 digits ≈ 1 mg/digit; ±4 g 2, ±8 g 4; the
    /// datasheet gives 12 (not 8) at ±16 g because that range's trimming differs.
    static let milliGPerDigit: [Int: Double] = [2: 1, 4: 2, 8: 4, 16: 12]
    static let fullScaleCodes: [Int: UInt8] = [2: 0, 4: 1, 8: 2, 16: 3]

    public let chipName = "LIS3DH"
    public let bus: any I2CBus
    public let address: I2CAddress
    public let rangeG: Int
    public let sampleRateHz: Double
    private let rateCode: UInt8
    private let scaleG: Double
    private let registers: RegisterAccess
    /// A FIFO read failed part-way: samples may have been popped and lost.
    private var readFailed = false

    /// - Parameters:
    ///   - rangeG: full scale, ±2, 4, 8 or 16 g.
    ///   - sampleRateHz: output data rate; one of 1, 10, 25, 50, 100, 200, 400 Hz.
    public init(bus: any I2CBus, address: I2CAddress = 0x18, rangeG: Int = 4, sampleRateHz: Double = 50) throws(SensorError) {
        self.bus = bus
        self.address = address
        guard let perDigit = Self.milliGPerDigit[rangeG] else {
            throw SensorError(chip: chipName, bus: bus.busName, address: address, kind: .unsupportedSetting("range ±\(rangeG) g is not one of ±2, 4, 8, 16 g"))
        }
        guard let rate = Self.rateCodes.first(where: { $0.hz == sampleRateHz }) else {
            let rates = Self.rateCodes.map { "\(Int($0.hz))" }.joined(separator: ", ")
            throw SensorError(chip: chipName, bus: bus.busName, address: address, kind: .unsupportedSetting("rate \(sampleRateHz) Hz is not one of \(rates) Hz"))
        }
        self.rangeG = rangeG
        self.sampleRateHz = rate.hz
        registers = RegisterAccess(chip: "LIS3DH", bus: bus, address: address)
        rateCode = rate.code
        // The 12-bit value sits left-justified in 16 bits: shift right by 4, then mg/digit.
        scaleG = perDigit / 1000
    }

    public func configure() throws(SensorError) {
        readFailed = false
        try registers.expectChipID(register: Register.whoAmI, value: Self.chipIDValue, family: "LIS3DH")
        let ctrl1 = rateCode << 4 | Bits.ctrl1AxesEnabled
        let ctrl4 = Bits.ctrl4BlockDataUpdate | Self.fullScaleCodes[rangeG]! << Bits.ctrl4FullScaleShift | Bits.ctrl4HighResolution
        try registers.writeVerified(Register.ctrl1, ctrl1)
        try registers.writeVerified(Register.ctrl4, ctrl4)
        try registers.writeVerified(Register.ctrl5, Bits.ctrl5FIFOEnable)
        // Bypass first empties the FIFO, then stream mode keeps the newest 32 samples.
        try registers.writeVerified(Register.fifoCtrl, Bits.fifoModeBypass)
        try registers.writeVerified(Register.fifoCtrl, Bits.fifoModeStream)
    }

    public func readSamples() throws(SensorError) -> AccelerometerBatch {
        let source = try registers.read(Register.fifoSrc)
        let fifoFull = source & Bits.fifoSrcOverrun != 0
        let count = fifoFull ? Self.fifoDepth : Int(source & Bits.fifoSrcLevelMask)
        // A burst that failed part-way may have popped samples: the next batch marks the gap.
        let overrun = fifoFull || readFailed
        guard count > 0 else {
            readFailed = false
            return AccelerometerBatch(samples: [], overrunDetected: overrun)
        }
        let bytes = try registers.read(Register.outXL | Register.autoIncrement, count: count * 6, markingFailureIn: &readFailed)
        readFailed = false
        var samples: [AccelerationVector] = []
        samples.reserveCapacity(count)
        for i in 0..<count {
            let o = i * 6
            samples.append(AccelerationVector(
                xG: Self.decode(bytes[o], bytes[o + 1]) * scaleG,
                yG: Self.decode(bytes[o + 2], bytes[o + 3]) * scaleG,
                zG: Self.decode(bytes[o + 4], bytes[o + 5]) * scaleG
            ))
        }
        return AccelerometerBatch(samples: samples, overrunDetected: overrun)
    }

    /// Little-endian, left-justified 12-bit two's complement to digits.
    static func decode(_ low: UInt8, _ high: UInt8) -> Double {
        Double(Int16(bitPattern: UInt16(high) << 8 | UInt16(low)) >> 4)
    }
}
