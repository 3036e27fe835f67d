import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

struct MPU6050Tests {
    let clock = ManualClock()
    let bus = EmulatedI2CBus()
    let source = ConstantSource()
    let chip: MPU6050Emulator

    init() {
        chip = MPU6050Emulator(clock: clock, source: source)
        bus.attach(chip, at: 0x68)
    }

    @Test(arguments: [2, 4, 8, 16])
    func readsWhatTheChipSensesAtEveryRange(rangeG: Int) throws {
        let driver = try MPU6050(bus: bus, rangeG: rangeG, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 0.5)
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 25)
        #expect(!batch.overrunDetected)
        // One LSB is 1/16384, 1/8192, 1/4096 or 1/2048 g; rounding is at most half of it.
        let lsb = Double(rangeG) / 32768
        for sample in batch.samples {
            #expect(abs(sample.xG - 0.1) <= lsb / 2)
            #expect(abs(sample.yG + 0.25) <= lsb / 2)
            #expect(abs(sample.zG - 0.96) <= lsb / 2)
        }
        // The range went to AFS_SEL.
        let afs = try bus.readRegister(address: 0x68, register: 0x1C) >> 3 & 0x3
        #expect(afs == [2: 0, 4: 1, 8: 2, 16: 3][rangeG])
    }

    @Test(arguments: [2, 4, 8, 16])
    func clipsAtTheRangeItWasSetTo(rangeG: Int) throws {
        source.acceleration = (20, -20, 1)
        let driver = try MPU6050(bus: bus, rangeG: rangeG, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        let sample = try #require(try driver.readSamples().samples.first)
        let lsbPerG = 32768 / Double(rangeG)
        #expect(sample.xG == 32767 / lsbPerG)
        #expect(sample.yG == -Double(rangeG))
        #expect(abs(sample.zG - 1) <= 1 / lsbPerG)
    }

    @Test(arguments: [(10, 99, 6), (20, 49, 5), (25, 39, 5), (50, 19, 4), (100, 9, 3), (200, 4, 2), (250, 3, 2), (500, 1, 1)] as [(Double, UInt8, UInt8)])
    func runsAtTheRateItWasSetTo(rateHz: Double, divider: UInt8, lowPass: UInt8) throws {
        let driver = try MPU6050(bus: bus, sampleRateHz: rateHz)
        try driver.configure()
        #expect(try bus.readRegister(address: 0x68, register: 0x19) == divider)
        #expect(try bus.readRegister(address: 0x68, register: 0x1A) == lowPass)
        var total = 0
        for _ in 0..<20 {
            clock.advance(bySeconds: 0.1)
            let batch = try driver.readSamples()
            #expect(!batch.overrunDetected)
            total += batch.samples.count
        }
        #expect(total == Int(rateHz * 2))
    }

    @Test func readsEverySampleBetweenReadsAt50Hz() throws {
        let driver = try MPU6050(bus: bus, sampleRateHz: 50)
        try driver.configure()
        var total = 0
        for _ in 0..<100 {
            clock.advance(bySeconds: 0.1)
            let batch = try driver.readSamples()
            #expect(!batch.overrunDetected)
            total += batch.samples.count
        }
        #expect(total == chip.samplesProduced)
        #expect(total == 500)
    }

    @Test func readsABigBacklogInSeveralBursts() throws {
        let driver = try MPU6050(bus: bus, sampleRateHz: 100)
        try driver.configure()
        clock.advance(bySeconds: 1.5)  // 150 frames, 900 bytes: just under the 1024-byte FIFO
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 150)
        #expect(!batch.overrunDetected)
        #expect(chip.fifoCount == 0)
    }

    @Test func overflowIsReportedAsAGapAndTheFIFOStartsClean() throws {
        let driver = try MPU6050(bus: bus, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 4)  // 200 frames, 1200 bytes into 1024: the oldest bytes go
        let batch = try driver.readSamples()
        #expect(chip.bytesDropped == 176)
        #expect(batch.overrunDetected)
        #expect(batch.samples.isEmpty)  // misaligned frames are not trusted
        clock.advance(bySeconds: 0.2)
        let next = try driver.readSamples()
        #expect(!next.overrunDetected)
        #expect(next.samples.count == 10)
        for sample in next.samples {
            #expect(abs(sample.zG - 0.96) < 0.001)
        }
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

    @Test func refusesAnotherChipAndNamesIt() throws {
        let other = EmulatedI2CBus()
        other.attach(ADXL345Emulator(clock: clock, source: source), at: 0x68)
        let error = #expect(throws: SensorError.self) { try MPU6050(bus: other).configure() }
        #expect(error?.kind == .wrongChipID(expected: 0x68, found: 0x00, identified: "ADXL345"))
        let lis = EmulatedI2CBus()
        lis.attach(LIS3DHEmulator(clock: clock, source: source), at: 0x68)
        let second = #expect(throws: SensorError.self) { try MPU6050(bus: lis).configure() }
        #expect(second?.kind == .wrongChipID(expected: 0x68, found: 0x00, identified: "LIS3DH/LIS2DH12"))
    }

    @Test func reportsNothingAtTheAddress() throws {
        let driver = try MPU6050(bus: bus, address: 0x69)
        let error = #expect(throws: SensorError.self) { try driver.configure() }
        guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
        #expect(busError.kind == .noAcknowledge)
        #expect(busError.address == 0x69)
    }

    @Test func rejectsSettingsTheChipCannotDo() {
        #expect(throws: SensorError.self) { try MPU6050(bus: bus, rangeG: 3) }
        #expect(throws: SensorError.self) { try MPU6050(bus: bus, sampleRateHz: 400) }
    }

    @Test func failedTransfersCarryTheRegisterAndRecover() throws {
        let driver = try MPU6050(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        bus.failNext(2, at: 0x68, with: .io(errno: 5))
        for _ in 0..<2 {
            let error = #expect(throws: SensorError.self) { try driver.readSamples() }
            guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
            #expect(busError.kind == .io(errno: 5))
            #expect(busError.register == 0x3A)
        }
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 5)
        #expect(!batch.overrunDetected)
    }

    @Test func aFailedFIFOReadResetsTheFIFOAndReportsAGap() throws {
        let driver = try MPU6050(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        bus.failNext(1, at: 0x68, afterTransfers: 2)  // INT_STATUS, FIFO_COUNT, then FIFO_R_W fails
        let error = #expect(throws: SensorError.self) { try driver.readSamples() }
        if case .bus(let busError)? = error?.kind { #expect(busError.register == 0x74) }
        let gap = try driver.readSamples()
        #expect(gap.overrunDetected)
        #expect(gap.samples.isEmpty)
        #expect(chip.fifoCount == 0)
        clock.advance(bySeconds: 0.1)
        let next = try driver.readSamples()
        #expect(!next.overrunDetected)
        #expect(next.samples.count == 5)
    }

    @Test func comesBackAfterUnplugOnlyOnceReconfigured() throws {
        let driver = try MPU6050(bus: bus)
        try driver.configure()
        bus.unplug(0x68)
        clock.advance(bySeconds: 0.2)
        #expect(throws: SensorError.self) { try driver.readSamples() }
        bus.plug(0x68)
        clock.advance(bySeconds: 0.2)
        // Powered up again: asleep with the FIFO off, it produces nothing.
        #expect(try driver.readSamples().samples.isEmpty)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 10)
    }

    @Test func stuckFIFOGivesNoSamples() throws {
        let driver = try MPU6050(bus: bus)
        try driver.configure()
        chip.fifoStuck = true
        clock.advance(bySeconds: 0.5)
        #expect(try driver.readSamples().samples.isEmpty)
        chip.fifoStuck = false
        clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 10)
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
