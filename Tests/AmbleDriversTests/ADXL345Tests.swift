import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

struct ADXL345Tests {
    let clock = ManualClock()
    let bus = EmulatedI2CBus()
    let source = ConstantSource()
    let chip: ADXL345Emulator

    init() {
        chip = ADXL345Emulator(clock: clock, source: source)
        bus.attach(chip, at: 0x53)
    }

    @Test(arguments: [2, 4, 8, 16])
    func readsWhatTheChipSensesAtEveryRange(rangeG: Int) throws {
        let driver = try ADXL345(bus: bus, rangeG: rangeG, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 0.5)
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 25)
        #expect(!batch.overrunDetected)
        // Full resolution: one LSB is 3.9 mg at every range.
        for sample in batch.samples {
            #expect(abs(sample.xG - 0.1) <= 0.0039)
            #expect(abs(sample.yG + 0.25) <= 0.0039)
            #expect(abs(sample.zG - 0.96) <= 0.0039)
        }
    }

    /// The largest count of the 10...13-bit word at each range.
    @Test(arguments: [(2, 511), (4, 1023), (8, 2047), (16, 4095)] as [(Int, Int)])
    func clipsAtTheRangeItWasSetTo(rangeG: Int, maximumCount: Int) throws {
        let maximumG = Double(maximumCount) / 256
        source.acceleration = (20, -20, 1.5)
        let driver = try ADXL345(bus: bus, rangeG: rangeG, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        let sample = try #require(try driver.readSamples().samples.first)
        #expect(sample.xG == maximumG)
        #expect(sample.yG == -maximumG - 1.0 / 256)
        #expect(abs(sample.zG - min(1.5, maximumG)) <= 0.0039)
    }

    @Test(arguments: [6.25, 12.5, 25, 50, 100, 200, 400] as [Double])
    func runsAtTheRateItWasSetTo(rateHz: Double) throws {
        let driver = try ADXL345(bus: bus, sampleRateHz: rateHz)
        try driver.configure()
        var total = 0
        for _ in 0..<50 {
            clock.advance(bySeconds: 0.04)
            let batch = try driver.readSamples()
            #expect(!batch.overrunDetected)
            total += batch.samples.count
        }
        #expect(total == Int(rateHz * 2))
    }

    @Test func readsEverySampleBetweenReadsAt50Hz() throws {
        let driver = try ADXL345(bus: bus, sampleRateHz: 50)
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

    @Test func readsOneEntryPerTransfer() throws {
        let driver = try ADXL345(bus: bus, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        let before = bus.transferCount[0x53] ?? 0
        #expect(try driver.readSamples().samples.count == 5)
        // INT_SOURCE, FIFO_STATUS, then one 6-byte read per entry.
        #expect(bus.transferCount[0x53]! - before == 2 + 5)
    }

    @Test func reportsOverrunWhenReadTooLate() throws {
        let driver = try ADXL345(bus: bus, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 1.0)  // 50 samples into a 32-entry FIFO
        let batch = try driver.readSamples()
        #expect(batch.overrunDetected)
        #expect(batch.samples.count == 32)
        clock.advance(bySeconds: 0.2)
        let next = try driver.readSamples()
        #expect(!next.overrunDetected)
        #expect(next.samples.count == 10)
    }

    @Test func refusesAnotherChipAndNamesIt() throws {
        let other = EmulatedI2CBus()
        other.attach(MPU6050Emulator(clock: clock, source: source), at: 0x53)
        let driver = try ADXL345(bus: other)
        let error = #expect(throws: SensorError.self) { try driver.configure() }
        #expect(error?.kind == .wrongChipID(expected: 0xE5, found: 0x00, identified: "MPU-6050"))
        #expect(error?.description.contains("set that chip in the board file") == true)
    }

    @Test func reportsNothingAtTheAddress() throws {
        let driver = try ADXL345(bus: bus, address: 0x1D)
        let error = #expect(throws: SensorError.self) { try driver.configure() }
        guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
        #expect(busError.kind == .noAcknowledge)
        #expect(busError.address == 0x1D)
        #expect(error?.description.contains("wiring") == true)
    }

    @Test func rejectsSettingsTheChipCannotDo() {
        #expect(throws: SensorError.self) { try ADXL345(bus: bus, rangeG: 6) }
        let error = #expect(throws: SensorError.self) { try ADXL345(bus: bus, sampleRateHz: 60) }
        #expect(error?.description.contains("12.5") == true)
    }

    @Test func failedTransfersCarryTheRegisterAndRecover() throws {
        let driver = try ADXL345(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        bus.failNext(3, at: 0x53, with: .io(errno: 5))
        for _ in 0..<3 {
            let error = #expect(throws: SensorError.self) { try driver.readSamples() }
            guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
            #expect(busError.kind == .io(errno: 5))
            #expect(busError.register == 0x30)
        }
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 5)
        #expect(!batch.overrunDetected)
    }

    @Test func aReadFailingMidFIFOIsReportedAsAGapNextTime() throws {
        let driver = try ADXL345(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        // INT_SOURCE, FIFO_STATUS and two entries go through; the third entry's read fails.
        bus.failNext(1, at: 0x53, afterTransfers: 4)
        #expect(throws: SensorError.self) { try driver.readSamples() }
        let batch = try driver.readSamples()
        #expect(batch.overrunDetected)
        #expect(batch.samples.count == 3)
        clock.advance(bySeconds: 0.1)
        #expect(try driver.readSamples().overrunDetected == false)
    }

    @Test func comesBackAfterUnplugOnlyOnceReconfigured() throws {
        let driver = try ADXL345(bus: bus)
        try driver.configure()
        bus.unplug(0x53)
        clock.advance(bySeconds: 0.2)
        let error = #expect(throws: SensorError.self) { try driver.readSamples() }
        #expect(error?.description.contains("no device answered") == true)
        bus.plug(0x53)
        clock.advance(bySeconds: 0.2)
        // Powered up again: in standby with the FIFO bypassed, it produces nothing.
        #expect(try driver.readSamples().samples.isEmpty)
        #expect(chip.samplesProduced == 0)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 10)
    }

    @Test func stuckFIFOGivesNoSamples() throws {
        let driver = try ADXL345(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        chip.fifoStuck = true
        clock.advance(bySeconds: 0.5)
        // What was in the FIFO before it stuck can still be read; then nothing comes.
        #expect(try driver.readSamples().samples.count == 5)
        clock.advance(bySeconds: 0.5)
        #expect(try driver.readSamples().samples.isEmpty)
        chip.fifoStuck = false
        clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 10)
    }

    @Test func tenBitModeAndLeftJustificationScaleAsTheDatasheetSays() throws {
        // Straight register access, no driver: ±8 g in 10-bit mode is 64 LSB/g; left-justified
        // moves the 10-bit word to the top of 16 bits.
        source.acceleration = (1, -0.5, 0)
        try bus.writeRegister(address: 0x53, register: 0x31, value: 0x02)  // ±8 g, 10-bit, right-justified
        try bus.writeRegister(address: 0x53, register: 0x2C, value: 0x09)  // 50 Hz
        try bus.writeRegister(address: 0x53, register: 0x2D, value: 0x08)  // measure
        clock.advance(bySeconds: 0.02)
        var bytes = try bus.readRegisters(address: 0x53, register: 0x32, count: 6)
        #expect(Int16(bitPattern: UInt16(bytes[1]) << 8 | UInt16(bytes[0])) == 64)
        #expect(Int16(bitPattern: UInt16(bytes[3]) << 8 | UInt16(bytes[2])) == -32)
        try bus.writeRegister(address: 0x53, register: 0x31, value: 0x06)  // ±8 g, 10-bit, left-justified
        clock.advance(bySeconds: 0.02)
        bytes = try bus.readRegisters(address: 0x53, register: 0x32, count: 6)
        #expect(Int16(bitPattern: UInt16(bytes[1]) << 8 | UInt16(bytes[0])) == 64 << 6)
    }
}
