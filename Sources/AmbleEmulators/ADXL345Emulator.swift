import AmbleHardware

/// An ADXL345 at register level.
///
/// Emulated: DEVID 0xE5; BW_RATE output data rate (3200 Hz / 2^(15 - code)); POWER_CTL
/// MEASURE and SLEEP (standby and sleep produce nothing; power-on is standby); DATA_FORMAT
/// range, FULL_RES (10 to 13-bit words at 256 LSB/g) or fixed 10-bit, and JUSTIFY
/// (left-justified MSB); the 32-entry FIFO in bypass, FIFO, stream and trigger (as stream)
/// modes with the watermark; FIFO_STATUS entries; INT_SOURCE DATA_READY, WATERMARK and
/// OVERRUN (set when new data replaces unread data in bypass, when the FIFO fills in the other
/// modes, cleared by reading data); any read of DATAX0...DATAZ1 pops one FIFO entry, however
/// many of the six bytes it reads; multi-byte reads and writes auto-increment the register.
/// Reserved registers 0x01...0x1C refuse writes with an I/O error.
public final class ADXL345Emulator: StallableEmulator {
    public enum Register {
        public static let deviceID: UInt8 = 0x00
        public static let bandwidthRate: UInt8 = 0x2C
        public static let powerControl: UInt8 = 0x2D
        public static let interruptEnable: UInt8 = 0x2E
        public static let interruptSource: UInt8 = 0x30
        public static let dataFormat: UInt8 = 0x31
        public static let dataX0: UInt8 = 0x32
        public static let dataZ1: UInt8 = 0x37
        public static let fifoControl: UInt8 = 0x38
        public static let fifoStatus: UInt8 = 0x39
    }

    public static let deviceIDValue: UInt8 = 0xE5
    public static let fifoDepth = 32

    private let clock: any BandClock
    private let source: any AccelerationSource
    private var registers = [UInt8](repeating: 0, count: 0x40)
    private var pointer: UInt8 = 0
    private var fifo: [(Int16, Int16, Int16)] = []
    /// What DATAX0...DATAZ1 hold when the FIFO is bypassed or empty.
    private var output: (Int16, Int16, Int16) = (0, 0, 0)
    private var ticker = SampleTicker()
    private var overrun = false
    private var dataReady = false

    /// Fault injection: while true no new sample enters the FIFO (the sampling path froze);
    /// entries already in it can still be read.
    public var fifoStuck = false {
        willSet { catchUp() }  // samples due before the fault are in
    }
    /// Samples the chip produced since power-on (for tests).
    public private(set) var samplesProduced = 0

    public init(clock: any BandClock, source: any AccelerationSource) {
        self.clock = clock
        self.source = source
        powerOnReset()
    }

    public func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 0x40)
        registers[Int(Register.deviceID)] = Self.deviceIDValue
        registers[Int(Register.bandwidthRate)] = 0x0A  // 100 Hz
        fifo.removeAll()
        output = (0, 0, 0)
        ticker.restart()
        overrun = false
        dataReady = false
        pointer = 0
        samplesProduced = 0
    }

    // MARK: Configuration as the registers say

    var measuring: Bool {
        let power = registers[Int(Register.powerControl)]
        return power & 0x08 != 0 && power & 0x04 == 0
    }

    /// Output data rate in Hz, nil in standby or sleep.
    var outputRateHz: Double? {
        guard measuring else { return nil }
        let code = Int(registers[Int(Register.bandwidthRate)] & 0x0F)
        return 3200 / Double(1 << (15 - code))
    }

    var rangeIndex: Int { Int(registers[Int(Register.dataFormat)] & 0x03) }
    var fullResolution: Bool { registers[Int(Register.dataFormat)] & 0x08 != 0 }
    var leftJustified: Bool { registers[Int(Register.dataFormat)] & 0x04 != 0 }
    /// FIFO_MODE: 0 bypass, 1 FIFO, 2 stream, 3 trigger.
    var fifoMode: UInt8 { registers[Int(Register.fifoControl)] >> 6 }
    var watermark: Int { Int(registers[Int(Register.fifoControl)] & 0x1F) }

    /// Bits in the output word: 10 + range code in full resolution, otherwise 10.
    var resolutionBits: Int { fullResolution ? 10 + rangeIndex : 10 }

    /// LSB per g: 256 in full resolution; in 10-bit mode 1024 codes span ±range.
    var lsbPerG: Double { fullResolution ? 256 : 512 / Double(2 << rangeIndex) }

    // MARK: Sampling

    private func catchUp() {
        let ticks = ticker.ticks(until: clock.nowSeconds, rateHz: outputRateHz)
        guard !fifoStuck else { return }  // the ticks pass, the samples are lost
        for t in ticks {
            let a = source.accelerationG(atSeconds: t)
            let sample = (encode(a.x), encode(a.y), encode(a.z))
            samplesProduced += 1
            if fifoMode == 0 {
                if dataReady { overrun = true }  // new data replaced unread data
                output = sample
                dataReady = true
                continue
            }
            if fifo.count < Self.fifoDepth {
                fifo.append(sample)
            } else if fifoMode != 1 {
                fifo.removeFirst()  // stream (and trigger, not emulated): oldest entry discarded
                fifo.append(sample)
            }  // FIFO mode: stops collecting when full
            if fifo.count == Self.fifoDepth { overrun = true }
        }
    }

    /// g to the output word, clipped to the word's range.
    private func encode(_ g: Double) -> Int16 {
        let digits = (g * lsbPerG).rounded()
        let limit = Double(1 << (resolutionBits - 1))
        let clamped = Int(max(-limit, min(limit - 1, digits)))
        return Int16(truncatingIfNeeded: leftJustified ? clamped << (16 - resolutionBits) : clamped)
    }

    // MARK: I2CDeviceEmulator

    public func receive(write bytes: [UInt8]) throws(EmulatedBusFault) {
        guard let first = bytes.first else { return }
        pointer = first
        for value in bytes.dropFirst() {
            try writeRegister(pointer, value)
            pointer &+= 1
        }
        catchUp()  // a new rate or measurement starts its sampling clock now
    }

    private func writeRegister(_ register: UInt8, _ value: UInt8) throws(EmulatedBusFault) {
        switch register {
        case Register.deviceID, Register.interruptSource, Register.dataX0...Register.dataZ1, Register.fifoStatus:
            return  // read-only: ignored like on the chip
        case Register.bandwidthRate, Register.powerControl, Register.dataFormat:
            catchUp()  // samples so far were taken at the old settings
            registers[Int(register)] = value
        case Register.fifoControl:
            catchUp()
            registers[Int(register)] = value
            if value >> 6 == 0 { fifo.removeAll(); overrun = false }  // bypass empties the FIFO
        case 0x1D...0x2F:
            registers[Int(register)] = value
        default:
            throw .io(errno: 5)  // reserved
        }
    }

    public func respond(readCount count: Int) throws(EmulatedBusFault) -> [UInt8] {
        catchUp()
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var current: (Int16, Int16, Int16)?
        for _ in 0..<count {
            let register = pointer
            if current == nil && (Register.dataX0...Register.dataZ1).contains(register) {
                current = popEntry()  // one entry per read message
            }
            out.append(read(register, sample: current ?? output))
            pointer &+= 1
        }
        return out
    }

    private func popEntry() -> (Int16, Int16, Int16) {
        if fifoMode != 0, !fifo.isEmpty {
            output = fifo.removeFirst()
            if fifo.count < Self.fifoDepth { overrun = false }
        } else {
            dataReady = false
            overrun = false
        }
        return output
    }

    private func read(_ register: UInt8, sample: (Int16, Int16, Int16)) -> UInt8 {
        switch register {
        case Register.interruptSource:
            var value: UInt8 = 0
            let hasData = fifoMode == 0 ? dataReady : !fifo.isEmpty
            if hasData { value |= 0x80 }
            // SAMPLES = 0 sets WATERMARK at once in every mode (hence INT_SOURCE's reset value 0x02).
            if watermark == 0 || fifoMode != 0 && fifo.count >= watermark { value |= 0x02 }
            if overrun { value |= 0x01 }
            return value
        case Register.fifoStatus:
            return UInt8(fifoMode == 0 ? 0 : fifo.count)
        case Register.dataX0...Register.dataZ1:
            let offset = Int(register - Register.dataX0)
            let word = UInt16(bitPattern: [sample.0, sample.1, sample.2][offset / 2])
            return offset % 2 == 0 ? UInt8(word & 0xFF) : UInt8(word >> 8)
        case 0..<0x40:
            return registers[Int(register)]
        default:
            return 0
        }
    }
}
