import AmbleHardware

/// A LIS3DH (or LIS2DH12: same map, same WHO_AM_I 0x33) at register level.
///
/// Emulated: WHO_AM_I; CTRL_REG1 output data rate, power-down and low-power bit; CTRL_REG4
/// full scale and high-resolution bit (the left-justified output and its scaling follow them);
/// CTRL_REG5 BOOT (registers back to defaults) and FIFO_EN; FIFO_CTRL_REG bypass, FIFO and
/// stream modes with the watermark; FIFO_SRC_REG level, EMPTY, WTM and OVRN; STATUS_REG
/// ZYXDA/ZYXOR; multi-byte reads with the auto-increment bit (0x80) of the sub-address,
/// rolling back from OUT_Z_H to OUT_X_L while the FIFO is enabled, each pass popping a sample.
public final class LIS3DHEmulator: StallableEmulator {
    public enum Register {
        public static let whoAmI: UInt8 = 0x0F
        public static let ctrl1: UInt8 = 0x20
        public static let ctrl4: UInt8 = 0x23
        public static let ctrl5: UInt8 = 0x24
        public static let status: UInt8 = 0x27
        public static let outXL: UInt8 = 0x28
        public static let outZH: UInt8 = 0x2D
        public static let fifoCtrl: UInt8 = 0x2E
        public static let fifoSrc: UInt8 = 0x2F
    }

    public static let whoAmIValue: UInt8 = 0x33
    public static let fifoDepth = 32

    private let clock: any BandClock
    private let source: any AccelerationSource
    private var registers = [UInt8](repeating: 0, count: 0x40)
    private var pointer: UInt8 = 0
    private var autoIncrement = false
    private var fifo: [(Int16, Int16, Int16)] = []
    private var latest: (Int16, Int16, Int16) = (0, 0, 0)
    private var ticker = SampleTicker()
    private var overrun = false
    private var dataReady = false

    /// Fault injection: while true the FIFO neither fills nor empties (a wedged chip).
    public var fifoStuck = false
    /// Samples the chip produced since it was created (for tests).
    public private(set) var samplesProduced = 0

    public init(clock: any BandClock, source: any AccelerationSource) {
        self.clock = clock
        self.source = source
        powerOnReset()
    }

    public func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 0x40)
        registers[Int(Register.whoAmI)] = Self.whoAmIValue
        registers[Int(Register.ctrl1)] = 0x07  // power-down, XYZ enabled
        fifo.removeAll()
        latest = (0, 0, 0)
        ticker.restart()
        overrun = false
        dataReady = false
        pointer = 0
    }

    // MARK: Configuration as the registers say

    /// Output data rate in Hz, nil when powered down. ODR[3:0] in CTRL_REG1[7:4].
    var outputRateHz: Double? {
        switch registers[Int(Register.ctrl1)] >> 4 {
        case 1: return 1
        case 2: return 10
        case 3: return 25
        case 4: return 50
        case 5: return 100
        case 6: return 200
        case 7: return 400
        case 8: return 1600
        case 9: return 1344
        default: return nil
        }
    }

    var fullScaleG: Double {
        [2.0, 4, 8, 16][Int((registers[Int(Register.ctrl4)] >> 4) & 0x3)]
    }

    var fifoEnabled: Bool { registers[Int(Register.ctrl5)] & 0x40 != 0 }
    var fifoMode: UInt8 { registers[Int(Register.fifoCtrl)] >> 6 }
    var watermark: Int { Int(registers[Int(Register.fifoCtrl)] & 0x1F) }

    /// Bits of resolution: 12 in high-resolution mode, 8 in low-power mode, otherwise 10.
    var resolutionBits: Int {
        if registers[Int(Register.ctrl1)] & 0x08 != 0 { return 8 }
        if registers[Int(Register.ctrl4)] & 0x08 != 0 { return 12 }
        return 10
    }

    /// mg per digit of the justified value, from the datasheet's sensitivity table.
    var milliGPerDigit: Double {
        let index = Int((registers[Int(Register.ctrl4)] >> 4) & 0x3)
        switch resolutionBits {
        case 12: return [1.0, 2, 4, 12][index]
        case 10: return [4.0, 8, 16, 48][index]
        default: return [16.0, 32, 64, 192][index]
        }
    }

    // MARK: Sampling

    private func catchUp() {
        let due = ticker.ticks(until: clock.nowSeconds, rateHz: outputRateHz)
        guard !fifoStuck else { return }  // a wedged chip loses what it should have sampled
        for t in due {
            let a = source.accelerationG(atSeconds: t)
            let sample = (encode(a.x), encode(a.y), encode(a.z))
            samplesProduced += 1
            latest = sample
            dataReady = true
            guard fifoEnabled, fifoMode != 0 else { continue }
            if fifo.count < Self.fifoDepth {
                fifo.append(sample)
            } else if fifoMode == 2 || fifoMode == 3 {
                // Stream mode: the oldest sample is overwritten.
                fifo.removeFirst()
                fifo.append(sample)
                overrun = true
            } else {
                overrun = true  // FIFO mode: stops collecting when full
            }
        }
    }

    /// g to the left-justified 16-bit output word.
    private func encode(_ g: Double) -> Int16 {
        let digits = (g * 1000 / milliGPerDigit).rounded()
        let limit = Double(1 << (resolutionBits - 1))
        let clamped = Int(max(-limit, min(limit - 1, digits)))
        return Int16(truncatingIfNeeded: clamped << (16 - resolutionBits))
    }

    // MARK: I2CDeviceEmulator

    public func receive(write bytes: [UInt8]) throws(EmulatedBusFault) {
        guard let first = bytes.first else { return }
        autoIncrement = first & 0x80 != 0
        pointer = first & 0x7F
        for value in bytes.dropFirst() {
            try writeRegister(pointer, value)
            if autoIncrement { pointer &+= 1 }
        }
    }

    private func writeRegister(_ register: UInt8, _ value: UInt8) throws(EmulatedBusFault) {
        switch register {
        case Register.whoAmI, Register.status, Register.fifoSrc, Register.outXL...Register.outZH:
            return  // read-only: ignored like on the chip
        case Register.ctrl5 where value & 0x80 != 0:
            powerOnReset()  // BOOT: reload defaults
        case Register.ctrl1:
            catchUp()
            registers[Int(register)] = value
            catchUp()  // sampling at the new rate starts now
        case Register.fifoCtrl:
            catchUp()
            registers[Int(register)] = value
            if value >> 6 == 0 { fifo.removeAll(); overrun = false }  // bypass empties the FIFO
        case 0x1E...0x3F:
            registers[Int(register)] = value
        default:
            throw .io(errno: 5)
        }
    }

    public func respond(readCount count: Int) throws(EmulatedBusFault) -> [UInt8] {
        catchUp()
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var current: (Int16, Int16, Int16)?
        for _ in 0..<count {
            let register = pointer
            if register == Register.outXL || current == nil && (Register.outXL...Register.outZH).contains(register) {
                current = popSample()
            }
            out.append(read(register, sample: current))
            if autoIncrement {
                if register == Register.outZH && fifoEnabled && fifoMode != 0 {
                    pointer = Register.outXL
                } else {
                    pointer &+= 1
                }
            }
        }
        return out
    }

    private func popSample() -> (Int16, Int16, Int16) {
        guard fifoEnabled, fifoMode != 0 else {
            dataReady = false
            return latest
        }
        if fifo.isEmpty { return latest }
        overrun = false  // OVRN clears once a sample is read out
        return fifo.removeFirst()
    }

    private func read(_ register: UInt8, sample: (Int16, Int16, Int16)?) -> UInt8 {
        switch register {
        case Register.fifoSrc:
            let level = fifo.count
            var value = UInt8(min(level, 31))
            if level > 0 && level >= watermark && watermark > 0 { value |= 0x80 }
            if overrun || level == Self.fifoDepth { value |= 0x40 }
            if level == 0 { value |= 0x20 }
            return value
        case Register.status:
            return dataReady ? 0x0F : 0x00
        case Register.outXL...Register.outZH:
            let s = sample ?? latest
            let word: Int16 = [s.0, s.1, s.2][Int(register - Register.outXL) / 2]
            let bits = UInt16(bitPattern: word)
            return (register - Register.outXL) % 2 == 0 ? UInt8(bits & 0xFF) : UInt8(bits >> 8)
        case 0..<0x40:
            return registers[Int(register)]
        default:
            return 0
        }
    }
}
