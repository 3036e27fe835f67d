import AmbleHardware

/// A MAX30102 pulse-oximeter/heart-rate sensor at register level (the MAX30101 and MAX30105
/// share the map and PART_ID 0x15).
///
/// Emulated: PART_ID/REV_ID; MODE_CONFIG reset (self-clearing), shutdown and mode (HR: red
/// only, SpO2: red + IR); SPO2_CONFIG sample rate, pulse width (ADC resolution 15-18 bits,
/// left-justified) and ADC range; FIFO_CONFIG sample averaging, roll-over and almost-full
/// threshold; LED pulse amplitudes (0.2 mA per LSB) scaling the light seen; the 32-sample
/// FIFO with its write and read pointers, the overflow counter (samples lost while full), and
/// FIFO_DATA reads that do not advance the register pointer; INT_STATUS_1 A_FULL/PPG_RDY,
/// cleared on read; the die temperature.
public final class MAX30102Emulator: StallableEmulator {
    public enum Register {
        public static let interruptStatus1: UInt8 = 0x00
        public static let interruptStatus2: UInt8 = 0x01
        public static let interruptEnable1: UInt8 = 0x02
        public static let fifoWritePointer: UInt8 = 0x04
        public static let overflowCounter: UInt8 = 0x05
        public static let fifoReadPointer: UInt8 = 0x06
        public static let fifoData: UInt8 = 0x07
        public static let fifoConfig: UInt8 = 0x08
        public static let modeConfig: UInt8 = 0x09
        public static let spo2Config: UInt8 = 0x0A
        public static let led1PulseAmplitude: UInt8 = 0x0C
        public static let led2PulseAmplitude: UInt8 = 0x0D
        public static let dieTemperatureInteger: UInt8 = 0x1F
        public static let dieTemperatureFraction: UInt8 = 0x20
        public static let dieTemperatureConfig: UInt8 = 0x21
        public static let revisionID: UInt8 = 0xFE
        public static let partID: UInt8 = 0xFF
    }

    public static let partIDValue: UInt8 = 0x15
    public static let fifoDepth = 32

    private let clock: any BandClock
    private let source: any PPGSource
    private var registers = [UInt8](repeating: 0, count: 256)
    private var pointer: UInt8 = 0
    /// FIFO slots: one 18-bit value per active LED per sample.
    private var slots = [[UInt32]](repeating: [], count: 32)
    private var byteInSample = 0
    private var ticker = SampleTicker()
    private var averaging: [(Double, Double)] = []

    /// Fault injection: while true no sample enters the FIFO and pointers stay put.
    public var fifoStuck = false
    /// Die temperature in degrees Celsius reported when a measurement is started.
    public var dieTemperatureCelsius = 31.5

    public init(clock: any BandClock, source: any PPGSource) {
        self.clock = clock
        self.source = source
        powerOnReset()
    }

    public func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 256)
        registers[Int(Register.interruptStatus1)] = 0x01  // PWR_RDY
        registers[Int(Register.revisionID)] = 0x03
        registers[Int(Register.partID)] = Self.partIDValue
        slots = [[UInt32]](repeating: [], count: 32)
        level = 0
        byteInSample = 0
        ticker.restart()
        averaging.removeAll()
        pointer = 0
    }

    // MARK: Configuration as the registers say

    var mode: UInt8 { registers[Int(Register.modeConfig)] & 0x07 }
    var isShutDown: Bool { registers[Int(Register.modeConfig)] & 0x80 != 0 }
    /// LEDs stored per sample: 1 in HR mode (red), 2 in SpO2 mode (red, IR).
    var activeLEDs: Int {
        switch mode {
        case 0b010: return 1
        case 0b011: return 2
        case 0b111: return 2
        default: return 0
        }
    }

    var sampleRateHz: Double {
        [50.0, 100, 200, 400, 800, 1000, 1600, 3200][Int((registers[Int(Register.spo2Config)] >> 2) & 0x7)]
    }

    var samplesAveraged: Int { [1, 2, 4, 8, 16, 32, 32, 32][Int(registers[Int(Register.fifoConfig)] >> 5)] }
    var rollOverEnabled: Bool { registers[Int(Register.fifoConfig)] & 0x10 != 0 }
    /// ADC resolution from the LED pulse width: 69 us 15 bits ... 411 us 18 bits.
    var resolutionBits: Int { 15 + Int(registers[Int(Register.spo2Config)] & 0x3) }
    /// ADC full scale in nA.
    var adcRangeNanoAmps: Double { [2048.0, 4096, 8192, 16384][Int((registers[Int(Register.spo2Config)] >> 5) & 0x3)] }

    var writePointer: Int {
        get { Int(registers[Int(Register.fifoWritePointer)] & 0x1F) }
        set { registers[Int(Register.fifoWritePointer)] = UInt8(newValue & 0x1F) }
    }

    var readPointer: Int {
        get { Int(registers[Int(Register.fifoReadPointer)] & 0x1F) }
        set { registers[Int(Register.fifoReadPointer)] = UInt8(newValue & 0x1F) }
    }

    var overflowCount: Int {
        get { Int(registers[Int(Register.overflowCounter)] & 0x1F) }
        set { registers[Int(Register.overflowCounter)] = UInt8(min(newValue, 0x1F)) }
    }

    /// Samples the FIFO holds. The chip knows; a driver sees only the pointers (equal when
    /// empty and when full) and the overflow counter.
    private(set) var level = 0

    // MARK: Sampling

    private func catchUp() {
        let running = !isShutDown && activeLEDs > 0
        let due = ticker.ticks(until: clock.nowSeconds, rateHz: running ? sampleRateHz : nil)
        guard !fifoStuck else { return }  // a wedged chip loses what it should have sampled
        for t in due {
            let light = source.opticalCounts(atSeconds: t)
            averaging.append(light)
            guard averaging.count >= samplesAveraged else { continue }
            let red = averaging.map(\.0).reduce(0, +) / Double(averaging.count)
            let ir = averaging.map(\.1).reduce(0, +) / Double(averaging.count)
            averaging.removeAll(keepingCapacity: true)
            let values = [encode(red, led: Register.led1PulseAmplitude), encode(ir, led: Register.led2PulseAmplitude)]
            push(Array(values.prefix(activeLEDs)))
        }
    }

    /// Light at the reference settings to the left-justified 18-bit sample the chip stores.
    private func encode(_ referenceCounts: Double, led: UInt8) -> UInt32 {
        let currentMilliAmps = Double(registers[Int(led)]) * 0.2
        let ambient = 600.0  // ambient light and dark current, independent of the LED
        let lit = max(0, referenceCounts - ambient) * currentMilliAmps / 7.2 + ambient
        let counts = lit * 4096 / adcRangeNanoAmps
        let clipped = UInt32(max(0, min(Double((1 << 18) - 1), counts.rounded())))
        let dropped = 18 - resolutionBits
        return (clipped >> dropped) << dropped
    }

    private func push(_ sample: [UInt32]) {
        if level == Self.fifoDepth {
            overflowCount += 1
            guard rollOverEnabled else { return }
            readPointer += 1  // the oldest sample is overwritten
            level -= 1
        }
        slots[writePointer] = sample
        writePointer += 1
        level += 1
        var status = registers[Int(Register.interruptStatus1)] | 0x40  // PPG_RDY
        let almostFullFree = Int(registers[Int(Register.fifoConfig)] & 0x0F)
        if Self.fifoDepth - level <= almostFullFree { status |= 0x80 }  // A_FULL
        registers[Int(Register.interruptStatus1)] = status
    }

    // MARK: I2CDeviceEmulator

    public func receive(write bytes: [UInt8]) throws(EmulatedBusFault) {
        guard let first = bytes.first else { return }
        catchUp()
        pointer = first
        if pointer != Register.fifoData { byteInSample = 0 }
        for value in bytes.dropFirst() {
            writeRegister(pointer, value)
            if pointer != Register.fifoData { pointer &+= 1 }
        }
    }

    private func writeRegister(_ register: UInt8, _ value: UInt8) {
        switch register {
        case Register.modeConfig where value & 0x40 != 0:
            powerOnReset()  // RESET clears itself once done
            registers[Int(Register.interruptStatus1)] = 0
        case Register.fifoWritePointer, Register.fifoReadPointer, Register.overflowCounter:
            registers[Int(register)] = value & 0x1F
            level = (writePointer - readPointer + 32) % 32  // drivers clear all three to empty it
            byteInSample = 0
        case Register.dieTemperatureConfig where value & 0x01 != 0:
            let t = dieTemperatureCelsius
            registers[Int(Register.dieTemperatureInteger)] = UInt8(bitPattern: Int8(t.rounded(.down)))
            registers[Int(Register.dieTemperatureFraction)] = UInt8((t - t.rounded(.down)) / 0.0625)
        case Register.partID, Register.revisionID, Register.interruptStatus1, Register.interruptStatus2, Register.fifoData:
            return
        case Register.modeConfig:
            let wasShutDown = isShutDown
            registers[Int(register)] = value
            if wasShutDown && !isShutDown { ticker.restart() }
        default:
            registers[Int(register)] = value
        }
    }

    public func respond(readCount count: Int) throws(EmulatedBusFault) -> [UInt8] {
        catchUp()
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            if pointer == Register.fifoData {
                out.append(nextFIFOByte())
                continue
            }
            let value = registers[Int(pointer)]
            if pointer == Register.interruptStatus1 || pointer == Register.interruptStatus2 {
                registers[Int(pointer)] = 0  // cleared on read
            }
            out.append(value)
            pointer &+= 1
        }
        return out
    }

    /// FIFO_DATA: three bytes per LED, MSB first; the read pointer advances after a whole sample.
    private func nextFIFOByte() -> UInt8 {
        let bytesPerSample = max(1, activeLEDs) * 3
        let sample = slots[readPointer]
        let led = byteInSample / 3
        let value = led < sample.count ? sample[led] : 0
        let shift = UInt32(8 * (2 - byteInSample % 3))
        let byte = UInt8((value >> shift) & 0xFF)
        byteInSample += 1
        if byteInSample == bytesPerSample {
            byteInSample = 0
            if level > 0 {
                readPointer += 1
                level -= 1
                overflowCount = 0
            }
        }
        return byte
    }
}
