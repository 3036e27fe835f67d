import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

extension MPU6050: AccelerometerDriver {}
extension MPU6050Emulator: AccelerometerEmulator {}

extension AccelerometerUnderTest {
    /// A 16-bit word spanning ±range, big-endian frames in a 1024-byte FIFO read from FIFO_R_W
    /// in bursts of up to 40 frames. 1024 is not a whole number of frames: after an overflow
    /// (or a failed FIFO read) the driver resets the FIFO and reports a gap with no samples.
    static let mpu6050 = AccelerometerUnderTest(
        name: "MPU-6050",
        address: 0x68,
        otherAddress: 0x69,
        idRegister: 0x75,  // WHO_AM_I
        chipID: 0x68,
        identifiedAs: "MPU-6050",
        makeEmulator: { MPU6050Emulator(clock: $0, source: $1) },
        makeDriver: { try MPU6050(bus: $0, address: $1, rangeG: $2, sampleRateHz: $3) },
        makeDefaultDriver: { try MPU6050(bus: $0) },
        ratesHz: MPU6050Tests.rateRegisters.map(\.rateHz),
        unsupportedRatesHz: [60, 400, 6.25],
        // One LSB is 1/16384, 1/8192, 1/4096 or 1/2048 g; rounding is at most half of it.
        toleranceG: { rangeG in Double(rangeG) / 32768 / 2 },
        clipping: [2, 4, 8, 16].map { rangeG in
            let lsbPerG = 32768 / Double(rangeG)
            return Clipping(rangeG: rangeG, highestG: 32767 / lsbPerG, lowestG: -Double(rangeG), toleranceG: 0)
        },
        // INT_STATUS, FIFO_COUNT, then FIFO_R_W bursts of at most 40 frames.
        transfersToRead: { 2 + ($0 + 39) / 40 },
        firstRegisterRead: 0x3A,  // INT_STATUS
        // INT_STATUS and FIFO_COUNT pass, FIFO_R_W fails: the next read resets the FIFO.
        midReadFailure: .init(transfersBefore: 2, register: 0x74, samplesInTheNextBatch: 0),
        // 200 frames, 1200 bytes into 1024: misaligned frames are not trusted.
        overflow: .init(afterSeconds: 4, samplesKept: 0),
        // Bytes already in the FIFO when it stuck can still be read.
        samplesReadableOnceStuck: 5
    )
}

struct MPU6050Tests {
    let clock = ManualClock()
    let bus = EmulatedI2CBus()
    let source = ConstantSource()
    let chip: MPU6050Emulator

    init() {
        chip = MPU6050Emulator(clock: clock, source: source)
        bus.attach(chip, at: 0x68)
    }

    /// SMPLRT_DIV and DLPF_CFG for each rate the driver offers.
    static let rateRegisters: [(rateHz: Double, divider: UInt8, lowPass: UInt8)] = [
        (10, 99, 6), (20, 49, 5), (25, 39, 5), (50, 19, 4), (100, 9, 3), (200, 4, 2), (250, 3, 2), (500, 1, 1),
    ]

    @Test(arguments: [2, 4, 8, 16])
    func writesTheRangeToAFS_SEL(rangeG: Int) throws {
        let driver = try MPU6050(bus: bus, rangeG: rangeG, sampleRateHz: 50)
        try driver.configure()
        let afs = try bus.readRegister(address: 0x68, register: 0x1C) >> 3 & 0x3
        #expect(afs == [2: 0, 4: 1, 8: 2, 16: 3][rangeG])
    }

    @Test(arguments: rateRegisters)
    func setsTheDividerAndLowPassForTheRate(rateHz: Double, divider: UInt8, lowPass: UInt8) throws {
        let driver = try MPU6050(bus: bus, sampleRateHz: rateHz)
        try driver.configure()
        #expect(try bus.readRegister(address: 0x68, register: 0x19) == divider)
        #expect(try bus.readRegister(address: 0x68, register: 0x1A) == lowPass)
    }

    @Test func readsABigBacklogInSeveralBursts() throws {
        let driver = try MPU6050(bus: bus, sampleRateHz: 100)
        try driver.configure()
        clock.advance(bySeconds: 1.5)  // 150 frames, 900 bytes: just under the 1024-byte FIFO
        let before = bus.transferCount[0x68] ?? 0
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 150)
        #expect(!batch.overrunDetected)
        #expect(chip.fifoCount == 0)
        #expect(bus.transferCount[0x68]! - before == 2 + 4)  // INT_STATUS, FIFO_COUNT, 40 + 40 + 40 + 30 frames
    }

    @Test func overflowDropsTheOldestBytes() throws {
        let driver = try MPU6050(bus: bus, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 4)  // 200 frames, 1200 bytes into 1024: the oldest bytes go
        #expect(try driver.readSamples().overrunDetected)
        #expect(chip.bytesDropped == 176)
    }

    @Test func sleepsUntilConfiguredAndWakesOnTheInternalClock() throws {
        clock.advance(bySeconds: 0.5)
        #expect(chip.samplesProduced == 0)  // power-on state: SLEEP
        let driver = try MPU6050(bus: bus)
        try driver.configure()
        #expect(try bus.readRegister(address: 0x68, register: 0x6B) == 0x00)
        #expect(try bus.readRegister(address: 0x68, register: 0x6C) == 0x07)  // gyros in standby
        clock.advance(bySeconds: 0.1)
        #expect(try driver.readSamples().samples.count == 5)
    }

    @Test func waitsTheResetTimeItIsGiven() throws {
        var pauses: [Double] = []
        let driver = try MPU6050(bus: bus, pause: { pauses.append($0) })
        try driver.configure()
        #expect(pauses == [0.1])
    }

    @Test func resetsTheChipAtSetUp() throws {
        let driver = try MPU6050(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.5)
        // Reconfiguring empties the FIFO: only samples after it are read.
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        #expect(try driver.readSamples().samples.count == 5)
    }

    @Test func fifoResetNeedsTheFIFOStopped() throws {
        // The register map: FIFO_RESET works while FIFO_EN is 0. A driver writing both at once
        // keeps the old bytes.
        func count() throws -> Int {
            let bytes = try bus.readRegisters(address: 0x68, register: 0x72, count: 2)
            return Int(bytes[0]) << 8 | Int(bytes[1])
        }
        try bus.writeRegister(address: 0x68, register: 0x19, value: 9)     // 1 kHz / 10 = 100 Hz
        try bus.writeRegister(address: 0x68, register: 0x1A, value: 0x03)  // filter on: 1 kHz
        try bus.writeRegister(address: 0x68, register: 0x23, value: 0x08)  // accelerometer frames
        try bus.writeRegister(address: 0x68, register: 0x6A, value: 0x40)  // FIFO on
        try bus.writeRegister(address: 0x68, register: 0x6B, value: 0x00)  // awake
        clock.advance(bySeconds: 0.1)
        #expect(try count() == 60)
        try bus.writeRegister(address: 0x68, register: 0x6A, value: 0x44)
        #expect(try count() == 60)
        try bus.writeRegister(address: 0x68, register: 0x6A, value: 0x04)
        #expect(try count() == 0)
        #expect(try bus.readRegister(address: 0x68, register: 0x6A) == 0x00)  // FIFO_RESET cleared itself
    }
}
