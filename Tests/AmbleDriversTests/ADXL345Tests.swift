import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

extension ADXL345: AccelerometerDriver {}
extension ADXL345Emulator: AccelerometerEmulator {}

extension AccelerometerUnderTest {
    /// Full resolution: one LSB is 3.9 mg (1/256 g) at every range; the range sets how wide
    /// the word is (10 to 13 bits), so where it clips. Each read of the data registers pops
    /// one FIFO entry: one transfer per entry, no bursts.
    static let adxl345 = AccelerometerUnderTest(
        name: "ADXL345",
        address: 0x53,
        otherAddress: 0x1D,
        idRegister: 0x00,  // DEVID
        chipID: 0xE5,
        identifiedAs: "ADXL345",
        makeEmulator: { ADXL345Emulator(clock: $0, source: $1) },
        makeDriver: { try ADXL345(bus: $0, address: $1, rangeG: $2, sampleRateHz: $3) },
        makeDefaultDriver: { try ADXL345(bus: $0) },
        ratesHz: [6.25, 12.5, 25, 50, 100, 200, 400],
        unsupportedRatesHz: [60, 10, 500],
        toleranceG: { _ in 0.0039 },
        // The largest count of the 10...13-bit word at each range; the smallest is one below
        // its negative.
        clipping: ([(2, 511), (4, 1023), (8, 2047), (16, 4095)] as [(Int, Int)]).map { rangeG, maximumCount in
            Clipping(rangeG: rangeG, highestG: Double(maximumCount) / 256, lowestG: -Double(maximumCount) / 256 - 1.0 / 256, toleranceG: 0)
        },
        // INT_SOURCE, FIFO_STATUS, then one 6-byte read per entry.
        transfersToRead: { 2 + $0 },
        firstRegisterRead: 0x30,  // INT_SOURCE
        // INT_SOURCE, FIFO_STATUS and two entries go through; the third entry's read (DATAX0)
        // fails. The two popped are lost; the three left and the five sampled since come next.
        midReadFailure: .init(transfersBefore: 4, register: 0x32, samplesInTheNextBatch: 3 + 5),
        overflow: .init(afterSeconds: 1.0, samplesKept: 32),  // 50 samples into a 32-entry FIFO
        // What was in the FIFO before it stuck can still be read.
        samplesReadableOnceStuck: 5
    )
}

struct ADXL345Tests {
    let rig = AccelerometerRig(.adxl345)

    @Test func tenBitModeAndLeftJustificationScaleAsTheDatasheetSays() throws {
        // Straight register access, no driver: ±8 g in 10-bit mode is 64 LSB/g; left-justified
        // moves the 10-bit word to the top of 16 bits.
        rig.source.acceleration = (1, -0.5, 0)
        try rig.bus.writeRegister(address: 0x53, register: 0x31, value: 0x02)  // ±8 g, 10-bit, right-justified
        try rig.bus.writeRegister(address: 0x53, register: 0x2C, value: 0x09)  // 50 Hz
        try rig.bus.writeRegister(address: 0x53, register: 0x2D, value: 0x08)  // measure
        rig.clock.advance(bySeconds: 0.02)
        var bytes = try rig.bus.readRegisters(address: 0x53, register: 0x32, count: 6)
        #expect(Int16(bitPattern: UInt16(bytes[1]) << 8 | UInt16(bytes[0])) == 64)
        #expect(Int16(bitPattern: UInt16(bytes[3]) << 8 | UInt16(bytes[2])) == -32)
        try rig.bus.writeRegister(address: 0x53, register: 0x31, value: 0x06)  // ±8 g, 10-bit, left-justified
        rig.clock.advance(bySeconds: 0.02)
        bytes = try rig.bus.readRegisters(address: 0x53, register: 0x32, count: 6)
        #expect(Int16(bitPattern: UInt16(bytes[1]) << 8 | UInt16(bytes[0])) == 64 << 6)
    }
}
