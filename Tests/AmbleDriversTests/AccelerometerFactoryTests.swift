import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

struct AccelerometerFactoryTests {
    let clock = ManualClock()
    let source = ConstantSource()

    @Test(arguments: [
        ("lis3dh", "LIS3DH", 0x18), ("LIS2DH12", "LIS3DH", 0x18),
        ("adxl345", "ADXL345", 0x53), ("MPU-6050", "MPU-6050", 0x68),
    ] as [(String, String, UInt8)])
    func buildsTheDriverTheBoardFileNames(name: String, chipName: String, address: UInt8) throws {
        let bus = EmulatedI2CBus()
        bus.attach(LIS3DHEmulator(clock: clock, source: source), at: 0x18)
        bus.attach(ADXL345Emulator(clock: clock, source: source), at: 0x53)
        bus.attach(MPU6050Emulator(clock: clock, source: source), at: 0x68)
        let driver = try makeAccelerometer(chip: name, bus: bus, rangeG: 4, sampleRateHz: 50)
        #expect(driver.chipName == chipName)
        #expect(driver.sampleRateHz == 50)
        try driver.configure()
        clock.advance(bySeconds: 0.2)
        let batch = try driver.readSamples()
        #expect(batch.samples.count == 10)
        #expect(abs(batch.samples[0].zG - 0.96) < 0.01)
        #expect(bus.transferCount[address] ?? 0 > 0)
    }

    @Test func usesTheAddressGiven() throws {
        let bus = EmulatedI2CBus()
        bus.attach(ADXL345Emulator(clock: clock, source: source), at: 0x1D)
        let driver = try makeAccelerometer(chip: "adxl345", bus: bus, address: 0x1D, rangeG: 2, sampleRateHz: 25)
        try driver.configure()  // nothing answers at the default 0x53: this would throw there
        #expect((bus.transferCount[0x1D] ?? 0) > 0)
        #expect(bus.transferCount[0x53] == nil)
    }

    @Test func namesTheChipsItKnowsWhenAskedForAnother() {
        let bus = EmulatedI2CBus()
        let error = #expect(throws: SensorError.self) {
            try makeAccelerometer(chip: "bma280", bus: bus, rangeG: 4, sampleRateHz: 50)
        }
        #expect(error?.kind == .unknownChip(supported: ["lis3dh", "lis2dh12", "adxl345", "mpu6050"]))
        #expect(error?.description.contains("bma280") == true)
        #expect(error?.description.contains("lis3dh, lis2dh12, adxl345, mpu6050") == true)
    }

    @Test func refusesARateTheChipDoesNotHave() {
        let bus = EmulatedI2CBus()
        let error = #expect(throws: SensorError.self) {
            try makeAccelerometer(chip: "mpu6050", bus: bus, rangeG: 4, sampleRateHz: 400)
        }
        #expect(error?.chip == "MPU-6050")
    }
}
