import AmbleHardware

/// InvenSense MPU-6050 accelerometer and gyroscope over I2C (address 0x68 with AD0 low,
/// 0x69 with it high), used here as an accelerometer only.
///
/// Set-up: WHO_AM_I check, DEVICE_RESET (waits for the bit to clear), wake on the internal
/// 8 MHz oscillator with the three gyroscopes in standby (the band needs no rotation, and the
/// datasheet gives the gyros 3.6 mA against the accelerometer's 0.5 mA), low-pass filter and sample-rate divider for
/// the rate asked for, the range, the FIFO-overflow interrupt bit, accelerometer frames into
/// the FIFO, FIFO reset then enable. Reads: INT_STATUS for FIFO_OFLOW_INT, FIFO_COUNT (bytes),
/// then the whole frames waiting, burst-read from FIFO_R_W (the chip does not advance its
/// register pointer there).
///
/// Overflow: the FIFO is 1024 bytes and drops its oldest bytes when full. 1024 is not a
/// multiple of the 6-byte frame, so after an overflow the byte stream no longer starts on a
/// frame boundary and the data cannot be trusted: the driver resets the FIFO and reports a
/// gap with no samples (as Linux's inv_mpu6050 does). The same happens when a FIFO read fails
/// part-way (bytes may have been consumed) or the count is not a whole number of frames.
public final class MPU6050: Accelerometer {
    public enum Register {
        static let sampleRateDivider: UInt8 = 0x19  // SMPLRT_DIV
        static let config: UInt8 = 0x1A             // EXT_SYNC_SET[5:3] DLPF_CFG[2:0]
        static let accelConfig: UInt8 = 0x1C        // XA_ST YA_ST ZA_ST[7:5] AFS_SEL[4:3]
        static let fifoEnable: UInt8 = 0x23         // TEMP[7] XG[6] YG[5] ZG[4] ACCEL[3] SLV2..0[2:0]
        static let interruptEnable: UInt8 = 0x38    // FIFO_OFLOW_EN[4] I2C_MST_INT_EN[3] DATA_RDY_EN[0]
        static let interruptStatus: UInt8 = 0x3A    // FIFO_OFLOW_INT[4] I2C_MST_INT[3] DATA_RDY_INT[0], cleared on read
        static let userControl: UInt8 = 0x6A        // FIFO_EN[6] I2C_MST_EN[5] I2C_IF_DIS[4] FIFO_RESET[2] ...
        static let powerManagement1: UInt8 = 0x6B   // DEVICE_RESET[7] SLEEP[6] CYCLE[5] TEMP_DIS[3] CLKSEL[2:0]
        static let powerManagement2: UInt8 = 0x6C   // LP_WAKE_CTRL[7:6] STBY_XA..ZA[5:3] STBY_XG..ZG[2:0]
        static let fifoCountHigh: UInt8 = 0x72      // FIFO_COUNT_H, then _L: bytes in the FIFO, big-endian
        static let fifoReadWrite: UInt8 = 0x74      // FIFO_R_W
        static let whoAmI: UInt8 = 0x75
    }

    enum Bits {
        static let powerDeviceReset: UInt8 = 0x80
        /// CLKSEL 0: internal 8 MHz oscillator, SLEEP and CYCLE clear.
        static let powerInternalClockAwake: UInt8 = 0x00
        static let standbyAllGyros: UInt8 = 0x07
        static let accelFullScaleShift: UInt8 = 3
        static let fifoEnableAccel: UInt8 = 0x08
        static let interruptFIFOOverflow: UInt8 = 0x10
        static let userFIFOEnable: UInt8 = 0x40
        static let userFIFOReset: UInt8 = 0x04
    }

    public static let whoAmIValue: UInt8 = 0x68
    static let fifoCapacityBytes = 1024
    static let frameBytes = 6
    /// Frames per FIFO_R_W burst, to keep each transfer short (240 bytes).
    static let framesPerBurst = 40
    /// Time the datasheet gives DEVICE_RESET.
    static let resetSeconds = 0.1

    /// Sample rates (Hz) with the DLPF_CFG that goes with each. With the low-pass filter on
    /// (DLPF_CFG 1...6) the gyro output rate is 1 kHz, so SMPLRT_DIV = 1000 / rate - 1. The
    /// filter is the widest whose accelerometer bandwidth (184, 94, 44, 21, 10, 5 Hz for
    /// DLPF_CFG 1...6) stays at or below half the sample rate, so nothing aliases.
    static let rateSettings: [(hz: Double, dlpf: UInt8)] = [
        (10, 6), (20, 5), (25, 5), (50, 4), (100, 3), (200, 2), (250, 2), (500, 1),
    ]

    /// Accelerometer sensitivity, LSB per g, by full scale. The output is a 16-bit two's
    /// complement word, ±32768 counts spanning the range: 32768 / 2 g = 16384 LSB/g, then
    /// 8192 at ±4 g, 4096 at ±8 g, 2048 at ±16 g (AFS_SEL 0...3).
    static let lsbPerG: [Int: Double] = [2: 16384, 4: 8192, 8: 4096, 16: 2048]
    static let fullScaleCodes: [Int: UInt8] = [2: 0, 4: 1, 8: 2, 16: 3]

    public let chipName = "MPU-6050"
    public let bus: any I2CBus
    public let address: I2CAddress
    public let rangeG: Int
    public let sampleRateHz: Double
    private let divider: UInt8
    private let lowPassCode: UInt8
    private let scaleG: Double
    private let registers: RegisterAccess
    /// A FIFO read failed: bytes may be gone and the frame boundary with them.
    private var fifoNeedsReset = false
    private let pause: (_ seconds: Double) -> Void

    /// - Parameters:
    ///   - address: 0x68 (AD0 low, most breakouts) or 0x69.
    ///   - rangeG: full scale, ±2, 4, 8 or 16 g.
    ///   - sampleRateHz: one of 10, 20, 25, 50, 100, 200, 250, 500 Hz.
    ///   - pause: waits the given seconds; called once during set-up for the 100 ms the
    ///     datasheet gives the reset. The band passes a real sleep; the default returns at once
    ///     (emulated chips reset instantly).
    public init(bus: any I2CBus, address: I2CAddress = 0x68, rangeG: Int = 4, sampleRateHz: Double = 50, pause: @escaping (_ seconds: Double) -> Void = { _ in }) throws(SensorError) {
        self.bus = bus
        self.address = address
        self.pause = pause
        registers = RegisterAccess(chip: "MPU-6050", bus: bus, address: address)
        guard let perG = Self.lsbPerG[rangeG] else {
            throw registers.error(.unsupportedSetting("range ±\(rangeG) g is not one of ±2, 4, 8, 16 g"))
        }
        guard let rate = Self.rateSettings.first(where: { $0.hz == sampleRateHz }) else {
            let rates = Self.rateSettings.map { "\(Int($0.hz))" }.joined(separator: ", ")
            throw registers.error(.unsupportedSetting("rate \(sampleRateHz) Hz is not one of \(rates) Hz"))
        }
        self.rangeG = rangeG
        self.sampleRateHz = rate.hz
        divider = UInt8(1000 / rate.hz - 1)
        lowPassCode = rate.dlpf
        scaleG = 1 / perG
    }

    public func configure() throws(SensorError) {
        try registers.expectChipID(register: Register.whoAmI, value: Self.whoAmIValue, family: "MPU-6050")
        try registers.write(Register.powerManagement1, Bits.powerDeviceReset)
        // The datasheet gives the reset 100 ms; then the bit must read clear. The chip may not
        // answer while it resets, so a failed poll is tried again.
        pause(Self.resetSeconds)
        var resetDone = false
        for _ in 0..<100 {
            if let value = try? registers.read(Register.powerManagement1), value & Bits.powerDeviceReset == 0 {
                resetDone = true
                break
            }
        }
        guard resetDone else { throw registers.error(.resetTimedOut) }
        try registers.writeVerified(Register.powerManagement1, Bits.powerInternalClockAwake)
        try registers.writeVerified(Register.powerManagement2, Bits.standbyAllGyros)
        try registers.writeVerified(Register.config, lowPassCode)
        try registers.writeVerified(Register.sampleRateDivider, divider)
        try registers.writeVerified(Register.accelConfig, Self.fullScaleCodes[rangeG]! << Bits.accelFullScaleShift)
        try registers.writeVerified(Register.interruptEnable, Bits.interruptFIFOOverflow)
        try registers.writeVerified(Register.fifoEnable, Bits.fifoEnableAccel)
        try resetFIFO()
        _ = try registers.read(Register.interruptStatus)  // clear what set-up left behind
        fifoNeedsReset = false
    }

    /// FIFO_RESET works while USER_CTRL's FIFO_EN is 0, so: stop, reset, start.
    private func resetFIFO() throws(SensorError) {
        try registers.write(Register.userControl, 0)
        try registers.write(Register.userControl, Bits.userFIFOReset)
        try registers.writeVerified(Register.userControl, Bits.userFIFOEnable)
    }

    public func readSamples() throws(SensorError) -> AccelerometerBatch {
        if fifoNeedsReset {
            try resetFIFO()
            fifoNeedsReset = false
            _ = try registers.read(Register.interruptStatus)
            return AccelerometerBatch(samples: [], overrunDetected: true)
        }
        let status = try registers.read(Register.interruptStatus)
        let countBytes = try registers.read(Register.fifoCountHigh, count: 2)
        let count = Int(countBytes[0]) << 8 | Int(countBytes[1])
        if status & Bits.interruptFIFOOverflow != 0 || count % Self.frameBytes != 0 || count > Self.fifoCapacityBytes {
            try resetFIFO()
            return AccelerometerBatch(samples: [], overrunDetected: true)
        }
        var frames = count / Self.frameBytes
        var samples: [AccelerationVector] = []
        samples.reserveCapacity(frames)
        while frames > 0 {
            let chunk = min(frames, Self.framesPerBurst)
            let bytes = try registers.read(Register.fifoReadWrite, count: chunk * Self.frameBytes, markingFailureIn: &fifoNeedsReset)
            for i in 0..<chunk {
                let o = i * Self.frameBytes
                samples.append(AccelerationVector(
                    xG: Self.decode(bytes[o], bytes[o + 1]) * scaleG,
                    yG: Self.decode(bytes[o + 2], bytes[o + 3]) * scaleG,
                    zG: Self.decode(bytes[o + 4], bytes[o + 5]) * scaleG
                ))
            }
            frames -= chunk
        }
        return AccelerometerBatch(samples: samples, overrunDetected: false)
    }

    /// Big-endian 16-bit two's complement to digits.
    static func decode(_ high: UInt8, _ low: UInt8) -> Double {
        Double(Int16(bitPattern: UInt16(high) << 8 | UInt16(low)))
    }
}
