import AmbleSignal
import Testing

@Suite("Gait model: step length, speed, distance, active energy")
struct GaitModelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var heightMeters: Double
        var weightKilograms: Double
        var calibratedStepLengthMeters: Double?
        var cadence: Double
        var expectedStepLengthMeters: Double
        var expectedSpeedMetersPerSecond: Double
        /// ACSM: active VO2 = 0.1 x speed (m/min) mL/kg/min; kcal/min = VO2 x kg / 1000 x 5.
        var expectedKilocaloriesPerMinute: Double
        var testDescription: String { "\(heightMeters) m, \(weightKilograms) kg, \(cadence) steps/min" }
    }

    static let cases: [Case] = [
        // 0.414 x 1.70 = 0.7038 m; 100/60 x 0.7038 = 1.173 m/s = 70.38 m/min;
        // 7.038 mL/kg/min x 70 kg = 0.4927 L/min -> 2.463 kcal/min.
        Case(heightMeters: 1.70, weightKilograms: 70, cadence: 100, expectedStepLengthMeters: 0.7038, expectedSpeedMetersPerSecond: 1.1730, expectedKilocaloriesPerMinute: 2.4633),
        // 0.414 x 1.60 = 0.6624 m; 70/60 x 0.6624 = 0.7728 m/s = 46.37 m/min; x 55 kg -> 1.2751 kcal/min.
        Case(heightMeters: 1.60, weightKilograms: 55, cadence: 70, expectedStepLengthMeters: 0.6624, expectedSpeedMetersPerSecond: 0.7728, expectedKilocaloriesPerMinute: 1.2751),
        // Calibrated 0.80 m; 120/60 x 0.8 = 1.6 m/s = 96 m/min; x 90 kg -> 4.32 kcal/min.
        Case(heightMeters: 1.90, weightKilograms: 90, calibratedStepLengthMeters: 0.80, cadence: 120, expectedStepLengthMeters: 0.80, expectedSpeedMetersPerSecond: 1.6, expectedKilocaloriesPerMinute: 4.32),
        // Standing still: no speed, no active energy.
        Case(heightMeters: 1.75, weightKilograms: 80, cadence: 0, expectedStepLengthMeters: 0.7245, expectedSpeedMetersPerSecond: 0, expectedKilocaloriesPerMinute: 0),
    ]

    @Test(arguments: cases)
    func model(_ c: Case) {
        let gait = GaitModel(heightMeters: c.heightMeters, weightKilograms: c.weightKilograms, calibratedStepLengthMeters: c.calibratedStepLengthMeters)
        #expect(abs(gait.stepLengthMeters - c.expectedStepLengthMeters) < 1e-4)
        #expect(abs(gait.speedMetersPerSecond(cadenceStepsPerMinute: c.cadence) - c.expectedSpeedMetersPerSecond) < 1e-4)
        #expect(abs(gait.activeEnergyKilocalories(cadenceStepsPerMinute: c.cadence, durationSeconds: 60) - c.expectedKilocaloriesPerMinute) < 1e-3)
        #expect(abs(gait.distanceMeters(steps: 1000) - 1000 * c.expectedStepLengthMeters) < 1e-6)
    }

    @Test("ACSM walking equation", arguments: [
        (speed: 80.0, grade: 0.0, vo2: 11.5),   // 3.5 + 8
        (speed: 80.0, grade: 0.05, vo2: 18.7),  // 3.5 + 8 + 1.8 x 80 x 0.05
        (speed: 0.0, grade: 0.1, vo2: 3.5),
    ])
    func acsm(speed: Double, grade: Double, vo2: Double) {
        #expect(abs(GaitModel.oxygenUptake(speedMetersPerMinute: speed, grade: grade) - vo2) < 1e-9)
    }

    @Test("calibration sets the step length from a measured walk", arguments: [
        (distance: 100.0, steps: 140, expected: Optional(0.7142857)),
        (distance: 100.0, steps: 0, expected: nil),
        (distance: 100.0, steps: 20, expected: nil),    // 5 m per step: not walking
        (distance: 0.0, steps: 100, expected: nil),
    ])
    func calibration(distance: Double, steps: Int, expected: Double?) {
        let length = GaitModel.calibratedStepLengthMeters(distanceMeters: distance, steps: steps)
        if let expected {
            #expect(length.map { abs($0 - expected) < 1e-6 } == true)
        } else {
            #expect(length == nil)
        }
    }
}
