import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

/// A source holding one acceleration, and light levels, until changed.
final class ConstantSource: AccelerationSource, PPGSource {
    var acceleration: (x: Double, y: Double, z: Double)
    var light: (red: Double, infrared: Double)

    init(acceleration: (x: Double, y: Double, z: Double) = (0.1, -0.25, 0.96), light: (red: Double, infrared: Double) = (80_000, 110_000)) {
        self.acceleration = acceleration
        self.light = light
    }

    func accelerationG(atSeconds time: Double) -> (x: Double, y: Double, z: Double) { acceleration }
    func opticalCounts(atSeconds time: Double) -> (red: Double, infrared: Double) { light }
}

struct LIS3DHTests {
    let clock = ManualClock()
    let bus = EmulatedI2CBus()
    let source = ConstantSource()
    let chip: LIS3DHEmulator

    init() {
        chip = LIS3DHEmulator(clock: clock, source: source)
        bus.attach(chip, at: 0x18)
    }

    @Test(arguments: [2, 4, 8, 16])
    func readsWhatTheChipSensesAtEveryRange(rangeG: Int) throws {
        let driver = try LIS3DH(bus: bus, rangeG: rangeG, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 0.5)
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 25)
        #expect(!batch.overrunDetected)
        // One digit of the 12-bit value is 1, 2, 4 or 12 mg.
        let tolerance = [2: 0.001, 4: 0.002, 8: 0.004, 16: 0.012][rangeG]!
        for sample in batch.samples {
            #expect(abs(sample.xG - 0.1) <= tolerance)
            #expect(abs(sample.yG + 0.25) <= tolerance)
            #expect(abs(sample.zG - 0.96) <= tolerance)
        }
    }

    @Test func clipsAtFullScale() throws {
        source.acceleration = (3.5, -3.5, 1)
        let driver = try LIS3DH(bus: bus, rangeG: 2, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        let sample = try #require(try driver.readSamples().samples.first)
        #expect(abs(sample.xG - 2.047) < 0.002)
        #expect(abs(sample.yG + 2.048) < 0.002)
    }

    @Test func readsEverySampleBetweenReadsAt50Hz() throws {
        let driver = try LIS3DH(bus: bus, sampleRateHz: 50)
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

    @Test func reportsOverrunWhenReadTooLate() throws {
        let driver = try LIS3DH(bus: bus, sampleRateHz: 50)
        try driver.configure()
        clock.advance(bySeconds: 1.0)  // 50 samples into a 32-sample FIFO
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
        other.attach(MAX30102Emulator(clock: clock, source: source), at: 0x18)
        let driver = try LIS3DH(bus: other)
        let error = #expect(throws: SensorError.self) { try driver.configure() }
        #expect(error?.kind == .wrongChipID(expected: 0x33, found: 0x00, identified: "MAX30102/MAX30101/MAX30105"))
        #expect(error?.description.contains("MAX30102") == true)
    }

    @Test func reportsNothingAtTheAddress() throws {
        let driver = try LIS3DH(bus: bus, address: 0x19)
        let error = #expect(throws: SensorError.self) { try driver.configure() }
        guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
        #expect(busError.kind == .noAcknowledge)
        #expect(busError.address == 0x19)
        #expect(error?.description.contains("wiring") == true)
    }

    @Test func rejectsSettingsTheChipCannotDo() {
        #expect(throws: SensorError.self) { try LIS3DH(bus: bus, rangeG: 3) }
        #expect(throws: SensorError.self) { try LIS3DH(bus: bus, sampleRateHz: 60) }
    }

    @Test func transferErrorsCarryTheRegisterAndRecover() throws {
        let driver = try LIS3DH(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        bus.failNext(1, at: 0x18, with: .io(errno: 5))
        let error = #expect(throws: SensorError.self) { try driver.readSamples() }
        guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
        #expect(busError.kind == .io(errno: 5))
        #expect(busError.register == 0x2F)
        #expect(try driver.readSamples().samples.count == 5)
    }

    @Test func aFailedBurstReadIsReportedAsAGap() throws {
        let driver = try LIS3DH(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        bus.failNext(1, at: 0x18, with: .io(errno: 5), afterTransfers: 1)  // FIFO_SRC passes, the burst fails
        #expect(throws: SensorError.self) { try driver.readSamples() }
        clock.advance(bySeconds: 0.1)
        let next = try driver.readSamples()
        #expect(next.overrunDetected, "samples may have been popped and lost")
        #expect(next.samples.count == 15, "only the samples the FIFO holds, no repeats")
        #expect(Set(next.samples.map(\.zG)).count >= 1)
        clock.advance(bySeconds: 0.1)
        #expect(!(try driver.readSamples().overrunDetected))
    }

    @Test func comesBackAfterUnplugOnlyOnceReconfigured() throws {
        let driver = try LIS3DH(bus: bus)
        try driver.configure()
        bus.unplug(0x18)
        clock.advance(bySeconds: 0.2)
        #expect(throws: SensorError.self) { try driver.readSamples() }
        bus.plug(0x18)
        clock.advance(bySeconds: 0.2)
        // Powered up again: in power-down with the FIFO off, it produces nothing.
        #expect(try driver.readSamples().samples.isEmpty)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 10)
    }

    @Test func stuckFIFOGivesNoSamples() throws {
        let driver = try LIS3DH(bus: bus)
        try driver.configure()
        chip.fifoStuck = true
        clock.advance(bySeconds: 0.5)
        #expect(try driver.readSamples().samples.isEmpty)
    }
}
