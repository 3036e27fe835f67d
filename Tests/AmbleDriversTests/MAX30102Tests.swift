import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

struct MAX30102Tests {
    let clock = ManualClock()
    let bus = EmulatedI2CBus()
    let source = ConstantSource()
    let chip: MAX30102Emulator

    init() {
        chip = MAX30102Emulator(clock: clock, source: source)
        bus.attach(chip, at: 0x57)
    }

    @Test func readsRedAndInfraredAtTheReferenceCurrent() throws {
        let driver = try MAX30102(bus: bus, sampleRateHz: 100, ledCurrentMilliAmps: 7.2)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 10)
        #expect(batch.samplesLost == 0)
        #expect(batch.skinDetected == true)
        for sample in batch.samples {
            #expect(sample.red == 80_000)
            #expect(sample.infrared == 110_000)
        }
    }

    @Test func lightScalesWithLEDCurrentAndClips() throws {
        let driver = try MAX30102(bus: bus, ledCurrentMilliAmps: 14.4)
        try driver.configure()
        clock.advance(bySeconds: 0.05)
        let sample = try #require(try driver.readSamples().samples.first)
        // Twice the current: twice the reflected light above ambient (600 counts).
        #expect(sample.red == UInt32((80_000 - 600) * 2 + 600))
        #expect(sample.infrared == 219_400)
        let bright = try MAX30102(bus: bus, ledCurrentMilliAmps: 30)
        try bright.configure()
        clock.advance(bySeconds: 0.05)
        let clipped = try #require(try bright.readSamples().samples.first)
        #expect(clipped.infrared == 262_143)
    }

    @Test func averagingLowersTheEntryRate() throws {
        let driver = try MAX30102(bus: bus, sampleRateHz: 400, averaging: 4)
        #expect(driver.sampleRateHz == 100)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().samples.count == 20)
    }

    @Test func readsAcrossThePointerWrapWithoutLoss() throws {
        let driver = try MAX30102(bus: bus, sampleRateHz: 100)
        try driver.configure()
        var total = 0
        for _ in 0..<37 {  // 37 reads of 25 samples: the 5-bit pointers wrap many times
            clock.advance(bySeconds: 0.25)
            let batch = try driver.readSamples()
            #expect(batch.samplesLost == 0)
            total += batch.samples.count
        }
        #expect(total == 925)
    }

    @Test func reportsSamplesLostWhenTheFIFOFills() throws {
        let driver = try MAX30102(bus: bus, sampleRateHz: 100)
        try driver.configure()
        clock.advance(bySeconds: 0.5)  // 50 samples into 32 slots
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 32)
        #expect(batch.samplesLost == 18)
        clock.advance(bySeconds: 0.1)
        let next = try driver.readSamples()
        #expect(next.samplesLost == 0)
        #expect(next.samples.count == 10)
    }

    @Test func aFailedFIFOBurstIsReportedAsALoss() throws {
        let driver = try MAX30102(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.1)
        bus.failNext(1, at: 0x57, with: .io(errno: 5), afterTransfers: 1)  // pointers pass, the burst fails
        #expect(throws: SensorError.self) { try driver.readSamples() }
        clock.advance(bySeconds: 0.1)
        let next = try driver.readSamples()
        #expect(next.samplesLost > 0)
        #expect(next.samples.count == 20, "nothing was popped by the failed burst: all 20 are still there")
        clock.advance(bySeconds: 0.1)
        #expect(try driver.readSamples().samplesLost == 0)
    }

    @Test func anEmptyReadSaysNothingAboutSkin() throws {
        let driver = try MAX30102(bus: bus)
        try driver.configure()
        #expect(try driver.readSamples().skinDetected == nil)
    }

    @Test func detectsNoSkin() throws {
        source.light = (900, 1100)
        let driver = try MAX30102(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        #expect(try driver.readSamples().skinDetected == false)
    }

    @Test func resetsTheChipAtSetUp() throws {
        let driver = try MAX30102(bus: bus)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        // Reconfiguring empties the FIFO: only samples after it are read.
        try driver.configure()
        clock.advance(bySeconds: 0.05)
        #expect(try driver.readSamples().samples.count == 5)
    }

    @Test func refusesAnAccelerometerAtItsAddress() throws {
        let other = EmulatedI2CBus()
        other.attach(LIS3DHEmulator(clock: clock, source: source), at: 0x57)
        let error = #expect(throws: SensorError.self) { try MAX30102(bus: other).configure() }
        #expect(error?.kind == .wrongChipID(expected: 0x15, found: 0x00, identified: "LIS3DH/LIS2DH12"))
    }

    @Test func shutDownStopsSampling() throws {
        let driver = try MAX30102(bus: bus)
        try driver.configure()
        try driver.shutDown()
        clock.advance(bySeconds: 0.3)
        #expect(try driver.readSamples().samples.isEmpty)
    }
}
