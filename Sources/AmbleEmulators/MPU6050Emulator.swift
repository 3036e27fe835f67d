import AmbleHardware

/// An MPU-6050 at register level, accelerometer side.
///
/// Emulated: WHO_AM_I 0x68; PWR_MGMT_1 DEVICE_RESET (registers back to defaults, the bit
/// clears itself) and SLEEP (the power-on state: nothing sampled while set); the sample rate,
/// gyro output rate (8 kHz with DLPF_CFG 0 or 7, otherwise 1 kHz) / (1 + SMPLRT_DIV);
/// ACCEL_CONFIG AFS_SEL (16384 / 2^AFS_SEL LSB/g, clipped to 16 bits); ACCEL_XOUT...ZOUT with
/// the latest sample; FIFO_EN choosing what goes into the FIFO, in register order (accel 6
/// bytes, temperature 2, each gyro axis 2; the gyros and temperature read as zero); USER_CTRL
/// FIFO_EN gating the FIFO and FIFO_RESET (self-clearing; honoured only when written with
/// FIFO_EN 0, as the register map says); the 1024-byte FIFO that drops its oldest bytes when
/// full (frames lose their alignment, as on the chip); FIFO_COUNT_H/L, latched when
/// FIFO_COUNT_H is read; FIFO_R_W reads that pop bytes without advancing the register pointer
/// and repeat the last byte when empty; INT_STATUS FIFO_OFLOW_INT and DATA_RDY_INT, set only
/// when enabled in INT_ENABLE and cleared when INT_STATUS is read. Writes above WHO_AM_I are
/// refused with an I/O error.
public final class MPU6050Emulator: StallableEmulator {
    public enum Register {
        public static let sampleRateDivider: UInt8 = 0x19
        public static let config: UInt8 = 0x1A
        public static let accelConfig: UInt8 = 0x1C
        public static let fifoEnable: UInt8 = 0x23
        public static let interruptEnable: UInt8 = 0x38
        public static let interruptStatus: UInt8 = 0x3A
        public static let accelXOutHigh: UInt8 = 0x3B
        public static let gyroZOutLow: UInt8 = 0x48
        public static let userControl: UInt8 = 0x6A
        public static let powerManagement1: UInt8 = 0x6B
        public static let powerManagement2: UInt8 = 0x6C
        public static let fifoCountHigh: UInt8 = 0x72
        public static let fifoCountLow: UInt8 = 0x73
        public static let fifoReadWrite: UInt8 = 0x74
        public static let whoAmI: UInt8 = 0x75
    }

    public static let whoAmIValue: UInt8 = 0x68
    public static let fifoCapacityBytes = 1024

    private let clock: any BandClock
    private let source: any AccelerationSource
    private var registers = [UInt8](repeating: 0, count: 0x80)
    private var pointer: UInt8 = 0
    private var fifo: [UInt8] = []
    private var fifoHead = 0
    private var lastFIFOByte: UInt8 = 0
    private var latchedCount = 0
    private var latest: (Int16, Int16, Int16) = (0, 0, 0)
    private var ticker = SampleTicker()

    /// Fault injection: while true no new frame enters the FIFO (the sampling path froze);
    /// bytes already in it can still be read.
    public var fifoStuck = false {
        willSet { catchUp() }  // samples due before the fault are in
    }
    /// Samples the chip produced since power-on (for tests).
    public private(set) var samplesProduced = 0
    /// Bytes dropped from a full FIFO since power-on (for tests).
    public private(set) var bytesDropped = 0

    public init(clock: any BandClock, source: any AccelerationSource) {
        self.clock = clock
        self.source = source
        powerOnReset()
    }

    public func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 0x80)
        registers[Int(Register.powerManagement1)] = 0x40  // SLEEP
        registers[Int(Register.whoAmI)] = Self.whoAmIValue
        clearFIFO()
        lastFIFOByte = 0
        latchedCount = 0
        latest = (0, 0, 0)
        ticker.restart()
        pointer = 0
        samplesProduced = 0
        bytesDropped = 0
    }

    // MARK: Configuration as the registers say

    var asleep: Bool { registers[Int(Register.powerManagement1)] & 0x40 != 0 }

    /// Sample rate in Hz, nil while asleep.
    var sampleRateHz: Double? {
        guard !asleep else { return nil }
        let lowPass = registers[Int(Register.config)] & 0x07
        let gyroOutputRate: Double = lowPass == 0 || lowPass == 7 ? 8000 : 1000
        return gyroOutputRate / (1 + Double(registers[Int(Register.sampleRateDivider)]))
    }

    var lsbPerG: Double { 16384 / Double(1 << Int((registers[Int(Register.accelConfig)] >> 3) & 0x3)) }
    var fifoRunning: Bool { registers[Int(Register.userControl)] & 0x40 != 0 }
    /// Bytes waiting in the FIFO.
    public var fifoCount: Int { fifo.count - fifoHead }

    // MARK: Sampling

    private func catchUp() {
        let ticks = ticker.ticks(until: clock.nowSeconds, rateHz: sampleRateHz)
        guard !fifoStuck else { return }  // the ticks pass, the samples are lost
        for t in ticks {
            let a = source.accelerationG(atSeconds: t)
            latest = (encode(a.x), encode(a.y), encode(a.z))
            samplesProduced += 1
            raise(0x01)  // DATA_RDY_INT
            guard fifoRunning else { continue }
            push(frame())
        }
    }

    /// One FIFO frame for the latest sample, in register order of what FIFO_EN selects.
    private func frame() -> [UInt8] {
        let enabled = registers[Int(Register.fifoEnable)]
        var bytes: [UInt8] = []
        if enabled & 0x08 != 0 {
            for word in [latest.0, latest.1, latest.2] {
                let bits = UInt16(bitPattern: word)
                bytes += [UInt8(bits >> 8), UInt8(bits & 0xFF)]
            }
        }
        if enabled & 0x80 != 0 { bytes += [0, 0] }  // temperature
        for bit: UInt8 in [0x40, 0x20, 0x10] where enabled & bit != 0 { bytes += [0, 0] }  // gyro X, Y, Z
        return bytes
    }

    private func push(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let excess = fifoCount + bytes.count - Self.fifoCapacityBytes
        if excess > 0 {
            fifoHead += excess  // the oldest bytes are overwritten
            bytesDropped += excess
            raise(0x10)  // FIFO_OFLOW_INT
        }
        fifo += bytes
        if fifoHead > 4096 {
            fifo.removeFirst(fifoHead)
            fifoHead = 0
        }
    }

    /// Sets an INT_STATUS bit if INT_ENABLE enables it.
    private func raise(_ bit: UInt8) {
        if registers[Int(Register.interruptEnable)] & bit != 0 {
            registers[Int(Register.interruptStatus)] |= bit
        }
    }

    private func clearFIFO() {
        fifo.removeAll()
        fifoHead = 0
    }

    /// g to the 16-bit output word, clipped.
    private func encode(_ g: Double) -> Int16 {
        Int16(max(-32768, min(32767, (g * lsbPerG).rounded())))
    }

    // MARK: I2CDeviceEmulator

    public func receive(write bytes: [UInt8]) throws(EmulatedBusFault) {
        guard let first = bytes.first else { return }
        catchUp()
        pointer = first
        for value in bytes.dropFirst() {
            try writeRegister(pointer, value)
            if pointer != Register.fifoReadWrite { pointer &+= 1 }
        }
        catchUp()  // a new rate or wake-up starts its sampling clock now
    }

    private func writeRegister(_ register: UInt8, _ value: UInt8) throws(EmulatedBusFault) {
        switch register {
        case Register.powerManagement1 where value & 0x80 != 0:
            powerOnReset()  // DEVICE_RESET clears itself once done
        case Register.powerManagement1:
            let wasAsleep = asleep
            registers[Int(register)] = value
            if wasAsleep != asleep { ticker.restart() }
        case Register.userControl:
            if value & 0x04 != 0 && value & 0x40 == 0 { clearFIFO() }
            registers[Int(register)] = value & ~0x07  // the reset bits clear themselves
        case Register.interruptStatus, Register.accelXOutHigh...Register.gyroZOutLow,
             Register.fifoCountHigh, Register.fifoCountLow, Register.whoAmI:
            return  // read-only: ignored like on the chip
        case Register.fifoReadWrite:
            push([value])
        case 0..<Register.whoAmI:
            registers[Int(register)] = value
        default:
            throw .io(errno: 5)
        }
    }

    public func respond(readCount count: Int) throws(EmulatedBusFault) -> [UInt8] {
        catchUp()
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            out.append(read(pointer))
            if pointer != Register.fifoReadWrite { pointer &+= 1 }
        }
        return out
    }

    private func read(_ register: UInt8) -> UInt8 {
        switch register {
        case Register.interruptStatus:
            let value = registers[Int(register)]
            registers[Int(register)] = 0  // cleared on read
            return value
        case Register.accelXOutHigh...Register.accelXOutHigh + 5:
            let offset = Int(register - Register.accelXOutHigh)
            let word = UInt16(bitPattern: [latest.0, latest.1, latest.2][offset / 2])
            return offset % 2 == 0 ? UInt8(word >> 8) : UInt8(word & 0xFF)
        case Register.fifoCountHigh:
            latchedCount = fifoCount
            return UInt8(latchedCount >> 8)
        case Register.fifoCountLow:
            return UInt8(latchedCount & 0xFF)
        case Register.fifoReadWrite:
            if fifoHead < fifo.count {
                lastFIFOByte = fifo[fifoHead]
                fifoHead += 1
            }
            return lastFIFOByte
        case 0..<0x80:
            return registers[Int(register)]
        default:
            return 0
        }
    }
}
