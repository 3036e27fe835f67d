import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

/// What the accelerometer drivers have beyond `Accelerometer`: the address and range they were
/// made with.
protocol AccelerometerDriver: Accelerometer {
    var address: I2CAddress { get }
    var rangeG: Int { get }
}

/// What the accelerometer emulators have in common: a fault to inject and a count to check.
protocol AccelerometerEmulator: I2CDeviceEmulator {
    var fifoStuck: Bool { get set }
    var samplesProduced: Int { get }
}

/// One accelerometer chip, as the behaviour every accelerometer must have (`AccelerometerTests`)
/// sees it. Each chip's test file describes its chip (`.adxl345`, `.lis3dh`, `.mpu6050`) with
/// the numbers of its datasheet and the layout of its FIFO, and keeps the tests only it needs.
struct AccelerometerUnderTest: Sendable, CustomTestStringConvertible {
    /// Where readings clip at one range.
    struct Clipping: Sendable, CustomTestStringConvertible {
        let rangeG: Int
        let highestG: Double
        let lowestG: Double
        /// 0 where the driver gives the limit exactly.
        let toleranceG: Double
        var testDescription: String { "±\(rangeG) g" }
    }

    /// A read failing in the middle of the FIFO data, 0.1 s after set-up (5 samples waiting).
    struct MidReadFailure: Sendable {
        /// Transfers of the read that go through before the failing one.
        let transfersBefore: Int
        /// The register of the failing transfer.
        let register: UInt8
        /// Samples in the next read, 0.1 s after the failed one (it reports a gap).
        let samplesInTheNextBatch: Int
    }

    /// Reading too late at 50 Hz.
    struct Overflow: Sendable {
        /// Seconds left unread until the FIFO has overflowed.
        let afterSeconds: Double
        /// Samples the read that reports the overflow still gives.
        let samplesKept: Int
    }

    /// The driver's `chipName`, as its errors name it.
    let name: String
    /// The usual address, and the other one the chip can be strapped to.
    let address: I2CAddress
    let otherAddress: I2CAddress
    /// The ID register, the value the driver expects there, and the name `ChipIdentity` gives
    /// the chip when another driver finds it.
    let idRegister: UInt8
    let chipID: UInt8
    let identifiedAs: String
    let makeEmulator: @Sendable (ManualClock, ConstantSource) -> any AccelerometerEmulator
    let makeDriver: @Sendable (_ bus: EmulatedI2CBus, _ address: I2CAddress, _ rangeG: Int, _ sampleRateHz: Double) throws -> any AccelerometerDriver
    /// The driver given only a bus: every other setting its default.
    let makeDefaultDriver: @Sendable (_ bus: EmulatedI2CBus) throws -> any AccelerometerDriver
    /// Output data rates the driver offers, and some it must refuse (other chips have most).
    let ratesHz: [Double]
    let unsupportedRatesHz: [Double]
    /// How far a reading may be from what the chip senses, at each range.
    let toleranceG: @Sendable (_ rangeG: Int) -> Double
    let clipping: [Clipping]
    /// Bus transfers one read of this many waiting samples takes.
    let transfersToRead: @Sendable (_ samples: Int) -> Int
    /// The register of a read's first transfer.
    let firstRegisterRead: UInt8
    let midReadFailure: MidReadFailure
    let overflow: Overflow
    /// Samples a read gives when the FIFO stuck 0.1 s after set-up: what it held by then, if
    /// the emulator keeps it.
    let samplesReadableOnceStuck: Int

    var testDescription: String { name }

    static let all: [AccelerometerUnderTest] = [.adxl345, .lis3dh, .mpu6050]

    static let clippingCases = all.flatMap { chip in chip.clipping.map { (chip, $0) } }
    static let rateCases = all.flatMap { chip in chip.ratesHz.map { (chip, $0) } }
    static let otherChipCases = all.flatMap { chip in OtherChip.all.filter { $0.name != chip.name }.map { (chip, $0) } }
}

/// A chip a driver may find at its address instead of its own.
struct OtherChip: Sendable, CustomTestStringConvertible {
    let name: String
    let identifiedAs: String
    let make: @Sendable (ManualClock, ConstantSource) -> any I2CDeviceEmulator

    var testDescription: String { name }

    static let all: [OtherChip] = AccelerometerUnderTest.all.map { chip in
        OtherChip(name: chip.name, identifiedAs: chip.identifiedAs, make: { clock, source in chip.makeEmulator(clock, source) })
    } + [
        OtherChip(name: "MAX30102", identifiedAs: "MAX30102/MAX30101/MAX30105", make: { MAX30102Emulator(clock: $0, source: $1) }),
    ]
}

/// A chip on an emulated bus at its usual address, with a manual clock and a constant source.
struct AccelerometerRig {
    let chip: AccelerometerUnderTest
    let clock = ManualClock()
    let bus = EmulatedI2CBus()
    let source = ConstantSource()
    let emulator: any AccelerometerEmulator

    init(_ chip: AccelerometerUnderTest) {
        self.chip = chip
        emulator = chip.makeEmulator(clock, source)
        bus.attach(emulator, at: chip.address)
    }

    /// The chip's driver at its usual address, configured.
    func configuredDriver(rangeG: Int = 4, sampleRateHz: Double = 50) throws -> any AccelerometerDriver {
        let driver = try chip.makeDriver(bus, chip.address, rangeG, sampleRateHz)
        try driver.configure()
        return driver
    }

    /// Every sample is what the source gives, to the chip's resolution at `rangeG`.
    func expectSensed(_ samples: [AccelerationVector], rangeG: Int = 4, sourceLocation: SourceLocation = #_sourceLocation) {
        let tolerance = chip.toleranceG(rangeG)
        let a = source.acceleration
        for sample in samples {
            #expect(abs(sample.xG - a.x) <= tolerance, sourceLocation: sourceLocation)
            #expect(abs(sample.yG - a.y) <= tolerance, sourceLocation: sourceLocation)
            #expect(abs(sample.zG - a.z) <= tolerance, sourceLocation: sourceLocation)
        }
    }
}

/// The behaviour every accelerometer driver must have, on each chip's emulator.
struct AccelerometerTests {
    @Test(arguments: AccelerometerUnderTest.all)
    func defaultsToItsUsualAddressFourGAnd50Hz(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try chip.makeDefaultDriver(rig.bus)
        #expect(driver.address == chip.address)
        #expect(driver.rangeG == 4)
        #expect(driver.sampleRateHz == 50)
        try driver.configure()
        rig.clock.advance(bySeconds: 0.1)
        #expect(try driver.readSamples().samples.count == 5)
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func theFactoryHasItsRatesAndAddress(chip: AccelerometerUnderTest) throws {
        let model = try #require(AccelerometerChip(boardName: chip.name))
        #expect(model.supportedRatesHz == chip.ratesHz)
        #expect(model.defaultAddress == chip.address)
    }

    @Test(arguments: AccelerometerUnderTest.all, [2, 4, 8, 16])
    func readsWhatTheChipSensesAtEveryRange(chip: AccelerometerUnderTest, rangeG: Int) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver(rangeG: rangeG)
        #expect(driver.rangeG == rangeG)
        rig.clock.advance(bySeconds: 0.5)
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 25)
        #expect(!batch.overrunDetected)
        rig.expectSensed(batch.samples, rangeG: rangeG)
    }

    @Test(arguments: AccelerometerUnderTest.clippingCases)
    func clipsAtTheRangeItWasSetTo(chip: AccelerometerUnderTest, clipping: AccelerometerUnderTest.Clipping) throws {
        let rig = AccelerometerRig(chip)
        rig.source.acceleration = (20, -20, 1)
        let driver = try rig.configuredDriver(rangeG: clipping.rangeG)
        rig.clock.advance(bySeconds: 0.1)
        let sample = try #require(try driver.readSamples().samples.first)
        #expect(abs(sample.xG - clipping.highestG) <= clipping.toleranceG)
        #expect(abs(sample.yG - clipping.lowestG) <= clipping.toleranceG)
        #expect(abs(sample.zG - 1) <= chip.toleranceG(clipping.rangeG))
    }

    @Test(arguments: AccelerometerUnderTest.rateCases)
    func runsAtTheRateItWasSetTo(chip: AccelerometerUnderTest, rateHz: Double) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver(sampleRateHz: rateHz)
        #expect(driver.sampleRateHz == rateHz)
        var total = 0
        for _ in 0..<50 {
            rig.clock.advance(bySeconds: 0.04)  // at 400 Hz, 16 samples: within every FIFO
            let batch = try driver.readSamples()
            #expect(!batch.overrunDetected)
            total += batch.samples.count
        }
        #expect(total == Int(rateHz * 2))
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func readsEverySampleBetweenReadsAt50Hz(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver()
        var total = 0
        for _ in 0..<100 {
            rig.clock.advance(bySeconds: 0.1)
            let batch = try driver.readSamples()
            #expect(!batch.overrunDetected)
            total += batch.samples.count
        }
        #expect(total == rig.emulator.samplesProduced)
        #expect(total == 500)
    }

    @Test(arguments: AccelerometerUnderTest.all, [1, 5, 30])
    func readsTheFIFOInTheTransfersItsLayoutNeeds(chip: AccelerometerUnderTest, samples: Int) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver()
        rig.clock.advance(bySeconds: Double(samples) / 50)
        let before = rig.bus.transferCount[chip.address] ?? 0
        let batch = try driver.readSamples()
        #expect(batch.samples.count == samples)
        #expect(!batch.overrunDetected)
        #expect(rig.bus.transferCount[chip.address]! - before == chip.transfersToRead(samples))
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func reportsOverrunWhenReadTooLate(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver()
        rig.clock.advance(bySeconds: chip.overflow.afterSeconds)
        let batch = try driver.readSamples()
        #expect(batch.overrunDetected)
        #expect(batch.samples.count == chip.overflow.samplesKept)
        rig.expectSensed(batch.samples)
        rig.clock.advance(bySeconds: 0.2)
        let next = try driver.readSamples()
        #expect(!next.overrunDetected)
        #expect(next.samples.count == 10)
        rig.expectSensed(next.samples)
    }

    @Test(arguments: AccelerometerUnderTest.otherChipCases)
    func refusesAnotherChipAndNamesIt(chip: AccelerometerUnderTest, other: OtherChip) throws {
        let clock = ManualClock()
        let source = ConstantSource()
        // What the other chip holds where this one keeps its ID, read on a fresh one of it.
        let probe = EmulatedI2CBus()
        probe.attach(other.make(clock, source), at: chip.address)
        let found = try probe.readRegister(address: chip.address, register: chip.idRegister)
        #expect(found != chip.chipID)

        let bus = EmulatedI2CBus()
        bus.attach(other.make(clock, source), at: chip.address)
        let driver = try chip.makeDefaultDriver(bus)
        let error = #expect(throws: SensorError.self) { try driver.configure() }
        #expect(error?.chip == chip.name)
        #expect(error?.kind == .wrongChipID(expected: chip.chipID, found: found, identified: other.identifiedAs))
        #expect(error?.description.contains("that is the ID of a \(other.identifiedAs): set that chip in the board file") == true)
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func reportsNothingAtTheAddress(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try chip.makeDriver(rig.bus, chip.otherAddress, 4, 50)
        let error = #expect(throws: SensorError.self) { try driver.configure() }
        guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
        #expect(busError.kind == .noAcknowledge)
        #expect(busError.address == chip.otherAddress)
        #expect(error?.description.contains("wiring") == true)
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func rejectsSettingsTheChipCannotDo(chip: AccelerometerUnderTest) {
        let bus = EmulatedI2CBus()
        for rangeG in [1, 3, 6, 32] {
            let error = #expect(throws: SensorError.self) { try chip.makeDriver(bus, chip.address, rangeG, 50) }
            guard case .unsupportedSetting? = error?.kind else { Issue.record("expected an unsupported setting"); continue }
            #expect(error?.chip == chip.name)
            #expect(error?.description.contains("±2, 4, 8, 16 g") == true)
        }
        for rateHz in chip.unsupportedRatesHz {
            let error = #expect(throws: SensorError.self) { try chip.makeDriver(bus, chip.address, 4, rateHz) }
            guard case .unsupportedSetting? = error?.kind else { Issue.record("expected an unsupported setting"); continue }
            #expect(error?.chip == chip.name)
            // The message lists the rates the chip has.
            for supported in chip.ratesHz {
                let text = supported == supported.rounded() ? "\(Int(supported))" : "\(supported)"
                #expect(error?.description.contains(text) == true, "\(text) Hz")
            }
        }
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func failedTransfersCarryTheRegisterAndRecover(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver()
        rig.clock.advance(bySeconds: 0.1)
        rig.bus.failNext(3, at: chip.address, with: .io(errno: 5))
        for _ in 0..<3 {
            let error = #expect(throws: SensorError.self) { try driver.readSamples() }
            guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
            #expect(busError.kind == .io(errno: 5))
            #expect(busError.register == chip.firstRegisterRead)
        }
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 5)
        #expect(!batch.overrunDetected)
        rig.expectSensed(batch.samples)
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func aReadFailingMidFIFOIsReportedAsAGapNextTime(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver()
        rig.clock.advance(bySeconds: 0.1)
        rig.bus.failNext(1, at: chip.address, with: .io(errno: 5), afterTransfers: chip.midReadFailure.transfersBefore)
        let error = #expect(throws: SensorError.self) { try driver.readSamples() }
        guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
        #expect(busError.register == chip.midReadFailure.register)
        rig.clock.advance(bySeconds: 0.1)
        let gap = try driver.readSamples()
        #expect(gap.overrunDetected, "samples may have been popped and lost")
        #expect(gap.samples.count == chip.midReadFailure.samplesInTheNextBatch, "only the samples the FIFO holds, no repeats")
        rig.expectSensed(gap.samples)
        rig.clock.advance(bySeconds: 0.1)
        let next = try driver.readSamples()
        #expect(!next.overrunDetected)
        #expect(next.samples.count == 5)
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func comesBackAfterUnplugOnlyOnceReconfigured(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver()
        rig.bus.unplug(chip.address)
        rig.clock.advance(bySeconds: 0.2)
        let error = #expect(throws: SensorError.self) { try driver.readSamples() }
        #expect(error?.description.contains("no device answered") == true)
        rig.bus.plug(chip.address)
        rig.clock.advance(bySeconds: 0.2)
        // Powered up again, in its power-on state (standby, power-down or asleep, the FIFO
        // off or bypassed), it produces nothing.
        #expect(try driver.readSamples().samples.isEmpty)
        #expect(rig.emulator.samplesProduced == 0)
        try driver.configure()
        rig.clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 10)
    }

    @Test(arguments: AccelerometerUnderTest.all)
    func stuckFIFOGivesNoSamples(chip: AccelerometerUnderTest) throws {
        let rig = AccelerometerRig(chip)
        let driver = try rig.configuredDriver()
        rig.clock.advance(bySeconds: 0.1)
        rig.emulator.fifoStuck = true
        rig.clock.advance(bySeconds: 0.5)
        #expect(try driver.readSamples().samples.count == chip.samplesReadableOnceStuck)
        rig.clock.advance(bySeconds: 0.5)
        #expect(try driver.readSamples().samples.isEmpty)
        rig.emulator.fifoStuck = false
        rig.clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 10)
    }
}
