import AmbleHardware

/// One PPG sample from the MAX3010x: 18-bit ADC counts of each LED's reflected light.
public struct OpticalSample: Equatable, Sendable {
    /// Red LED (LED1), ADC counts 0...262143.
    public var red: UInt32
    /// Infrared LED (LED2), ADC counts 0...262143; 0 in HR (red-only) mode.
    public var infrared: UInt32

    public init(red: UInt32, infrared: UInt32) {
        self.red = red
        self.infrared = infrared
    }
}

/// What one read of the PPG FIFO gave.
public struct OpticalBatch: Equatable, Sendable {
    /// Samples oldest first, spaced by the effective sample rate.
    public var samples: [OpticalSample]
    /// Samples the chip dropped because the FIFO was full (its overflow counter, 0...31).
    public var samplesLost: Int
    /// Whether the infrared level says skin is over the sensor (false: off the wrist); nil
    /// when the batch is empty and says nothing either way.
    public var skinDetected: Bool?

    public init(samples: [OpticalSample], samplesLost: Int, skinDetected: Bool?) {
        self.samples = samples
        self.samplesLost = samplesLost
        self.skinDetected = skinDetected
    }
}

/// Maxim MAX30102 (and MAX30101/MAX30105: same map, same PART_ID 0x15) PPG sensor at 0x57.
///
/// Set-up: PART_ID check, soft reset (waits for the RESET bit to clear), sample averaging with
/// FIFO roll-over, ADC range 4096 nA, sample rate, LED pulse width (411 us: 18-bit), LED
/// currents, FIFO pointers cleared, then SpO2 mode (red and IR). Reads: the write pointer,
/// overflow counter and read pointer in one burst, then every waiting sample from FIFO_DATA
/// in one burst (the chip does not advance its register pointer on FIFO_DATA).
public final class MAX30102 {
    enum Register {
        static let fifoWritePointer: UInt8 = 0x04
        static let fifoData: UInt8 = 0x07
        static let fifoConfig: UInt8 = 0x08   // SMP_AVE[7:5] FIFO_ROLLOVER_EN[4] FIFO_A_FULL[3:0]
        static let modeConfig: UInt8 = 0x09   // SHDN[7] RESET[6] MODE[2:0]
        static let spo2Config: UInt8 = 0x0A   // SPO2_ADC_RGE[6:5] SPO2_SR[4:2] LED_PW[1:0]
        static let led1PulseAmplitude: UInt8 = 0x0C
        static let led2PulseAmplitude: UInt8 = 0x0D
        static let fifoReadPointer: UInt8 = 0x06
        static let overflowCounter: UInt8 = 0x05
        static let partID: UInt8 = 0xFF
    }

    enum Bits {
        static let modeReset: UInt8 = 0x40
        static let modeSpO2: UInt8 = 0x03     // red + IR
        static let modeShutdown: UInt8 = 0x80
        static let fifoRollOver: UInt8 = 0x10
        static let fifoAlmostFullFree: UInt8 = 0x0F  // A_FULL when 17 samples wait
        static let adcRange4096nA: UInt8 = 0x01 << 5
        static let pulseWidth411us: UInt8 = 0x03     // 18-bit resolution
        static let sampleMask: UInt32 = 0x3FFFF      // 18 bits
    }

    public static let partIDValue: UInt8 = 0x15
    static let fifoDepth = 32
    /// Sample rates (Hz) and their SPO2_SR codes. At 411 us pulses the chip runs up to 400 Hz in SpO2 mode.
    static let rateCodes: [(hz: Double, code: UInt8)] = [(50, 0), (100, 1), (200, 2), (400, 3)]
    /// Samples averaged per FIFO entry and their SMP_AVE codes.
    static let averagingCodes: [Int: UInt8] = [1: 0, 2: 1, 4: 2, 8: 3, 16: 4, 32: 5]
    /// Infrared counts below this mean nothing reflects the light: no skin over the sensor.
    /// A wrist at 7 mA gives 50k-200k counts; open air gives ambient light only, a few thousand.
    public static let skinThresholdCounts: UInt32 = 20_000

    public let chipName = "MAX30102"
    public let bus: any I2CBus
    public let address: I2CAddress
    /// Effective rate of FIFO entries: the sample rate divided by the averaging.
    public let sampleRateHz: Double
    private let rateCode: UInt8
    private let averagingCode: UInt8
    private let ledCode: UInt8
    private let registers: RegisterAccess
    /// A FIFO burst failed part-way: samples may have been popped and lost.
    private var readFailed = false

    /// - Parameters:
    ///   - sampleRateHz: ADC sample rate: 50, 100, 200 or 400 Hz.
    ///   - averaging: samples averaged per FIFO entry: 1, 2, 4, 8, 16 or 32.
    ///   - ledCurrentMilliAmps: both LEDs, 0...51 mA in 0.2 mA steps.
    public init(bus: any I2CBus, address: I2CAddress = 0x57, sampleRateHz: Double = 100, averaging: Int = 1, ledCurrentMilliAmps: Double = 7.2) throws(SensorError) {
        self.bus = bus
        self.address = address
        registers = RegisterAccess(chip: "MAX30102", bus: bus, address: address)
        guard let rate = Self.rateCodes.first(where: { $0.hz == sampleRateHz }) else {
            throw registers.error(.unsupportedSetting("sample rate \(sampleRateHz) Hz is not one of 50, 100, 200, 400 Hz"))
        }
        guard let average = Self.averagingCodes[averaging] else {
            throw registers.error(.unsupportedSetting("averaging \(averaging) is not one of 1, 2, 4, 8, 16, 32"))
        }
        guard ledCurrentMilliAmps >= 0, ledCurrentMilliAmps <= 51 else {
            throw registers.error(.unsupportedSetting("LED current \(ledCurrentMilliAmps) mA is outside 0...51 mA"))
        }
        rateCode = rate.code
        averagingCode = average
        // LEDx_PA: 0.2 mA per LSB.
        ledCode = UInt8((ledCurrentMilliAmps / 0.2).rounded())
        self.sampleRateHz = rate.hz / Double(averaging)
    }

    public func configure() throws(SensorError) {
        readFailed = false
        try registers.expectChipID(register: Register.partID, value: Self.partIDValue, family: "MAX30102")
        try registers.write(Register.modeConfig, Bits.modeReset)
        var resetDone = false
        for _ in 0..<50 {
            if try registers.read(Register.modeConfig) & Bits.modeReset == 0 { resetDone = true; break }
        }
        guard resetDone else { throw registers.error(.resetTimedOut) }
        try registers.writeVerified(Register.fifoConfig, averagingCode << 5 | Bits.fifoRollOver | Bits.fifoAlmostFullFree)
        try registers.writeVerified(Register.spo2Config, Bits.adcRange4096nA | rateCode << 2 | Bits.pulseWidth411us)
        try registers.writeVerified(Register.led1PulseAmplitude, ledCode)
        try registers.writeVerified(Register.led2PulseAmplitude, ledCode)
        try registers.write(Register.fifoWritePointer, 0)
        try registers.write(Register.overflowCounter, 0)
        try registers.write(Register.fifoReadPointer, 0)
        try registers.writeVerified(Register.modeConfig, Bits.modeSpO2)
    }

    /// Puts the chip in its low-power shutdown (LEDs off).
    public func shutDown() throws(SensorError) {
        try registers.write(Register.modeConfig, Bits.modeShutdown | Bits.modeSpO2)
    }

    public func readSamples() throws(SensorError) -> OpticalBatch {
        let pointers = try registers.read(Register.fifoWritePointer, count: 3)  // WR_PTR, OVF_COUNTER, RD_PTR
        let write = Int(pointers[0] & 0x1F), lost = Int(pointers[1] & 0x1F), read = Int(pointers[2] & 0x1F)
        // Equal pointers mean empty, or full when samples were lost since.
        var count = (write - read + Self.fifoDepth) % Self.fifoDepth
        if count == 0 && lost > 0 { count = Self.fifoDepth }
        // A burst that failed part-way may have popped samples the chip did not count as lost.
        let lostBefore = readFailed ? 1 : 0
        guard count > 0 else {
            readFailed = false
            return OpticalBatch(samples: [], samplesLost: lost + lostBefore, skinDetected: nil)
        }
        let bytes = try registers.read(Register.fifoData, count: count * 6, markingFailureIn: &readFailed)
        readFailed = false
        var samples: [OpticalSample] = []
        samples.reserveCapacity(count)
        var infraredSum: UInt64 = 0
        for i in 0..<count {
            let o = i * 6
            let red = Self.decode(bytes[o], bytes[o + 1], bytes[o + 2])
            let infrared = Self.decode(bytes[o + 3], bytes[o + 4], bytes[o + 5])
            infraredSum += UInt64(infrared)
            samples.append(OpticalSample(red: red, infrared: infrared))
        }
        let skin = infraredSum / UInt64(count) >= UInt64(Self.skinThresholdCounts)
        return OpticalBatch(samples: samples, samplesLost: lost + lostBefore, skinDetected: skin)
    }

    /// Three bytes, MSB first; bits 23:18 are not data.
    static func decode(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> UInt32 {
        (UInt32(b0) << 16 | UInt32(b1) << 8 | UInt32(b2)) & Bits.sampleMask
    }
}
