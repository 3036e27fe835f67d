import AmbleHardware

/// Analog Devices ADXL345 three-axis accelerometer over I2C (address 0x53 with ALT ADDRESS
/// low, 0x1D with it high).
///
/// Set-up: DEVID check, standby while configuring, full-resolution mode with the range asked
/// for, the output data rate, FIFO emptied (bypass) then in stream mode, then measurement.
/// Reads: INT_SOURCE for the overrun bit, FIFO_STATUS for the number of entries, then one
/// 6-byte read from DATAX0 per entry: each read of the data registers pops one FIFO entry, so
/// entries cannot be burst-read together as on the LIS3DH.
///
/// Overrun: the chip has no lost-sample counter. INT_SOURCE's OVERRUN bit (D0) is set in the
/// FIFO modes when the FIFO has filled and is cleared by reading data; it works whether or not
/// the interrupt is enabled. The driver reports it as a gap. A full FIFO does not always mean
/// a sample was lost (it may have filled just before the read), but the chip cannot say which,
/// so the driver errs on the side of a gap. No time-based inference: the FIFO bit is enough at
/// the rates the band uses, and a clock-based guess would need the band's clock in the driver.
/// A read that fails part-way through the FIFO has popped entries the caller never saw, so
/// the next batch also reports a gap.
public final class ADXL345: Accelerometer {
    public enum Register {
        static let deviceID: UInt8 = 0x00
        static let bandwidthRate: UInt8 = 0x2C    // LOW_POWER[4] RATE[3:0]
        static let powerControl: UInt8 = 0x2D     // LINK[5] AUTO_SLEEP[4] MEASURE[3] SLEEP[2] WAKEUP[1:0]
        static let interruptEnable: UInt8 = 0x2E
        static let interruptSource: UInt8 = 0x30  // DATA_READY[7] ... WATERMARK[1] OVERRUN[0]
        static let dataFormat: UInt8 = 0x31       // SELF_TEST[7] SPI[6] INT_INVERT[5] FULL_RES[3] JUSTIFY[2] RANGE[1:0]
        static let dataX0: UInt8 = 0x32           // DATAX0, X1, Y0, Y1, Z0, Z1: little-endian
        static let fifoControl: UInt8 = 0x38      // FIFO_MODE[7:6] TRIGGER[5] SAMPLES[4:0]
        static let fifoStatus: UInt8 = 0x39       // FIFO_TRIG[7] ENTRIES[5:0]
    }

    enum Bits {
        static let powerMeasure: UInt8 = 0x08
        static let formatFullResolution: UInt8 = 0x08
        static let fifoModeBypass: UInt8 = 0x00
        static let fifoModeStream: UInt8 = 0x80
        /// Watermark at 16 entries (only sets a status bit; the driver does not use it).
        static let fifoWatermark16: UInt8 = 16
        static let interruptOverrun: UInt8 = 0x01
        static let fifoEntriesMask: UInt8 = 0x3F
    }

    public static let deviceIDValue: UInt8 = 0xE5
    /// Entries the FIFO holds; the datasheet counts one more waiting in the output registers.
    static let fifoDepth = 32

    /// Output data rates (Hz) and their BW_RATE codes: rate = 3200 Hz / 2^(15 - code).
    /// Faster rates are left out: one 6-byte transfer per sample (about 0.8 ms at 100 kHz)
    /// would take most of the bus.
    static let rateCodes: [(hz: Double, code: UInt8)] = [
        (6.25, 0x06), (12.5, 0x07), (25, 0x08), (50, 0x09), (100, 0x0A), (200, 0x0B), (400, 0x0C),
    ]
    /// DATA_FORMAT range codes, RANGE[1:0].
    static let rangeCodes: [Int: UInt8] = [2: 0, 4: 1, 8: 2, 16: 3]

    /// Scale in full-resolution mode, g per LSB of the right-justified value.
    /// FULL_RES keeps the LSB at the same weight at every range by widening the word: ±2 g in
    /// 10 bits, ±4 g in 11, ±8 g in 12, ±16 g in 13. So 4 g / 2^10 = 32 g / 2^13 = 3.90625 mg
    /// per LSB, i.e. 256 LSB/g (the datasheet's "3.9 mg/LSB", typical; parts vary ±10 %).
    /// The range then only sets where the value clips.
    static let gPerLSB = 1.0 / 256

    public let chipName = "ADXL345"
    public let bus: any I2CBus
    public let address: I2CAddress
    public let rangeG: Int
    public let sampleRateHz: Double
    private let rateCode: UInt8
    private let rangeCode: UInt8
    private let registers: RegisterAccess
    /// A read failed after popping entries: the next batch starts after a gap.
    private var entriesLostToFailedRead = false

    /// - Parameters:
    ///   - address: 0x53 (ALT ADDRESS pin low, most breakouts) or 0x1D.
    ///   - rangeG: full scale, ±2, 4, 8 or 16 g.
    ///   - sampleRateHz: output data rate; one of 6.25, 12.5, 25, 50, 100, 200, 400 Hz.
    public init(bus: any I2CBus, address: I2CAddress = 0x53, rangeG: Int = 4, sampleRateHz: Double = 50) throws(SensorError) {
        self.bus = bus
        self.address = address
        registers = RegisterAccess(chip: "ADXL345", bus: bus, address: address)
        guard let range = Self.rangeCodes[rangeG] else {
            throw registers.error(.unsupportedSetting("range ±\(rangeG) g is not one of ±2, 4, 8, 16 g"))
        }
        guard let rate = Self.rateCodes.first(where: { $0.hz == sampleRateHz }) else {
            let rates = Self.rateCodes.map { "\($0.hz)" }.joined(separator: ", ")
            throw registers.error(.unsupportedSetting("rate \(sampleRateHz) Hz is not one of \(rates) Hz"))
        }
        self.rangeG = rangeG
        self.sampleRateHz = rate.hz
        rateCode = rate.code
        rangeCode = range
    }

    public func configure() throws(SensorError) {
        try registers.expectChipID(register: Register.deviceID, value: Self.deviceIDValue, family: "ADXL345")
        // Standby while changing the set-up, as the datasheet recommends.
        try registers.writeVerified(Register.powerControl, 0)
        try registers.writeVerified(Register.dataFormat, Bits.formatFullResolution | rangeCode)
        try registers.writeVerified(Register.bandwidthRate, rateCode)
        try registers.writeVerified(Register.interruptEnable, 0)
        // Bypass empties the FIFO (and clears OVERRUN); stream keeps the newest 32 entries.
        try registers.writeVerified(Register.fifoControl, Bits.fifoModeBypass)
        try registers.writeVerified(Register.fifoControl, Bits.fifoModeStream | Bits.fifoWatermark16)
        try registers.writeVerified(Register.powerControl, Bits.powerMeasure)
        entriesLostToFailedRead = false
    }

    public func readSamples() throws(SensorError) -> AccelerometerBatch {
        let source = try registers.read(Register.interruptSource)
        let status = try registers.read(Register.fifoStatus)
        let overrun = source & Bits.interruptOverrun != 0
        let count = min(Int(status & Bits.fifoEntriesMask), Self.fifoDepth + 1)
        var samples: [AccelerationVector] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            // A failed read may have popped an entry, and earlier ones are dropped with the batch.
            let bytes = try registers.read(Register.dataX0, count: 6, markingFailureIn: &entriesLostToFailedRead)
            samples.append(AccelerationVector(
                xG: Self.decode(bytes[0], bytes[1]) * Self.gPerLSB,
                yG: Self.decode(bytes[2], bytes[3]) * Self.gPerLSB,
                zG: Self.decode(bytes[4], bytes[5]) * Self.gPerLSB
            ))
        }
        let gap = overrun || entriesLostToFailedRead
        entriesLostToFailedRead = false
        return AccelerometerBatch(samples: samples, overrunDetected: gap)
    }

    /// Little-endian, right-justified and sign-extended to 16 bits: digits.
    static func decode(_ low: UInt8, _ high: UInt8) -> Double {
        Double(Int16(bitPattern: UInt16(high) << 8 | UInt16(low)))
    }
}
