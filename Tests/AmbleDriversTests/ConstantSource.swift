import AmbleEmulators

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
