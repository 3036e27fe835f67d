import AmbleHardware

/// A three-axis sample in g, in the chip's own axes.
public struct AccelerationVector: Equatable, Sendable {
    public var xG: Double
    public var yG: Double
    public var zG: Double

    public init(xG: Double, yG: Double, zG: Double) {
        self.xG = xG
        self.yG = yG
        self.zG = zG
    }
}

/// What one read of an accelerometer's FIFO gave.
public struct AccelerometerBatch: Equatable, Sendable {
    /// Samples oldest first, spaced by the output data rate.
    public var samples: [AccelerationVector]
    /// The FIFO overflowed since the last read: samples before these were lost.
    public var overrunDetected: Bool

    public init(samples: [AccelerationVector], overrunDetected: Bool) {
        self.samples = samples
        self.overrunDetected = overrunDetected
    }
}

/// An accelerometer driver: set-up, then FIFO reads.
public protocol Accelerometer: AnyObject {
    /// Chip model, e.g. "LIS3DH".
    var chipName: String { get }
    /// Output data rate actually configured, in Hz.
    var sampleRateHz: Double { get }
    /// Checks the chip ID and configures range, rate and FIFO. Safe to call again after a
    /// fault (the chip may have lost power).
    func configure() throws(SensorError)
    /// Reads every sample waiting in the FIFO.
    func readSamples() throws(SensorError) -> AccelerometerBatch
}
