/// From steps and cadence to step length, speed, distance and active energy.
///
/// **Step length.** Before calibration: `stepLengthToHeightRatio` x height. Pedometer makers
/// conventionally set the walking step length to 0.413 x height for women and 0.415 x height
/// for men; published measurements put normal walking between about 0.41 and 0.45 x height
/// (it grows with speed). Amble uses 0.414 for everyone until calibration replaces it with
/// the wearer's own: a measured distance walked divided by the steps counted on it.
///
/// **Active energy.** The ACSM metabolic equation for walking (American College of Sports
/// Medicine, *ACSM's Guidelines for Exercise Testing and Prescription*, "Metabolic
/// calculations"):
///
///     VO2 = 3.5 + 0.1 * S + 1.8 * S * G      mL O2 per kg per min
///
/// with S the speed in m/min and G the grade as a fraction. The 3.5 is resting; the active
/// part is `0.1 * S + 1.8 * S * G`. Energy uses about 5 kcal per litre of O2 (the ACSM's
/// rounding of 4.8-5.0 kcal/L), so active kcal per minute = active VO2 x kg / 1000 x 5.
/// The equation is stated for 50-100 m/min (1.9-3.7 mph); mindful walking is often slower,
/// where it is an extrapolation (it tends to underestimate the cost of very slow walking).
public struct GaitModel: Sendable, Equatable {
    /// Walking step length as a fraction of standing height (see the type's notes).
    public static let stepLengthToHeightRatio = 0.414
    /// Resting oxygen uptake, mL per kg per min (1 MET).
    public static let restingOxygenMillilitresPerKilogramMinute = 3.5
    /// Horizontal cost of walking, mL O2 per kg per metre (ACSM: 0.1 per m/min).
    public static let horizontalOxygenPerMetre = 0.1
    /// Vertical cost of walking, mL O2 per kg per metre of horizontal travel per unit grade.
    public static let verticalOxygenPerMetre = 1.8
    /// Energy per litre of oxygen, kcal.
    public static let kilocaloriesPerLitreOxygen = 5.0

    /// Standing height, metres (1.0 ... 2.3).
    public var heightMeters: Double
    /// Body weight, kilograms (25 ... 250).
    public var weightKilograms: Double
    /// Step length measured by calibration, metres; nil before calibration.
    public var calibratedStepLengthMeters: Double?

    public init(heightMeters: Double, weightKilograms: Double, calibratedStepLengthMeters: Double? = nil) {
        self.heightMeters = heightMeters
        self.weightKilograms = weightKilograms
        self.calibratedStepLengthMeters = calibratedStepLengthMeters
    }

    /// The height-based default step length, metres.
    public static func defaultStepLengthMeters(heightMeters: Double) -> Double {
        stepLengthToHeightRatio * heightMeters
    }

    /// Step length from a calibration walk: `distanceMeters` walked in `steps` steps; nil when
    /// there were no steps or the result is outside 0.2 ... 1.2 m (not a walking step).
    public static func calibratedStepLengthMeters(distanceMeters: Double, steps: Int) -> Double? {
        guard steps > 0, distanceMeters > 0 else { return nil }
        let length = distanceMeters / Double(steps)
        return (0.2 ... 1.2).contains(length) ? length : nil
    }

    /// The step length in use, metres: calibrated, else the height-based default.
    public var stepLengthMeters: Double {
        calibratedStepLengthMeters ?? Self.defaultStepLengthMeters(heightMeters: heightMeters)
    }

    /// Walking speed at `cadenceStepsPerMinute`, metres per second.
    public func speedMetersPerSecond(cadenceStepsPerMinute: Double) -> Double {
        max(cadenceStepsPerMinute, 0) / 60 * stepLengthMeters
    }

    /// Distance covered in `steps` steps, metres.
    public func distanceMeters(steps: Int) -> Double {
        Double(max(steps, 0)) * stepLengthMeters
    }

    /// Gross oxygen uptake (ACSM walking equation), mL per kg per min, at `speedMetersPerMinute`
    /// on `grade` (0.05 = 5 % uphill).
    public static func oxygenUptake(speedMetersPerMinute speed: Double, grade: Double = 0) -> Double {
        restingOxygenMillilitresPerKilogramMinute + horizontalOxygenPerMetre * speed + verticalOxygenPerMetre * speed * max(grade, 0)
    }

    /// Active (above resting) energy of walking at `cadenceStepsPerMinute` for `durationSeconds`
    /// on `grade`, kilocalories.
    public func activeEnergyKilocalories(cadenceStepsPerMinute: Double, durationSeconds: Double, grade: Double = 0) -> Double {
        guard cadenceStepsPerMinute > 0, durationSeconds > 0 else { return 0 }
        let speed = speedMetersPerSecond(cadenceStepsPerMinute: cadenceStepsPerMinute) * 60
        let active = Self.oxygenUptake(speedMetersPerMinute: speed, grade: grade) - Self.restingOxygenMillilitresPerKilogramMinute
        let litres = active * weightKilograms / 1000 * durationSeconds / 60
        return litres * Self.kilocaloriesPerLitreOxygen
    }
}
