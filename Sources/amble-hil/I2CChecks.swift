#if canImport(Glibc)
import Glibc
#endif
import AmbleDrivers
import AmbleHardware
import AmbleLinux
import AmbleLinuxHardware

/// The chips both stubs emulate (init script: chip_addr=0x18,0x57) and what the init script
/// preloads with busybox i2cset before this program starts.
enum StubChip {
    /// LIS3DH: WHO_AM_I (0x0F) preloaded with 0x33.
    static let accelerometer: I2CAddress = 0x18
    /// MAX30102: PART_ID (0xFF) preloaded with 0x15; on the SMBus-only bus the word at 0x40
    /// is preloaded with 0x1234.
    static let ppg: I2CAddress = 0x57
    /// No chip answers here.
    static let absent: I2CAddress = 0x29
}

/// I2C through `LinuxI2CBus`: register access over I2C_RDWR, the SMBus calls, error kinds.
func runI2CChecks(_ run: HILRun, _ env: HILEnvironment) {
    var opened: (i2c: LinuxI2CBus, smbus: LinuxI2CBus)?
    run.check("i2c: open /dev/i2c-\(env.i2cBus) (amble-i2c-stub) and /dev/i2c-\(env.smbusOnlyBus) (i2c-stub) by number") {
        let i2c = try LinuxI2CBus(number: env.i2cBus)
        let smbus = try LinuxI2CBus(path: "/dev/i2c-\(env.smbusOnlyBus)")
        try expectEqual(i2c.busName, "/dev/i2c-\(env.i2cBus)", "bus name")
        opened = (i2c, smbus)
    }
    guard let (bus, smbus) = opened else { return }
    let a = StubChip.accelerometer

    // MARK: I2C_RDWR register access (amble-i2c-stub)
    run.check("i2c: chip IDs preloaded by i2cset read back over I2C_RDWR") {
        try expectEqual(try bus.readRegister(address: a, register: 0x0F), 0x33, "WHO_AM_I at 0x18")
        try expectEqual(try bus.readRegister(address: StubChip.ppg, register: 0xFF), 0x15, "PART_ID at 0x57")
    }
    run.check("i2c: register write and read round trip over I2C_RDWR") {
        for value: UInt8 in [0x00, 0x5A, 0xA5, 0xFF, 0x01] {
            try bus.writeRegister(address: a, register: 0x21, value: value)
            try expectEqual(try bus.readRegister(address: a, register: 0x21), value, "register 0x21")
        }
    }
    run.check("i2c: I2C_RDWR and SMBus calls reach the same kernel register file") {
        try bus.writeRegister(address: a, register: 0x22, value: 0x3C)
        try expectEqual(try bus.smbusReadByte(address: a, register: 0x22), 0x3C, "SMBus read of an I2C_RDWR write")
        try bus.smbusWriteByte(address: a, register: 0x22, value: 0xC3)
        try expectEqual(try bus.readRegister(address: a, register: 0x22), 0xC3, "I2C_RDWR read of an SMBus write")
    }
    let eight: [UInt8] = [0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE]
    run.check("i2c: one multi-byte write, then a burst read of 8 registers (I2C_RDWR)") {
        try bus.write(address: a, bytes: [0x30] + eight)
        try expectEqual(try bus.readRegisters(address: a, register: 0x30, count: 8), eight, "registers 0x30...0x37")
        try expectEqual(try bus.readRegisters(address: a, register: 0x33, count: 3), Array(eight[3..<6]), "registers 0x33...0x35")
    }
    run.check("i2c: 64-byte write and burst read in single I2C_RDWR transfers (over SMBus's 32)") {
        let block = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        try bus.write(address: a, bytes: [0x40] + block)
        try expectEqual(try bus.readRegisters(address: a, register: 0x40, count: 64), block, "registers 0x40...0x7f")
    }
    run.check("i2c: updateRegister changes only the masked bits") {
        try bus.writeRegister(address: a, register: 0x23, value: 0b1010_0101)
        try bus.updateRegister(address: a, register: 0x23, mask: 0x0F, value: 0x03)
        try expectEqual(try bus.readRegister(address: a, register: 0x23), 0b1010_0011, "register 0x23")
    }
    run.check("i2c: SMBus I2C-block read returns what the I2C_RDWR write stored") {
        try expectEqual(try bus.smbusReadBlock(address: a, register: 0x30, count: 8), eight, "block at 0x30")
    }
    run.check("i2c: absent address over I2C_RDWR is noAcknowledge, naming bus, address and register") {
        let error = try expectThrows(I2CError.self, "read at 0x29") {
            _ = try bus.readRegister(address: StubChip.absent, register: 0x0F)
        }
        try expectEqual(error.kind, .noAcknowledge, "kind")
        try expectEqual(error.bus, bus.busName, "bus")
        try expectEqual(error.address, StubChip.absent, "address")
        try expectEqual(error.register, 0x0F, "register")
        let writeError = try expectThrows(I2CError.self, "write at 0x29") {
            try bus.writeRegister(address: StubChip.absent, register: 0x20, value: 1)
        }
        try expectEqual(writeError.kind, .noAcknowledge, "write kind")
    }

    runSMBusChecks(run, bus: bus, smbus: smbus)
    runMissingBusChecks(run)
    runDriverChecks(run, bus: bus)
}

/// The SMBus calls, on the kernel's own i2c-stub (and one on amble-i2c-stub).
func runSMBusChecks(_ run: HILRun, bus: LinuxI2CBus, smbus: LinuxI2CBus) {
    let a = StubChip.accelerometer
    let p = StubChip.ppg
    run.check("smbus: chip ID preloaded by i2cset reads back (read byte data)") {
        try expectEqual(try smbus.smbusReadByte(address: a, register: 0x0F), 0x33, "WHO_AM_I at 0x18")
    }
    run.check("smbus: write byte data, read byte data round trip") {
        for value: UInt8 in [0x42, 0x00, 0xFF] {
            try smbus.smbusWriteByte(address: p, register: 0x10, value: value)
            try expectEqual(try smbus.smbusReadByte(address: p, register: 0x10), value, "register 0x10")
        }
    }
    run.check("smbus: read word data is the little-endian word i2cset stored (0x1234)") {
        try expectEqual(try smbus.smbusReadWord(address: p, register: 0x40), 0x1234, "word at 0x40")
        try expectEqual(try smbus.smbusReadByte(address: p, register: 0x40), 0x34, "low byte at 0x40")
    }
    run.check("smbus: I2C-block reads of 8 and 32 bytes; more than 32 is cut to 32") {
        let block = (0..<32).map { UInt8(0xE0 - $0) }
        for (offset, value) in block.enumerated() {
            try smbus.smbusWriteByte(address: p, register: 0x80 + UInt8(offset), value: value)
        }
        try expectEqual(try smbus.smbusReadBlock(address: p, register: 0x80, count: 8), Array(block.prefix(8)), "8 bytes at 0x80")
        try expectEqual(try smbus.smbusReadBlock(address: p, register: 0x80, count: 32), block, "32 bytes at 0x80")
        try expectEqual(try smbus.smbusReadBlock(address: p, register: 0x80, count: 40), block, "40 asked at 0x80")
    }
    run.check("smbus: absent address is noAcknowledge (i2c-stub answers ENODEV)") {
        let error = try expectThrows(I2CError.self, "SMBus read at 0x29") {
            _ = try smbus.smbusReadByte(address: StubChip.absent, register: 0x00)
        }
        try expectEqual(error.kind, .noAcknowledge, "kind")
        try expectEqual(error.register, 0x00, "register")
        let onI2CBus = try expectThrows(I2CError.self, "SMBus write at 0x29 on amble-i2c-stub") {
            try bus.smbusWriteByte(address: StubChip.absent, register: 0x00, value: 0)
        }
        try expectEqual(onI2CBus.kind, .noAcknowledge, "kind on amble-i2c-stub")
    }
    run.check("smbus: I2C_RDWR on an SMBus-only adapter is plainI2CUnsupported (EOPNOTSUPP)") {
        let error = try expectThrows(I2CError.self, "I2C_RDWR read on i2c-stub") {
            _ = try smbus.readRegister(address: a, register: 0x0F)
        }
        try expectEqual(error.kind, .plainI2CUnsupported, "kind")
    }
}

/// Buses that are not there, and a device that is no I2C bus.
func runMissingBusChecks(_ run: HILRun) {
    let a = StubChip.accelerometer
    run.check("i2c: missing bus /dev/i2c-99 is busMissing") {
        let byPath = try expectThrows(I2CError.self, "open /dev/i2c-99") { _ = try LinuxI2CBus(path: "/dev/i2c-99") }
        try expectEqual(byPath.kind, .busMissing, "kind by path")
        try expectEqual(byPath.bus, "/dev/i2c-99", "bus")
        let byNumber = try expectThrows(I2CError.self, "open bus 99") { _ = try LinuxI2CBus(number: 99) }
        try expectEqual(byNumber.kind, .busMissing, "kind by number")
    }
    run.check("i2c: a device that is no I2C bus (/dev/null) fails its transfers with ENOTTY") {
        let notABus = try LinuxI2CBus(path: "/dev/null")
        let error = try expectThrows(I2CError.self, "read on /dev/null") {
            _ = try notABus.readRegister(address: a, register: 0x0F)
        }
        try expectEqual(error.kind, .io(errno: ENOTTY), "kind")
    }
}

/// The chip drivers' set-up and reads, through `LinuxI2CBus` and amble-i2c-stub.
func runDriverChecks(_ run: HILRun, bus: LinuxI2CBus) {
    runLIS3DHChecks(run, bus: bus)
    runMAX30102Checks(run, bus: bus)
}

/// The LIS3DH driver: a wrong chip refused, its set-up read back, FIFO bursts decoded.
func runLIS3DHChecks(_ run: HILRun, bus: LinuxI2CBus) {
    let a = StubChip.accelerometer

    run.check("lis3dh: a wrong chip (the MAX30102 at 0x57) is refused and identified") {
        let driver = try LIS3DH(bus: bus, address: StubChip.ppg)
        let error = try expectThrows(SensorError.self, "configure at 0x57") { try driver.configure() }
        try expectEqual(error.kind, .wrongChipID(expected: 0x33, found: 0x00, identified: "MAX30102/MAX30101/MAX30105"), "kind")
    }
    run.check("lis3dh: configure() (±4 g, 50 Hz) leaves its set-up in the chip's registers") {
        let driver = try LIS3DH(bus: bus, address: a, rangeG: 4, sampleRateHz: 50)
        try driver.configure()
        // Read back over SMBus, a different transfer type from the driver's I2C_RDWR.
        try expectEqual(try bus.smbusReadByte(address: a, register: 0x20), 0x47, "CTRL_REG1 (ODR 50 Hz, XYZ on)")
        try expectEqual(try bus.smbusReadByte(address: a, register: 0x23), 0x98, "CTRL_REG4 (BDU, ±4 g, HR)")
        try expectEqual(try bus.smbusReadByte(address: a, register: 0x24), 0x40, "CTRL_REG5 (FIFO_EN)")
        try expectEqual(try bus.smbusReadByte(address: a, register: 0x2E), 0x80, "FIFO_CTRL (stream mode)")
    }
    run.check("lis3dh: configure() (±16 g, 400 Hz) writes the other codes") {
        let driver = try LIS3DH(bus: bus, address: a, rangeG: 16, sampleRateHz: 400)
        try driver.configure()
        let registers = try bus.readRegisters(address: a, register: 0x20, count: 5)
        try expectEqual(registers[0], 0x77, "CTRL_REG1 (ODR 400 Hz, XYZ on)")
        try expectEqual(registers[3], 0xB8, "CTRL_REG4 (BDU, ±16 g, HR)")
        try expectEqual(registers[4], 0x40, "CTRL_REG5 (FIFO_EN)")
    }
    run.check("lis3dh: readSamples() decodes a 2-sample FIFO burst") {
        let driver = try LIS3DH(bus: bus, address: a, rangeG: 4, sampleRateHz: 50)
        try driver.configure()
        // ±4 g: 2 mg per digit of the left-justified 12-bit value.
        let digits: [Int16] = [1000, -500, 250, -2048, 2047, 0]
        let bytes = digits.flatMap { d -> [UInt8] in
            let raw = UInt16(bitPattern: d << 4)
            return [UInt8(raw & 0xFF), UInt8(raw >> 8)]
        }
        // A plain register file keeps the auto-increment bit: the burst starts at 0xA8.
        try bus.write(address: a, bytes: [0x28 | 0x80] + bytes)
        try bus.writeRegister(address: a, register: 0x2F, value: 0x02)  // FIFO_SRC: 2 samples
        let batch = try driver.readSamples()
        try expectClose(batch.samples, [
            AccelerationVector(xG: 2.0, yG: -1.0, zG: 0.5),
            AccelerationVector(xG: -4.096, yG: 4.094, zG: 0),
        ], "samples")
        try expect(!batch.overrunDetected, "no overrun expected")
    }
    run.check("lis3dh: an empty FIFO reads no samples") {
        let driver = try LIS3DH(bus: bus, address: a)
        try bus.writeRegister(address: a, register: 0x2F, value: 0x20)  // FIFO_SRC: EMPTY
        let batch = try driver.readSamples()
        try expectEqual(batch.samples.count, 0, "samples")
    }
    run.check("lis3dh: an overrun reads all 32 samples in one 192-byte I2C_RDWR burst") {
        let driver = try LIS3DH(bus: bus, address: a, rangeG: 4, sampleRateHz: 50)
        try bus.writeRegister(address: a, register: 0x2F, value: 0x40)  // FIFO_SRC: OVRN
        let batch = try driver.readSamples()
        try expectEqual(batch.samples.count, 32, "samples")
        try expect(batch.overrunDetected, "overrun not reported")
        try expectClose(Array(batch.samples.prefix(1)), [AccelerationVector(xG: 2.0, yG: -1.0, zG: 0.5)], "first sample")
    }
    run.check("lis3dh: an absent chip (0x19) fails set-up with noAcknowledge") {
        let driver = try LIS3DH(bus: bus, address: 0x19)
        let error = try expectThrows(SensorError.self, "configure at 0x19") { try driver.configure() }
        guard case .bus(let busError) = error.kind else { throw CheckFailure("kind: got \(error.kind), expected a bus error") }
        try expectEqual(busError.kind, .noAcknowledge, "bus error kind")
    }
}

/// The MAX30102 driver: its reset poll, a FIFO burst decoded, shut down.
func runMAX30102Checks(_ run: HILRun, bus: LinuxI2CBus) {
    run.check("max30102: configure() checks PART_ID, resets, and stops at the reset poll") {
        // A register file keeps the RESET bit the driver writes, where the chip clears it:
        // the driver must give up after its 50 polls with resetTimedOut.
        let driver = try MAX30102(bus: bus, address: StubChip.ppg)
        let error = try expectThrows(SensorError.self, "configure at 0x57") { try driver.configure() }
        try expectEqual(error.kind, .resetTimedOut, "kind")
        try expectEqual(try bus.readRegister(address: StubChip.ppg, register: 0x09), 0x40, "MODE_CONFIG (RESET written)")
    }
    run.check("max30102: readSamples() decodes a 2-sample FIFO burst") {
        let driver = try MAX30102(bus: bus, address: StubChip.ppg)
        try bus.write(address: StubChip.ppg, bytes: [0x04, 2, 0, 0])  // WR_PTR 2, OVF 0, RD_PTR 0
        // Bits 23:18 are not data: 0xFF 0xFF 0xFF is 0x3FFFF.
        let fifo: [UInt8] = [0x01, 0x23, 0x45, 0x00, 0xC3, 0x50, 0xFF, 0xFF, 0xFF, 0x02, 0x00, 0x01]
        try bus.write(address: StubChip.ppg, bytes: [0x07] + fifo)
        let batch = try driver.readSamples()
        try expectEqual(batch.samples, [
            OpticalSample(red: 0x12345, infrared: 50_000),
            OpticalSample(red: 0x3FFFF, infrared: 0x20001),
        ], "samples")
        try expectEqual(batch.samplesLost, 0, "samples lost")
        try expect(batch.skinDetected == true, "skin not detected at 50k-131k infrared counts")
    }
    run.check("max30102: shutDown() sets SHDN in MODE_CONFIG") {
        let driver = try MAX30102(bus: bus, address: StubChip.ppg)
        try driver.shutDown()
        try expectEqual(try bus.readRegister(address: StubChip.ppg, register: 0x09), 0x83, "MODE_CONFIG")
    }
}

/// Compares samples in g to within a millionth of a g (the decoding multiplies by a scale).
func expectClose(_ actual: [AccelerationVector], _ expected: [AccelerationVector], _ what: String) throws {
    let close = actual.count == expected.count && zip(actual, expected).allSatisfy { a, e in
        abs(a.xG - e.xG) < 1e-6 && abs(a.yG - e.yG) < 1e-6 && abs(a.zG - e.zG) < 1e-6
    }
    if !close { throw CheckFailure("\(what): got \(actual), expected \(expected)") }
}
