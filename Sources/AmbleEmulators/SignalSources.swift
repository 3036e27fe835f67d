/// What an emulated accelerometer senses: acceleration in g along the chip's axes at a time.
/// Queried with non-decreasing times per chip.
public protocol AccelerationSource: AnyObject {
    func accelerationG(atSeconds time: Double) -> (x: Double, y: Double, z: Double)
}

/// What an emulated PPG sensor's photodiode sees, in 18-bit ADC counts at the reference
/// settings (LED current 7.2 mA, ADC range 4096 nA, pulse width 411 us). The emulator scales
/// the counts by the LED current and ADC range the driver configured, and clips them.
public protocol PPGSource: AnyObject {
    func opticalCounts(atSeconds time: Double) -> (red: Double, infrared: Double)
}

