import AmbleDrivers
import AmbleEmulators
import AmbleHardware

extension LIS3DH: AccelerometerDriver {}
extension LIS3DHEmulator: AccelerometerEmulator {}

extension AccelerometerUnderTest {
    /// High-resolution mode: a 12-bit value, left-justified. The whole FIFO comes in one burst
    /// from OUT_X_L with the auto-increment bit (the chip rolls back to OUT_X_L and pops a
    /// sample on each pass).
    static let lis3dh = AccelerometerUnderTest(
        name: "LIS3DH",
        address: 0x18,
        otherAddress: 0x19,
        idRegister: 0x0F,  // WHO_AM_I
        chipID: 0x33,
        identifiedAs: "LIS3DH/LIS2DH12",
        makeEmulator: { LIS3DHEmulator(clock: $0, source: $1) },
        makeDriver: { try LIS3DH(bus: $0, address: $1, rangeG: $2, sampleRateHz: $3) },
        makeDefaultDriver: { try LIS3DH(bus: $0) },
        ratesHz: [1, 10, 25, 50, 100, 200, 400],
        unsupportedRatesHz: [60, 6.25, 500],
        // One digit of the 12-bit value is 1, 2, 4 or 12 mg.
        toleranceG: { rangeG in [2: 0.001, 4: 0.002, 8: 0.004, 16: 0.012][rangeG]! },
        // The 12-bit value spans -2048...2047 digits. (At ±16 g, 12 mg a digit, 20 g does not
        // reach the end of the word.)
        clipping: ([(2, 1), (4, 2), (8, 4)] as [(Int, Double)]).map { rangeG, milliGPerDigit in
            Clipping(rangeG: rangeG, highestG: 2047 * milliGPerDigit / 1000, lowestG: -2048 * milliGPerDigit / 1000, toleranceG: 1e-9)
        },
        // FIFO_SRC, then one burst for all the samples.
        transfersToRead: { _ in 2 },
        firstRegisterRead: 0x2F,  // FIFO_SRC
        // FIFO_SRC passes, the burst (OUT_X_L with the auto-increment bit) fails: the five
        // samples it was to read and the five sampled since come next.
        midReadFailure: .init(transfersBefore: 1, register: 0x28 | 0x80, samplesInTheNextBatch: 5 + 5),
        overflow: .init(afterSeconds: 1.0, samplesKept: 32),  // 50 samples into a 32-sample FIFO
        // The emulator's fault holds from its last bus access: the samples due since are lost too.
        samplesReadableOnceStuck: 0
    )
}
